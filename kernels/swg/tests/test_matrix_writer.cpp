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

class MatrixWriter : public ::testing::TestWithParam<spidal::ByteOrder> {};

TEST_P(MatrixWriter, BlocksFromAllRanksFormTheMatrix) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/swg-writer-test-" + std::to_string(pid) + ".bin";
  const std::int64_t n = 37, side = 10;  // 4×4 blocks, the last ones ragged

  {
    spidal::Int16MatrixWriter writer(MPI_COMM_WORLD, path, n, GetParam());
    // Two rounds; block (I, J) belongs to rank (I + J) % ranks and round I % 2.
    for (int round = 0; round < 2; ++round) {
      std::vector<std::vector<std::int16_t>> storage;
      std::vector<spidal::MatrixBlock> blocks;
      for (std::int64_t bi = 0; bi * side < n; ++bi) {
        for (std::int64_t bj = 0; bj * side < n; ++bj) {
          if ((bi + bj) % ranks != rank || bi % 2 != round) continue;
          const auto rows = std::min(side, n - bi * side), cols = std::min(side, n - bj * side);
          auto& values = storage.emplace_back(rows * cols);
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t c = 0; c < cols; ++c) values[r * cols + c] = expected_value(bi * side + r, bj * side + c);
          }
          blocks.push_back({bi * side, bj * side, rows, cols, values.data()});
        }
      }
      writer.write(blocks);
    }
    writer.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const auto bytes = read_bytes(path);
    ASSERT_EQ(bytes.size(), static_cast<std::size_t>(n * n * 2));
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        const auto* at = &bytes[(i * n + j) * 2];
        const int low = GetParam() == spidal::ByteOrder::little ? at[0] : at[1];
        const int high = GetParam() == spidal::ByteOrder::little ? at[1] : at[0];
        ASSERT_EQ(static_cast<std::int16_t>(low | (high << 8)), expected_value(i, j)) << i << "," << j;
      }
    }
    std::remove(path.c_str());
  }
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
