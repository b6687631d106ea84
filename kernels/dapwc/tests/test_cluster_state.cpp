#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cluster_state.hpp"

namespace dapwc {
namespace {

// A small random symmetric matrix with zero diagonal.
DistanceRows symmetric_rows(std::int64_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(1, 32767);
  DistanceRows rows{n, {0, n}, std::vector<std::int16_t>(n * n, 0)};
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      rows.stored[i * n + j] = rows.stored[j * n + i] = static_cast<std::int16_t>(value(random));
  return rows;
}

double d(const DistanceRows& rows, std::int64_t i, std::int64_t j) { return rows.stored[i * rows.n + j] / 32767.0; }

TEST(EmStep, FollowsTheFormulasOfTheAlgorithm) {
  const std::int64_t n = 6;
  const int k = 2;
  const DistanceRows rows = symmetric_rows(n, 3);
  SingleRankExchange exchange(n);
  ClusterState state = single_cluster(n, 0.2);
  // Two clusters with arbitrary memberships.
  state.clusters = k;
  state.membership = {0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.5, 0.5, 0.1, 0.9, 0.6, 0.4};
  state.b.assign(n * k, 0.0);
  state.epsilon.assign(n * k, 0.0);
  const std::vector<double> m = state.membership;

  const double change = em_step(rows, exchange, state);
  EXPECT_TRUE(std::isinf(change));  // ε was not current yet

  std::vector<double> c(k, 0.0), a(k, 0.0), b(n * k), eps(n * k);
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) c[j] += m[p * k + j];
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) {
      double sum = 0.0;
      for (std::int64_t q = 0; q < n; ++q) sum += d(rows, p, q) * m[q * k + j];
      b[p * k + j] = sum / c[j];
      a[j] += b[p * k + j] * m[p * k + j];
    }
  for (int j = 0; j < k; ++j) a[j] *= -0.5 / c[j];
  for (std::int64_t p = 0; p < n; ++p) {
    double total = 0.0;
    const double lowest = std::min(b[p * k] + a[0], b[p * k + 1] + a[1]);
    for (int j = 0; j < k; ++j) {
      eps[p * k + j] = b[p * k + j] + a[j];
      total += std::exp(-(eps[p * k + j] - lowest) / 0.2);
    }
    // The distance pass is single precision (relative error ~1e-7).
    for (int j = 0; j < k; ++j) {
      EXPECT_NEAR(state.epsilon[p * k + j], eps[p * k + j], 1e-7);
      EXPECT_NEAR(state.membership[p * k + j], std::exp(-(eps[p * k + j] - lowest) / 0.2) / total, 1e-6);
    }
  }
  for (int j = 0; j < k; ++j) {
    EXPECT_NEAR(state.a[j], a[j], 1e-7);
    EXPECT_NEAR(state.size[j], c[j], 1e-12);
  }

  // A second step reports the mean absolute ε change of the worst cluster.
  const std::vector<double> before = state.epsilon;
  const double second = em_step(rows, exchange, state);
  double worst = 0.0;
  for (int j = 0; j < k; ++j) {
    double sum = 0.0;
    for (std::int64_t p = 0; p < n; ++p) sum += std::abs(state.epsilon[p * k + j] - before[p * k + j]);
    worst = std::max(worst, sum / n);
  }
  EXPECT_NEAR(second, worst, 1e-15);
}

TEST(EmStep, OneClusterKeepsEveryPointAndConvergesAtOnce) {
  const DistanceRows rows = symmetric_rows(5, 4);
  SingleRankExchange exchange(5);
  ClusterState state = single_cluster(5, 1.0);
  const EmConvergence c = converge(rows, exchange, state, 1e-9, 10);
  EXPECT_TRUE(c.converged);
  EXPECT_EQ(c.iterations, 2);
  for (double m : state.membership) EXPECT_EQ(m, 1.0);
}

TEST(Freezing, ZeroForHardAndHalfForEvenMemberships) {
  ClusterState state = single_cluster(2, 1.0);
  state.clusters = 2;
  state.membership = {1.0, 0.0, 0.0, 1.0};
  EXPECT_EQ(freezing_measures(state), (std::vector<double>{0.0, 0.0}));
  state.membership = {0.5, 0.5, 0.5, 0.5};
  EXPECT_EQ(freezing_measures(state), (std::vector<double>{0.5, 0.5}));
}

ClusterState three_clusters_two_coincident() {
  ClusterState state = single_cluster(3, 0.1);
  state.clusters = 3;
  state.epsilon = {0.1, 0.5, 0.1, 0.6, 0.2, 0.6, 0.3, 0.3, 0.3};
  state.b = state.epsilon;
  state.a = {0.0, 0.0, 0.0};
  state.size = {1.0, 1.0, 1.0};
  state.membership.assign(9, 0.0);
  state.epsilon_current = true;
  memberships_from_epsilon(state);
  return state;
}

TEST(Clusters, NearestKeepAndMerge) {
  ClusterState state = three_clusters_two_coincident();
  EXPECT_EQ(nearest_clusters(state), (std::vector<int>{0, 1, 0}));  // ties go to the lower index

  ClusterState kept = state;
  keep_clusters(kept, {1, 2});
  EXPECT_EQ(kept.clusters, 2);
  EXPECT_EQ(kept.epsilon, (std::vector<double>{0.5, 0.1, 0.2, 0.6, 0.3, 0.3}));
  EXPECT_NEAR(kept.m(0, 1), 1.0 / (1.0 + std::exp(-4.0)), 1e-12);

  // Clusters 0 and 2 have the same ε at every point: the copy is dropped.
  EXPECT_EQ(merge_coincident_clusters(state, 1e-12), 1);
  EXPECT_EQ(state.clusters, 2);
  EXPECT_EQ(state.epsilon, (std::vector<double>{0.1, 0.5, 0.6, 0.2, 0.3, 0.3}));
  EXPECT_EQ(merge_coincident_clusters(state, 1e-12), 0);
}

}  // namespace
}  // namespace dapwc
