#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"
#include "spidal/mpi_env.hpp"

namespace {

// Writes values as int16 in the given byte order; returns the path.
std::string write_matrix(const std::string& name, const std::vector<std::int16_t>& values, spidal::ByteOrder order) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path = ::testing::TempDir() + "/" + name + "." + std::to_string(rank);
  std::ofstream file(path, std::ios::binary);
  for (const auto value : values) {
    const auto bits = static_cast<std::uint16_t>(value);
    const char bytes[2] = {static_cast<char>(order == spidal::ByteOrder::big ? bits >> 8 : bits & 0xff),
                           static_cast<char>(order == spidal::ByteOrder::big ? bits & 0xff : bits >> 8)};
    file.write(bytes, 2);
  }
  return path;
}

TEST(RowBlock, SplitsRowsContiguouslyAndBalanced) {
  std::int64_t next = 0;
  for (int part = 0; part < 3; ++part) {
    const auto block = spidal::row_block(10, 3, part);
    EXPECT_EQ(block.begin, next);
    EXPECT_EQ(block.rows(), part == 0 ? 4 : 3);
    next = block.end;
  }
  EXPECT_EQ(next, 10);
  EXPECT_EQ(spidal::row_block(2, 4, 3).rows(), 0);
}

TEST(Matrix, ReadsRowBlocksInEitherByteOrder) {
  const std::vector<std::int16_t> values = {0, 300, -1, 300, 0, 32767, -1, 32767, 0};
  for (const auto order : {spidal::ByteOrder::big, spidal::ByteOrder::little}) {
    const auto path = write_matrix("rows.bin", values, order);
    const auto rows = spidal::read_row_block(path, 3, {1, 3}, order);
    EXPECT_EQ(rows, std::vector<std::int16_t>(values.begin() + 3, values.end()));
    std::remove(path.c_str());
  }
}

TEST(Matrix, WrongSizeNamesExpectedAndActualBytes) {
  const auto path = write_matrix("size.bin", std::vector<std::int16_t>(16, 1), spidal::ByteOrder::little);
  try {
    const spidal::MatrixReader reader(path, 5, spidal::ByteOrder::little);
    FAIL() << "wrong size accepted";
  } catch (const spidal::InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("expected 50 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("found 32"), std::string::npos) << message;
    EXPECT_NE(message.find("4×4"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(spidal::MatrixReader(path, 4, spidal::ByteOrder::little));
  EXPECT_THROW(spidal::MatrixReader(path + ".absent", 4, spidal::ByteOrder::little), spidal::InputError);
  std::remove(path.c_str());
}

TEST(Matrix, StatsSkipMissingAndZeroWeightPairs) {
  const std::vector<std::int16_t> values = {0, 100, -5, 200, 32767, 50};
  const std::vector<std::int16_t> weights = {1, 1, 1, 1, 0, 1};
  const auto stats = spidal::block_stats(values.data(), weights.data(), values.size());
  EXPECT_DOUBLE_EQ(stats.max, 200 / 32767.0);
  EXPECT_DOUBLE_EQ(stats.min_positive, 50 / 32767.0);
  EXPECT_EQ(stats.counted_pairs, 4);
  EXPECT_EQ(stats.missing_pairs, 1);
  const double expected_squares = (100.0 * 100 + 200.0 * 200 + 50.0 * 50) / (32767.0 * 32767.0);
  EXPECT_NEAR(stats.sum_squares, expected_squares, 1e-15);
  EXPECT_EQ(stats.sum_squares_stored, 100 * 100 + 200 * 200 + 50 * 50);
  const auto unit = spidal::block_stats(values.data(), nullptr, values.size());
  EXPECT_DOUBLE_EQ(unit.max, 1.0);
}

TEST(Matrix, StatsReduceOverRanks) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  spidal::MatrixStats local;
  local.max = 0.1 * (rank + 1);
  local.min_positive = rank == 0 ? 0.0 : 0.05 * rank;  // rank 0 has no positive value
  local.sum_squares_stored = 32767LL * 32767LL;  // one pair at distance 1
  local.counted_pairs = 2;
  const auto global = spidal::reduce_stats(local, MPI_COMM_WORLD);
  EXPECT_DOUBLE_EQ(global.max, 0.1 * size);
  EXPECT_DOUBLE_EQ(global.min_positive, size == 1 ? 0.0 : 0.05);
  EXPECT_DOUBLE_EQ(global.sum_squares, size);
  EXPECT_EQ(global.counted_pairs, 2 * size);
}

TEST(RowBlockGather, EveryRankGetsTheFullMatrix) {
  const std::int64_t n = 7;
  spidal::RowBlockGather gather(MPI_COMM_WORLD, n, 3);
  const auto block = gather.local_block();
  std::vector<double> local;
  for (auto row = block.begin; row < block.end; ++row) {
    for (int column = 0; column < 3; ++column) local.push_back(row * 10.0 + column);
  }
  std::vector<double> full(n * 3, -1.0);
  gather.allgather(local.data(), full.data());
  for (std::int64_t row = 0; row < n; ++row) {
    for (int column = 0; column < 3; ++column) EXPECT_EQ(full[row * 3 + column], row * 10.0 + column);
  }
}

}  // namespace
