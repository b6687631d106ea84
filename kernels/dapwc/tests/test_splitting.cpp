#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "planted.hpp"
#include "splitting.hpp"

namespace dapwc {
namespace {

// Eigenvalues of a dense symmetric matrix by cyclic Jacobi rotations (an
// independent check of the power iterations).
std::vector<double> jacobi_eigenvalues(std::vector<double> a, int n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
    if (off < 1e-22) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (std::abs(apq) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) {  // rotate columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rotate rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> eigen(n);
  for (int i = 0; i < n; ++i) eigen[i] = a[i * n + i];
  std::sort(eigen.begin(), eigen.end());
  return eigen;
}

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

void expect_matches_dense(double temperature) {
  const OneClusterOverBlobs s = one_cluster_over_two_blobs(temperature);
  const std::vector<double> eigen = jacobi_eigenvalues(dense_hessian(s), static_cast<int>(s.data.n));
  SingleRankExchange exchange(s.data.n);
  PowerIterationSettings settings;
  settings.max_iterations = 5000;
  settings.tolerance = 1e-12;
  settings.shift_tolerance = 1e-12;
  const StabilityTest test = test_stability(s.rows, exchange, s.state, 5.0, -1.0, settings);
  ASSERT_EQ(test.tested, std::vector<int>{0});
  // λmax sits next to a nearly equal eigenvalue (H·1 = 1 for one cluster), so
  // it converges slowly; the test only needs it roughly.
  EXPECT_NEAR(test.lambda_max[0], eigen.back(), 1e-3 * std::abs(eigen.back()));
  EXPECT_NEAR(test.lambda_min[0], eigen.front(), 1e-3 * std::abs(eigen.back()));
}

TEST(StabilityTest, EigenvaluesMatchADenseSolveAboveTheCriticalTemperature) {
  expect_matches_dense(1.0);
}

TEST(StabilityTest, EigenvaluesMatchADenseSolveFarBelowIt) {
  expect_matches_dense(0.01);  // here λmin dominates in magnitude
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
