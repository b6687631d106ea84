// Test data with known answers: Gaussian blobs in 3D turned into a SPIDAL int16
// distance matrix, and the adjusted Rand index to score a clustering against them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dapwc::testing {

struct PlantedClusters {
  std::int64_t n = 0;
  std::vector<std::array<double, 3>> points;
  std::vector<int> truth;             // 1..clusters per point
  std::vector<std::int16_t> stored;   // N×N, distances / max distance × 32767
};

// `clusters` blobs of `per_cluster` points (standard deviation `sigma`) whose
// centres are at least `separation` apart; points are shuffled so that clusters
// are interleaved in index order.
PlantedClusters gaussian_blobs(int clusters, int per_cluster, double separation, double sigma,
                               unsigned seed);

// The same with sizes[c] points in blob c (equal sizes give the data above).
PlantedClusters gaussian_blobs(const std::vector<int>& sizes, double separation, double sigma, unsigned seed);

double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b);

int count_labels(const std::vector<int>& labels);

}  // namespace dapwc::testing
