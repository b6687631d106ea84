// The fused pass and the (V + I) product against a direct dense evaluation of the
// formulas in algorithms.md, and the closed-form solve against conjugate gradients.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels.hpp"
#include "local_rows.hpp"
#include "smacof.hpp"
#include "spidal/mpi_env.hpp"
#include "spidal/progress.hpp"

namespace {

constexpr double kScale = 32767.0;

// A uniform random integer in [1, 20000] for the unordered pair {i, j} (splitmix64),
// so that the matrices are symmetric, as distance matrices are.
int pair_value(std::int64_t i, std::int64_t j, std::uint64_t seed) {
  std::uint64_t z = (static_cast<std::uint64_t>(std::min(i, j)) << 32 | static_cast<std::uint64_t>(std::max(i, j))) +
                    seed * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<int>((z ^ (z >> 31)) % 20000) + 1;
}

// Rows `block` of a symmetric n×n problem with random distances, some missing (-1)
// and, optionally, random weights with zeros.
damds::LocalRows random_rows(std::int64_t n, spidal::RowBlock block, bool weighted, bool with_missing,
                             std::uint64_t seed) {
  damds::LocalRows rows;
  rows.n = n;
  rows.block = block;
  for (std::int64_t i = block.begin; i < block.end; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const bool missing = with_missing && i != j && pair_value(i, j, seed + 1) % 11 == 0;
      rows.distances.push_back(i == j ? 0 : (missing ? -1 : static_cast<std::int16_t>(pair_value(i, j, seed))));
      if (weighted) {
        const int weight = pair_value(i, j, seed + 2);
        rows.weights.push_back(i == j || missing || weight % 3 == 0 ? 0 : static_cast<std::int16_t>(weight));
      }
    }
  }
  rows.stats.sum_squares = 1.0;
  return rows;
}

std::vector<double> random_points(std::int64_t n, int dim, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  std::vector<double> points(n * dim);
  for (auto& value : points) value = coordinate(generator);
  return points;
}

struct DenseResult {
  double stress = 0.0;
  std::vector<double> bx;
  std::vector<double> bx_magnitude;  // Σ_j |b_ij (x_j − x_i)|: the scale of rounding errors in bx
};

// Direct evaluation: b_ij = −w δ̂/d, b_ii = −Σ b_ij, BX = B·X; stress Σ w (δ̂ − d)².
DenseResult dense_guttman(const damds::LocalRows& rows, const std::vector<double>& points, int dim, double shift) {
  DenseResult result;
  for (std::int64_t r = 0; r < rows.block.rows(); ++r) {
    const std::int64_t i = rows.block.begin + r;
    std::vector<double> b(rows.n, 0.0);
    for (std::int64_t j = 0; j < rows.n; ++j) {
      const std::int16_t stored = rows.distances[r * rows.n + j];
      const double w = rows.weighted() ? rows.weights[r * rows.n + j] / kScale : 1.0;
      if (j == i || stored < 0 || w == 0.0) continue;
      const double target = std::max(stored / kScale - shift, 0.0);
      double squared = 0.0;
      for (int k = 0; k < dim; ++k) squared += std::pow(points[i * dim + k] - points[j * dim + k], 2);
      const double d = std::sqrt(squared);
      result.stress += w * (target - d) * (target - d);
      if (d > 1e-10 && target > 0) b[j] = -w * target / d;
    }
    double diagonal = 0.0;
    for (const double value : b) diagonal -= value;
    b[i] = diagonal;
    for (int k = 0; k < dim; ++k) {
      double sum = 0.0;
      double magnitude = 0.0;
      for (std::int64_t j = 0; j < rows.n; ++j) {
        sum += b[j] * points[j * dim + k];
        magnitude += std::abs(b[j] * (points[j * dim + k] - points[i * dim + k]));
      }
      result.bx.push_back(sum);
      result.bx_magnitude.push_back(magnitude);
    }
  }
  return result;
}

class KernelTest : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(KernelTest, ReferencePassMatchesDenseFormulas) {
  const auto [dim, weighted] = GetParam();
  const std::int64_t n = 37;
  // Missing distances come with weights (load_local_rows synthesises them).
  const auto rows = random_rows(n, {5, 29}, weighted, weighted, 11);
  const auto points = random_points(n, dim, 3);
  damds::Coordinates coordinates(dim, n);
  coordinates.assign_rows(points);
  for (const double shift : {0.0, 0.05, 0.3}) {
    damds::PassSums sums;
    damds::guttman_pass_reference(rows, coordinates, shift, sums);
    const auto expected = dense_guttman(rows, points, dim, shift);
    EXPECT_NEAR(sums.stress(), expected.stress, 1e-12 * std::max(1.0, expected.stress));
    ASSERT_EQ(sums.values.size(), static_cast<std::size_t>(n * dim + 1));
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < dim; ++k) {
        const bool local = i >= rows.block.begin && i < rows.block.end;
        const double want = local ? expected.bx[(i - rows.block.begin) * dim + k] : 0.0;
        EXPECT_NEAR(sums.bx()[i * dim + k], want, 1e-12) << "point " << i << " axis " << k;
      }
    }
  }
}

// The pass of each block of rows, added up over blocks that cover the matrix.
template <typename Pass>
damds::PassSums pass_over_blocks(Pass pass, const std::vector<damds::LocalRows>& blocks,
                                 const damds::Coordinates& coordinates, double shift) {
  damds::PassSums total;
  total.reset(coordinates.n, coordinates.dim);
  for (const auto& rows : blocks) {
    damds::PassSums part;
    pass(rows, coordinates, shift, part);
    for (std::size_t k = 0; k < total.values.size(); ++k) total.values[k] += part.values[k];
  }
  return total;
}

// The AVX2 pass (each pair once, from the row whose circular half holds it) against
// the reference (every row whole), summed over three row blocks as ranks would be.
// n = 2061 and 2060 cover both parities of the half, full 512-column blocks, short
// blocks, tails and halves that wrap past n; the blocks make partial row groups.
// Coincident points (x_7 = x_9) must get no B term.
TEST_P(KernelTest, Avx2PassMatchesReference) {
  if (!damds::avx2_supported()) GTEST_SKIP() << "no AVX2/FMA on this CPU";
  const auto [dim, weighted] = GetParam();
  for (const std::int64_t n : {2061, 2060}) {
    std::vector<damds::LocalRows> blocks;
    for (const spidal::RowBlock block : {spidal::RowBlock{0, 5}, {5, 1029}, {1029, n}}) {
      blocks.push_back(random_rows(n, block, weighted, weighted, 11));
    }
    auto points = random_points(n, dim, 3);
    for (int k = 0; k < dim; ++k) points[9 * dim + k] = points[7 * dim + k];
    damds::Coordinates coordinates(dim, n);
    coordinates.assign_rows(points);
    const auto whole = random_rows(n, {0, n}, weighted, weighted, 11);
    for (const double shift : {0.0, 0.05, 0.3}) {
      const auto dense = dense_guttman(whole, points, dim, shift);
      const auto fast = pass_over_blocks(damds::guttman_pass_avx2, blocks, coordinates, shift);
      const auto expected = pass_over_blocks(damds::guttman_pass_reference, blocks, coordinates, shift);
      // Single precision (rsqrt and one Newton step, ~1e-7 per term) summed in float
      // over blocks of 512 columns: errors up to ~1e-5 of the sum of |terms|.
      EXPECT_NEAR(fast.stress(), expected.stress(), 1e-5 * expected.stress()) << "n " << n;
      for (std::int64_t k = 0; k < n * dim; ++k) {
        EXPECT_NEAR(fast.bx()[k], expected.bx()[k], 1e-5 * dense.bx_magnitude[k]) << "n " << n << " entry " << k;
      }
    }
  }
}

class LaplacianTest : public ::testing::TestWithParam<int> {};

TEST_P(LaplacianTest, ProductMatchesDenseMatrix) {
  const int dim = GetParam();
  const std::int64_t n = 23;
  const auto rows = random_rows(n, {3, 20}, true, true, 5);
  const auto points = random_points(n, dim, 9);
  damds::Coordinates coordinates(dim, n);
  coordinates.assign_rows(points);
  std::vector<double> product;
  damds::laplacian_product(rows, damds::row_weight_sums(rows), coordinates, product);
  for (std::int64_t r = 0; r < rows.block.rows(); ++r) {
    const std::int64_t i = rows.block.begin + r;
    for (int k = 0; k < dim; ++k) {
      // (V + I)_ii = 1 + Σ_j≠i w_ij, (V + I)_ij = −w_ij.
      double expected = points[i * dim + k];
      for (std::int64_t j = 0; j < n; ++j) {
        if (j == i) continue;
        const double w = rows.weights[r * n + j] / kScale;
        expected += w * (points[i * dim + k] - points[j * dim + k]);
      }
      EXPECT_NEAR(product[r * dim + k], expected, 1e-6);  // single-precision product
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dimensions, KernelTest,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::Bool()));
INSTANTIATE_TEST_SUITE_P(Dimensions, LaplacianTest, ::testing::Values(1, 2, 3, 4));

}  // namespace

namespace {

// With unit weights and no missing distances the closed-form solve and a tightly
// converged CG on explicit unit weights must follow the same annealing path.
TEST(Smacof, ClosedFormSolveAgreesWithConjugateGradients) {
  const std::int64_t n = 40;
  const int dim = 3;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto block = spidal::row_block(n, size, rank);
  auto closed = random_rows(n, block, false, false, 21);
  closed.stats = spidal::reduce_stats(spidal::block_stats(closed.distances.data(), nullptr, closed.distances.size()),
                                      MPI_COMM_WORLD);
  closed.closed_form = true;
  auto iterative = closed;
  iterative.closed_form = false;
  for (std::int64_t r = 0; r < block.rows(); ++r) {
    for (std::int64_t j = 0; j < n; ++j) iterative.weights.push_back(block.begin + r == j ? 0 : 32767);
  }

  damds::Config config;
  config.points = n;
  config.dimension = dim;
  config.alpha = 0.8;
  config.tmin_factor = 100.0;  // a few temperatures only
  config.max_iterations_per_temperature = 5;
  config.cg_iterations = 500;
  config.cg_threshold = 1e-24;
  spidal::ProgressReporter quiet("damds", false);
  const auto start = random_points(n, dim, 4);
  const auto by_formula = damds::Smacof(config, closed, MPI_COMM_WORLD, start).run(quiet);
  const auto by_cg = damds::Smacof(config, iterative, MPI_COMM_WORLD, start).run(quiet);
  EXPECT_EQ(by_formula.iterations, by_cg.iterations);
  EXPECT_GT(by_cg.cg_iterations, 0);
  EXPECT_EQ(by_formula.cg_iterations, 0);
  // CG sees single-precision weights and products (relative error ~1e-7 per term).
  EXPECT_NEAR(by_formula.stress, by_cg.stress, 1e-6);
  for (std::size_t k = 0; k < start.size(); ++k) EXPECT_NEAR(by_formula.points[k], by_cg.points[k], 1e-5);
}

}  // namespace
