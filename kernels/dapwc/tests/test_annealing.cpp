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

Clustered cluster_blobs(int clusters, int per_cluster, int max_clusters, unsigned seed) {
  Clustered c{testing::gaussian_blobs(clusters, per_cluster, 4.0, 0.3, seed), {}};
  SingleRankExchange exchange(c.data.n);
  DistanceRows rows{c.data.n, {0, c.data.n}, c.data.stored};
  const MatrixSummary summary = prepare_distances(rows, exchange);
  AnnealingSettings settings;
  settings.max_clusters = max_clusters;
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

TEST(Annealing, StopsAtMaxNcent) {
  const Clustered c = cluster_blobs(5, 40, 3, 3);
  EXPECT_EQ(c.result.clusters, 3);
  EXPECT_EQ(testing::count_labels(c.result.labels), 3);
}

TEST(Annealing, OneClusterWhenMaxNcentIsOne) {
  const Clustered c = cluster_blobs(3, 30, 1, 2);
  EXPECT_EQ(c.result.clusters, 1);
  EXPECT_EQ(c.result.splits, 0);
  for (int label : c.result.labels) EXPECT_EQ(label, 1);
}

TEST(Labels, NumberedByFirstPoint) {
  EXPECT_EQ(labels_by_first_point({4, 4, 0, 2, 0, 4}), (std::vector<int>{1, 1, 2, 3, 2, 1}));
}

}  // namespace
}  // namespace dapwc
