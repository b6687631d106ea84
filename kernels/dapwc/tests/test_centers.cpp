#include <gtest/gtest.h>

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
  const std::vector<double> mean = mean_distance_to_own_cluster(rows, exchange, {1, 1, 2, 1}, 2);
  EXPECT_NEAR(mean[0], 200.0 / 32767.0, 1e-15);
  EXPECT_NEAR(mean[1], 300.0 / 32767.0, 1e-15);
  EXPECT_EQ(mean[2], 0.0);
  EXPECT_NEAR(mean[3], 400.0 / 32767.0, 1e-15);
}

TEST(Centers, MedoidsAndCentreOfGravity) {
  // Cluster 1: a line 0, 1, 2, 10 on x; cluster 2: two points (tie → lower index).
  const std::vector<int> labels{1, 1, 2, 1, 1, 2};
  const std::vector<Point3> points{{0, 0, 0}, {1, 0, 0}, {5, 5, 5}, {2, 0, 0}, {10, 0, 0}, {5, 5, 7}};
  const std::vector<double> mean_distance{0.4, 0.1, 0.3, 0.2, 0.9, 0.3};
  const auto centers = cluster_centers(labels, 2, mean_distance, points);
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
  const std::vector<double> mean_distance{0.4, 0.1, 0.3, 0.2, 0.9, 0.25};
  const auto centers = cluster_centers(labels, 2, mean_distance, {});
  ASSERT_EQ(centers.size(), 2u);
  EXPECT_FALSE(centers[0].spatial || centers[1].spatial);
  std::ostringstream out;
  write_centers(out, centers);
  EXPECT_EQ(out.str(), "1 4 1\n2 2 5\n");
}

}  // namespace
}  // namespace dapwc
