#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <sstream>

#include "centers.hpp"

namespace dapwc {
namespace {

TEST(Centers, MeanDistanceToOwnClusterExcludesThePointItself) {
  // Points 0, 1, 3 in cluster 1, point 2 alone in cluster 2.
  const std::int64_t n = 4;
  DistanceRows rows{n, {0, n}, {0, 100, 900, 300,  //
                                100, 0, 900, 500,  //
                                900, 900, 0, 900,  //
                                300, 500, 900, 0}};
  SingleRankExchange exchange(n);
  const std::vector<double> mean = distances_to_clusters(rows, exchange, {1, 1, 2, 1}, 2).own;
  EXPECT_NEAR(mean[0], 200.0 / 32767.0, 1e-15);
  EXPECT_NEAR(mean[1], 300.0 / 32767.0, 1e-15);
  EXPECT_EQ(mean[2], 0.0);
  EXPECT_NEAR(mean[3], 400.0 / 32767.0, 1e-15);
}

// Silhouettes and mean distances within clusters against the definitions, summed pair by pair.
TEST(Centers, SilhouettesFollowTheirDefinition) {
  const std::int64_t n = 40;
  std::mt19937 random(3);
  std::uniform_int_distribution<int> stored(1, 32767);
  DistanceRows rows{n, {0, n}, std::vector<std::int16_t>(n * n, 0)};
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      rows.stored[i * n + j] = rows.stored[j * n + i] = static_cast<std::int16_t>(stored(random));
  std::vector<int> labels(n);
  for (std::int64_t p = 0; p < n; ++p) labels[p] = p == 7 ? 4 : 1 + static_cast<int>(p % 3);  // cluster 4: one point
  const auto d = [&](std::int64_t i, std::int64_t j) { return rows.stored[i * n + j] / 32767.0; };
  const auto mean_to = [&](std::int64_t p, int label) {
    double sum = 0.0;
    int count = 0;
    for (std::int64_t q = 0; q < n; ++q)
      if (q != p && labels[q] == label) sum += d(p, q), ++count;
    return count > 0 ? sum / count : 0.0;
  };

  SingleRankExchange exchange(n);
  const PointDistances got = distances_to_clusters(rows, exchange, labels, 4);
  std::vector<double> silhouette_sum(4, 0.0), within_sum(4, 0.0);
  std::vector<int> members(4, 0);
  for (std::int64_t p = 0; p < n; ++p) {
    const int own = labels[p];
    double expected = 0.0;
    if (own != 4) {
      double nearest = std::numeric_limits<double>::infinity();
      for (int other = 1; other <= 4; ++other)
        if (other != own) nearest = std::min(nearest, mean_to(p, other));
      expected = (nearest - mean_to(p, own)) / std::max(nearest, mean_to(p, own));
    }
    EXPECT_NEAR(got.silhouette[p], expected, 1e-12) << "point " << p;
    EXPECT_NEAR(got.own[p], mean_to(p, own), 1e-12) << "point " << p;
    silhouette_sum[own - 1] += expected;
    within_sum[own - 1] += mean_to(p, own);
    ++members[own - 1];
  }
  const auto centers = cluster_centers(labels, 4, got, {});
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(centers[c].silhouette, silhouette_sum[c] / members[c], 1e-12) << "cluster " << c + 1;
    EXPECT_NEAR(centers[c].within_distance, within_sum[c] / members[c], 1e-12) << "cluster " << c + 1;
  }
  EXPECT_EQ(centers[3].silhouette, 0.0);  // alone
  EXPECT_EQ(centers[3].within_distance, 0.0);
}

TEST(Centers, OneClusterHasSilhouettesOfZero) {
  const std::int64_t n = 3;
  DistanceRows rows{n, {0, n}, {0, 100, 200, 100, 0, 300, 200, 300, 0}};
  SingleRankExchange exchange(n);
  const PointDistances got = distances_to_clusters(rows, exchange, {1, 1, 1}, 1);
  EXPECT_EQ(got.silhouette, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Centers, MedoidsAndCentreOfGravity) {
  // Cluster 1: a line 0, 1, 2, 10 on x; cluster 2: two points (tie → lower index).
  const std::vector<int> labels{1, 1, 2, 1, 1, 2};
  const std::vector<Point3> points{{0, 0, 0}, {1, 0, 0}, {5, 5, 5}, {2, 0, 0}, {10, 0, 0}, {5, 5, 7}};
  const PointDistances distances{{0.4, 0.1, 0.3, 0.2, 0.9, 0.3}, std::vector<double>(6, 0.5)};
  const auto centers = cluster_centers(labels, 2, distances, points);
  ASSERT_EQ(centers.size(), 2u);
  EXPECT_EQ(centers[0].count, 4);
  EXPECT_EQ(centers[0].medoid, 1);
  ASSERT_TRUE(centers[0].spatial && centers[1].spatial);
  EXPECT_EQ(centers[0].spatial->euclidean_medoid, 1);     // sums 13, 11, 11 (index 3), 27: first wins
  EXPECT_EQ(centers[0].spatial->nearest_to_centroid, 3);  // centroid x = 3.25
  EXPECT_EQ(centers[0].spatial->centroid, (Point3{3.25, 0, 0}));
  EXPECT_EQ(centers[1].medoid, 2);
  EXPECT_EQ(centers[1].spatial->euclidean_medoid, 2);
  EXPECT_EQ(centers[1].spatial->nearest_to_centroid, 2);

  std::ostringstream out;
  write_centers(out, centers);
  EXPECT_EQ(out.str(), "1 4 1 1 3 3.25 0 0\n2 2 2 2 2 5 5 6\n");
}

TEST(Centers, MedoidsAloneWithoutALayout) {
  const std::vector<int> labels{1, 1, 2, 1, 1, 2};
  const PointDistances distances{{0.4, 0.1, 0.3, 0.2, 0.9, 0.25}, std::vector<double>(6, 0.5)};
  const auto centers = cluster_centers(labels, 2, distances, {});
  ASSERT_EQ(centers.size(), 2u);
  EXPECT_FALSE(centers[0].spatial || centers[1].spatial);
  std::ostringstream out;
  write_centers(out, centers);
  EXPECT_EQ(out.str(), "1 4 1\n2 2 5\n");
}

}  // namespace
}  // namespace dapwc
