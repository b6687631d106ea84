// Collective block writes (run with 1 and 2 ranks): every rank writes its share of
// the blocks over two rounds; the file must hold exactly the expected matrix.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "spidal/matrix_writer.hpp"

namespace {

std::int16_t expected_value(std::int64_t i, std::int64_t j) { return static_cast<std::int16_t>(i * 1000 + j - 30000); }

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

class MatrixWriter : public ::testing::TestWithParam<spidal::ByteOrder> {
 protected:
  // Writes a rows × cols matrix in 10×10 blocks over two rounds and checks the file.
  void write_and_check(std::int64_t rows, std::int64_t cols, bool square) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long pid = ::getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const std::string path = "/tmp/swg-writer-test-" + std::to_string(pid) + ".bin";
    const std::int64_t side = 10;  // the last blocks ragged
    {
      auto writer = square ? spidal::Int16MatrixWriter(MPI_COMM_WORLD, path, rows, GetParam())
                           : spidal::Int16MatrixWriter(MPI_COMM_WORLD, path, rows, cols, GetParam());
      // Two rounds; block (I, J) belongs to rank (I + J) % ranks and round I % 2.
      for (int round = 0; round < 2; ++round) {
        std::vector<std::vector<std::int16_t>> storage;
        std::vector<spidal::MatrixBlock> blocks;
        for (std::int64_t bi = 0; bi * side < rows; ++bi) {
          for (std::int64_t bj = 0; bj * side < cols; ++bj) {
            if ((bi + bj) % ranks != rank || bi % 2 != round) continue;
            const auto block_rows = std::min(side, rows - bi * side), block_cols = std::min(side, cols - bj * side);
            auto& values = storage.emplace_back(block_rows * block_cols);
            for (std::int64_t r = 0; r < block_rows; ++r) {
              for (std::int64_t c = 0; c < block_cols; ++c) {
                values[r * block_cols + c] = expected_value(bi * side + r, bj * side + c);
              }
            }
            blocks.push_back({bi * side, bj * side, block_rows, block_cols, values.data()});
          }
        }
        writer.write(blocks);
      }
      writer.close();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const auto bytes = read_bytes(path);
      ASSERT_EQ(bytes.size(), static_cast<std::size_t>(rows * cols * 2));
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const auto* at = &bytes[(i * cols + j) * 2];
          const int low = GetParam() == spidal::ByteOrder::little ? at[0] : at[1];
          const int high = GetParam() == spidal::ByteOrder::little ? at[1] : at[0];
          ASSERT_EQ(static_cast<std::int16_t>(low | (high << 8)), expected_value(i, j)) << i << "," << j;
        }
      }
      std::remove(path.c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
};

TEST_P(MatrixWriter, BlocksFromAllRanksFormTheMatrix) { write_and_check(37, 37, true); }

// An out-of-sample × in-sample block file: rows and cols differ, wider and taller.
TEST_P(MatrixWriter, BlocksFromAllRanksFormARectangularMatrix) {
  write_and_check(13, 37, false);
  write_and_check(31, 7, false);
}

INSTANTIATE_TEST_SUITE_P(ByteOrders, MatrixWriter,
                         ::testing::Values(spidal::ByteOrder::little, spidal::ByteOrder::big),
                         [](const auto& info) { return info.param == spidal::ByteOrder::little ? "little" : "big"; });

TEST(MatrixWriterErrors, RejectsBlocksOutsideTheMatrix) {
  const std::string path = "/tmp/swg-writer-bad-" + std::to_string(::getpid()) + ".bin";
  spidal::Int16MatrixWriter writer(MPI_COMM_SELF, path, 4, spidal::ByteOrder::little);
  const std::int16_t values[4] = {};
  const spidal::MatrixBlock outside{3, 3, 2, 2, values};
  EXPECT_THROW(writer.write({&outside, 1}), std::invalid_argument);
  writer.close();
  std::remove(path.c_str());
}

}  // namespace
