// The whole schedule on planted clusters: the right count and an adjusted Rand
// index of at least 0.95, also when MaxNcent is below the planted count.
#include <gtest/gtest.h>

#include "annealing.hpp"
#include "planted.hpp"

namespace dapwc {
namespace {

struct Clustered {
  testing::PlantedClusters data;
  AnnealingResult result;
};

// min_cluster_points 0: the program's default for N.
Clustered cluster_blobs(int clusters, int per_cluster, int max_clusters, unsigned seed, int min_cluster_points = 0) {
  Clustered c{testing::gaussian_blobs(clusters, per_cluster, 4.0, 0.3, seed), {}};
  SingleRankExchange exchange(c.data.n);
  DistanceRows rows{c.data.n, {0, c.data.n}, c.data.stored};
  const MatrixSummary summary = prepare_distances(rows, exchange);
  AnnealingSettings settings;
  settings.max_clusters = max_clusters;
  settings.min_cluster_points = min_cluster_points > 0 ? min_cluster_points : default_min_cluster_points(c.data.n);
  c.result = anneal(rows, exchange, summary.mean_distance, settings, {});
  return c;
}

TEST(Annealing, RecoversFourPlantedBlobs) {
  const Clustered c = cluster_blobs(4, 60, 8, 11);
  EXPECT_EQ(c.result.clusters, 4);
  EXPECT_GE(testing::adjusted_rand_index(c.data.truth, c.result.labels), 0.95);
  EXPECT_TRUE(c.result.frozen);
  EXPECT_EQ(c.result.labels[0], 1);  // numbered by first point
}

TEST(Annealing, RecoversSixPlantedBlobsOfUnequalPlacement) {
  const Clustered c = cluster_blobs(6, 40, 8, 5);
  EXPECT_EQ(c.result.clusters, 6);
  EXPECT_GE(testing::adjusted_rand_index(c.data.truth, c.result.labels), 0.95);
}

// Fewer clusters than the data hold: the cap, not the data, set the count, and the result says so.
TEST(Annealing, StopsAtMaxNcentAndSaysItCapped) {
  const Clustered c = cluster_blobs(5, 40, 3, 3);
  EXPECT_EQ(c.result.clusters, 3);
  EXPECT_EQ(testing::count_labels(c.result.labels), 3);
  EXPECT_EQ(c.result.warnings,
            std::vector<std::string>{"capped at 3 clusters: one was still splitting, so the data may hold more"});
}

TEST(Annealing, OneClusterWhenMaxNcentIsOne) {
  const Clustered c = cluster_blobs(3, 30, 1, 2);
  EXPECT_EQ(c.result.clusters, 1);
  EXPECT_EQ(c.result.splits, 0);
  for (int label : c.result.labels) EXPECT_EQ(label, 1);
  ASSERT_EQ(c.result.warnings.size(), 1u);
  EXPECT_EQ(c.result.warnings.front().rfind("capped at 1 clusters:", 0), 0u) << c.result.warnings.front();
}

TEST(MinClusterSize, DefaultFollowsN) {
  EXPECT_EQ(default_min_cluster_points(30), 2);
  EXPECT_EQ(default_min_cluster_points(120), 3);
  EXPECT_EQ(default_min_cluster_points(400), 10);
  EXPECT_EQ(default_min_cluster_points(1000), 25);
  EXPECT_EQ(default_min_cluster_points(100000), 25);
}

// SPIDAL's fixed 25 dropped every cluster of these, leaving one with no word.
TEST(MinClusterSize, SmallInputsKeepTheirClusters) {
  for (const auto& [clusters, per_cluster] : {std::pair{3, 10}, {3, 20}, {3, 40}, {5, 12}}) {
    const Clustered c = cluster_blobs(clusters, per_cluster, 8, 7);
    EXPECT_EQ(c.result.clusters, clusters) << clusters << " x " << per_cluster;
    EXPECT_GE(testing::adjusted_rand_index(c.data.truth, c.result.labels), 0.95);
    EXPECT_TRUE(c.result.warnings.empty()) << c.result.warnings.front();
  }
}

TEST(MinClusterSize, DroppedClustersAreReported) {
  const Clustered c = cluster_blobs(3, 40, 8, 7, 50);
  EXPECT_EQ(c.result.clusters, 1);
  EXPECT_EQ(c.result.removed_clusters, 2);
  EXPECT_EQ(c.result.warnings, std::vector<std::string>{"2 of 3 clusters dropped: under 50 points"});
}

// As many clusters as the cap allows, and no more in the data: no "capped" warning.
TEST(Annealing, RecoversEightBlobsAtMaxNcent) {
  const Clustered c = cluster_blobs(8, 60, 8, 19);
  EXPECT_EQ(c.result.clusters, 8);
  EXPECT_GE(testing::adjusted_rand_index(c.data.truth, c.result.labels), 0.95);
  EXPECT_TRUE(c.result.warnings.empty());
}

TEST(Annealing, FindsFamiliesOfUnequalSize) {
  const testing::PlantedClusters data = testing::gaussian_blobs({12, 60, 30, 20, 45}, 4.0, 0.3, 23);
  SingleRankExchange exchange(data.n);
  DistanceRows rows{data.n, {0, data.n}, data.stored};
  const MatrixSummary summary = prepare_distances(rows, exchange);
  AnnealingSettings settings;
  settings.min_cluster_points = default_min_cluster_points(data.n);
  const AnnealingResult result = anneal(rows, exchange, summary.mean_distance, settings, {});
  EXPECT_EQ(result.clusters, 5);
  EXPECT_GE(testing::adjusted_rand_index(data.truth, result.labels), 0.95);
}

TEST(Labels, NumberedByFirstPoint) {
  EXPECT_EQ(labels_by_first_point({4, 4, 0, 2, 0, 4}), (std::vector<int>{1, 1, 2, 3, 2, 1}));
}

}  // namespace
}  // namespace dapwc
