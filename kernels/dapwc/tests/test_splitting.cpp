#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "planted.hpp"
#include "splitting.hpp"
#include "symmetric_eigen.hpp"

namespace dapwc {
namespace {

struct OneClusterOverBlobs {
  testing::PlantedClusters data;
  DistanceRows rows;
  ClusterState state;
};

// Planted blobs of these sizes held by one converged cluster at temperature `temperature`.
OneClusterOverBlobs one_cluster_over_blobs(const std::vector<int>& sizes, double temperature) {
  OneClusterOverBlobs s{testing::gaussian_blobs(sizes, 4.0, 0.3, 9), {}, {}};
  s.rows = {s.data.n, {0, s.data.n}, s.data.stored};
  s.state = single_cluster(s.data.n, temperature);
  SingleRankExchange exchange(s.data.n);
  converge(s.rows, exchange, s.state, 1e-12, 10);
  return s;
}

OneClusterOverBlobs one_cluster_over_two_blobs(double temperature) { return one_cluster_over_blobs({15, 15}, temperature); }

std::vector<double> dense_hessian(const OneClusterOverBlobs& s) {
  const int n = static_cast<int>(s.data.n);
  std::vector<double> h(n * n);
  const ClusterState& st = s.state;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double dij = s.rows.stored[i * n + j] / 32767.0;
      h[i * n + j] = (i == j ? st.m(i, 0) : 0.0) +
                     st.m(i, 0) * st.m(j, 0) / st.temperature *
                         (dij - st.b[i] - st.b[j] - 2.0 * st.a[0]) / st.size[0];
    }
  return h;
}

// Planted spectrum: Q·diag(values)·Qᵀ for a random orthogonal Q (Householder reflection).
TEST(SymmetricEigen, RecoversAPlantedSpectrumAndVectors) {
  const int n = 7;
  const std::vector<double> planted = {-2.5, -0.5, 0.0, 1e-3, 0.75, 3.0, 40.0};
  std::vector<double> u(n);
  for (int i = 0; i < n; ++i) u[i] = std::sin(1.7 * i + 0.3);
  const double uu = std::inner_product(u.begin(), u.end(), u.begin(), 0.0);
  std::vector<double> q(n * n), a(n * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) q[i * n + j] = (i == j ? 1.0 : 0.0) - 2.0 * u[i] * u[j] / uu;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) a[i * n + j] += q[i * n + k] * planted[k] * q[j * n + k];
  const SymmetricEigen eigen = symmetric_eigen(a, n);
  for (int k = 0; k < n; ++k) {
    EXPECT_NEAR(eigen.values[k], planted[k], 1e-12) << k;
    double along = 0.0;  // |⟨vector k, planted vector k⟩| = 1
    for (int r = 0; r < n; ++r) along += eigen.vectors[r * n + k] * q[r * n + k];
    EXPECT_NEAR(std::abs(along), 1.0, 1e-10) << k;
  }
}

// Against a dense solve of the same Hessian; a small Krylov basis makes the run
// restart (60 points, 6 vectors).
void expect_matches_dense(double temperature, int max_dimension) {
  const OneClusterOverBlobs s = one_cluster_over_blobs({30, 30}, temperature);
  const std::vector<double> eigen = symmetric_eigen(dense_hessian(s), static_cast<int>(s.data.n)).values;
  SingleRankExchange exchange(s.data.n);
  EigenSettings settings;
  settings.max_passes = 5000;
  settings.max_dimension = max_dimension;
  settings.tolerance = 1e-10;
  settings.lambda_max_tolerance = 1e-10;
  settings.stop_when_decided = false;
  const StabilityTest test = test_stability(s.rows, exchange, s.state, 5.0, -0.01, settings);
  ASSERT_EQ(test.tested, std::vector<int>{0});
  // The distance pass sums in single precision (relative error ~1e-7).
  const double size = std::max(std::abs(eigen.front()), std::abs(eigen.back()));
  EXPECT_NEAR(test.lambda_max[0], eigen.back(), 1e-7 * size);
  EXPECT_NEAR(test.lambda_min[0], eigen.front(), 1e-7 * size);
}

// A test cut short by max_passes when its basis is full still has the last Ritz pair.
TEST(StabilityTest, StoppedAtTheFullBasisKeepsItsDirection) {
  const OneClusterOverBlobs s = one_cluster_over_two_blobs(0.05);
  SingleRankExchange exchange(s.data.n);
  EigenSettings settings;
  settings.max_dimension = 4;
  settings.max_passes = 4;
  settings.stop_when_decided = false;
  settings.tolerance = settings.lambda_max_tolerance = 0.0;
  const StabilityTest test = test_stability(s.rows, exchange, s.state, 5.0, -0.01, settings);
  EXPECT_EQ(test.passes, 4);
  const std::vector<double>& v = test.direction.at(0);
  EXPECT_NEAR(std::inner_product(v.begin(), v.end(), v.begin(), 0.0), 1.0, 1e-12);
  EXPECT_LT(test.lambda_min[0], 0.0);
}

TEST(StabilityTest, EigenvaluesMatchADenseSolveAboveTheCriticalTemperature) {
  for (const int dimension : {32, 6}) expect_matches_dense(1.0, dimension);
}

TEST(StabilityTest, EigenvaluesMatchADenseSolveFarBelowIt) {
  for (const int dimension : {32, 6}) expect_matches_dense(0.01, dimension);  // λmin dominates here
}

TEST(StabilityTest, HighTemperatureIsStableLowTemperatureSplitsTheBlobs) {
  SingleRankExchange exchange(30);
  const OneClusterOverBlobs hot = one_cluster_over_two_blobs(2.0);
  const StabilityTest stable = test_stability(hot.rows, exchange, hot.state, 5.0, -0.01, {});
  EXPECT_GT(stable.lambda_min[0], 0.0);
  EXPECT_EQ(choose_split(stable, -0.01), -1);

  OneClusterOverBlobs cold = one_cluster_over_two_blobs(0.05);
  const StabilityTest unstable = test_stability(cold.rows, exchange, cold.state, 5.0, -0.01, {});
  ASSERT_EQ(choose_split(unstable, -0.01), 0);
  // The eigenvector separates the blobs: its sign is the planted label.
  const std::vector<double>& v = unstable.direction[0];
  int agree = 0;
  for (int p = 0; p < 30; ++p) agree += (v[p] > 0) == (cold.data.truth[p] == 1);
  EXPECT_TRUE(agree == 0 || agree == 30);

  split_cluster(cold.state, 0, v, 0.5);
  EXPECT_EQ(cold.state.clusters, 2);
  for (int p = 0; p < 30; ++p) {
    EXPECT_NEAR(cold.state.m(p, 0) + cold.state.m(p, 1), 1.0, 1e-12);
    EXPECT_EQ(cold.state.m(p, 0) > 0.5, v[p] < 0);  // the original keeps the side where v < 0
  }
}

// Families of 12-60 reads: the split must cut off a small family whole, not halve the large one.
TEST(StabilityTest, SplitCutsASmallFamilyOffALargeOne) {
  for (const double temperature : {0.2, 0.05}) {
    const OneClusterOverBlobs s = one_cluster_over_blobs({12, 60}, temperature);
    SingleRankExchange exchange(s.data.n);
    const StabilityTest test = test_stability(s.rows, exchange, s.state, 5.0, -0.01, {});
    ASSERT_EQ(choose_split(test, -0.01), 0) << "T = " << temperature;
    int agree = 0;
    for (int p = 0; p < s.data.n; ++p) agree += (test.direction[0][p] > 0) == (s.data.truth[p] == 1);
    EXPECT_TRUE(agree == 0 || agree == s.data.n) << "T = " << temperature << ": " << agree << " of " << s.data.n;
  }
}

TEST(StabilityTest, SkipsClustersTooSmallToSplit) {
  const OneClusterOverBlobs s = one_cluster_over_two_blobs(0.05);
  SingleRankExchange exchange(30);
  EXPECT_TRUE(test_stability(s.rows, exchange, s.state, 30.0, -0.01, {}).tested.empty());
}

}  // namespace
}  // namespace dapwc
