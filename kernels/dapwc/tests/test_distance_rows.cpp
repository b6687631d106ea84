#include <gtest/gtest.h>

#include <omp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "distance_rows.hpp"
#include "row_stream.hpp"
#include "spidal/cpu.hpp"
#include "spidal/errors.hpp"

namespace dapwc {
namespace {

std::vector<std::int16_t> random_stored(std::int64_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(0, 32767);
  std::vector<std::int16_t> stored(n * n);
  for (auto& s : stored) s = static_cast<std::int16_t>(value(random));
  return stored;
}

bool cpu_runs(PassVariant variant) {
  return variant == PassVariant::portable || spidal::cpu_supports(spidal::Isa::avx2);
}

TEST(MultiplyRows, FastestVariantFollowsTheCpu) {
  EXPECT_EQ(fastest_pass_variant(), cpu_runs(PassVariant::avx2) ? PassVariant::avx2 : PassVariant::portable);
}

// Each variant this CPU runs (the other tests take the default, fastest_pass_variant()).
class MultiplyRowsVariant : public testing::TestWithParam<PassVariant> {};

TEST_P(MultiplyRowsVariant, MatchesDirectSumsAndIsIndependentOfRowSplitAndThreads) {
  const PassVariant variant = GetParam();
  if (!cpu_runs(variant)) GTEST_SKIP() << "this CPU lacks AVX2 or FMA";
  const std::int64_t n = 2100;  // enough pairs for the threaded pass
  const int width = 5;  // a full and a partial group of 4 columns
  const std::vector<std::int16_t> stored = random_stored(n, 1);
  std::vector<double> columns(width * n);
  std::mt19937 random(2);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& c : columns) c = unit(random);

  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  const DistanceRows all{n, {0, n}, stored};
  std::vector<double> whole(n * width);
  multiply_rows(all, columns.data(), width, whole.data(), variant);
  for (std::int64_t r : {0L, 5L, n - 1})
    for (int j = 0; j < width; ++j) {
      long double expected = 0.0L;
      for (std::int64_t b = 0; b < n; ++b) expected += stored[r * n + b] / 32767.0L * columns[j * n + b];
      // Single-precision products, float sums per block of 512 columns.
      EXPECT_NEAR(whole[r * width + j], static_cast<double>(expected), 1e-6 * static_cast<double>(expected));
    }

  // Rows 7..13 as a block of their own (a short last group) give the same bits.
  const std::int64_t first = 7, rows = 6;
  const DistanceRows part{n, {first, first + rows},
                          std::vector<std::int16_t>(stored.begin() + first * n,
                                                    stored.begin() + (first + rows) * n)};
  std::vector<double> partial(rows * width);
  multiply_rows(part, columns.data(), width, partial.data(), variant);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < width; ++j) EXPECT_EQ(partial[r * width + j], whole[(first + r) * width + j]);

  // One thread gives the same bits as two.
  omp_set_num_threads(1);
  std::vector<double> serial(n * width);
  multiply_rows(all, columns.data(), width, serial.data(), variant);
  omp_set_num_threads(threads);
  EXPECT_EQ(serial, whole);
}

INSTANTIATE_TEST_SUITE_P(Variants, MultiplyRowsVariant, testing::Values(PassVariant::portable, PassVariant::avx2),
                         [](const testing::TestParamInfo<PassVariant>& info) {
                           return info.param == PassVariant::avx2 ? "avx2" : "portable";
                         });

TEST(PrepareDistances, ZeroesDiagonalFillsMissingWithTheMean) {
  // 3 points; off-diagonal valid values 100, 200, 300, 300, 200 and one missing.
  std::vector<std::int16_t> stored{7, 100, 200,  //
                                   100, 0, -1,   //
                                   200, 300, 5};
  DistanceRows rows{3, {0, 3}, stored};
  SingleRankExchange exchange(3);
  const MatrixSummary summary = prepare_distances(rows, exchange);
  EXPECT_EQ(summary.missing_pairs, 1);
  EXPECT_DOUBLE_EQ(summary.mean_distance, 180.0 / 32767.0);
  EXPECT_EQ(rows.stored, (std::vector<std::int16_t>{0, 100, 200, 100, 0, 180, 200, 300, 0}));
}

TEST(PrepareDistances, RejectsMatricesWithNothingToCluster) {
  SingleRankExchange exchange(2);
  DistanceRows zeros{2, {0, 2}, {0, 0, 0, 0}};
  EXPECT_THROW(prepare_distances(zeros, exchange), spidal::InputError);
  DistanceRows missing{2, {0, 2}, {0, -1, -1, 0}};
  EXPECT_THROW(prepare_distances(missing, exchange), spidal::InputError);
}

// One rank's block of rows; the other rows' values come out as 0.
class BlockExchange final : public RowExchange {
 public:
  BlockExchange(std::int64_t n, spidal::RowBlock block) : n_(n), block_(block) {}
  spidal::RowBlock local_block() const override { return block_; }
  void allgather(const double* local, double* full, int width) override {
    std::fill(full, full + n_ * width, 0.0);
    std::copy(local, local + block_.rows() * width, full + block_.begin * width);
  }

 private:
  std::int64_t n_;
  spidal::RowBlock block_;
};

TEST(StreamedRows, GiveTheSummaryAndPassOfRowsInMemory) {
  const std::int64_t n = 203;
  const spidal::RowBlock block{5, 190};  // 185 rows: 11 blocks of 16 and a short one
  std::vector<std::int16_t> stored = random_stored(n, 4);
  for (std::int64_t k = 3; k < n * n; k += 97) stored[k] = -1;  // missing, the diagonal's included
  const std::string path =
      (std::filesystem::temp_directory_path() / ("dapwc-stream-" + std::to_string(::getpid()) + ".bin")).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(stored.data()), static_cast<std::streamsize>(stored.size() * 2));

  DistanceRows memory{n, block, std::vector<std::int16_t>(stored.begin() + block.begin * n, stored.begin() + block.end * n)};
  DistanceRows streamed{n, block, {}, std::make_shared<RowStream>(path, n, spidal::ByteOrder::little, 16)};
  BlockExchange exchange(n, block);
  const MatrixSummary in_memory = prepare_distances(memory, exchange);
  const MatrixSummary from_disk = prepare_distances(streamed, exchange);
  EXPECT_GT(in_memory.missing_pairs, 0);
  EXPECT_EQ(from_disk.missing_pairs, in_memory.missing_pairs);
  EXPECT_EQ(from_disk.mean_distance, in_memory.mean_distance);
  EXPECT_TRUE(streamed.stored.empty());

  const int width = 5;
  std::vector<double> columns(width * n);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& c : columns) c = unit(random);
  std::vector<double> expected(block.rows() * width), got(block.rows() * width);
  multiply_rows(memory, columns.data(), width, expected.data());
  multiply_rows(streamed, columns.data(), width, got.data());
  EXPECT_EQ(got, expected);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dapwc
