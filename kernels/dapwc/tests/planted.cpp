#include "planted.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

namespace dapwc::testing {

PlantedClusters gaussian_blobs(int clusters, int per_cluster, double separation, double sigma,
                               unsigned seed) {
  return gaussian_blobs(std::vector<int>(clusters, per_cluster), separation, sigma, seed);
}

PlantedClusters gaussian_blobs(const std::vector<int>& sizes, double separation, double sigma, unsigned seed) {
  const int clusters = static_cast<int>(sizes.size());
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> box(0.0, separation * clusters);
  std::normal_distribution<double> noise(0.0, sigma);

  std::vector<std::array<double, 3>> centres;
  while (static_cast<int>(centres.size()) < clusters) {
    const std::array<double, 3> c{box(random), box(random), box(random)};
    const bool far = std::all_of(centres.begin(), centres.end(), [&](const auto& o) {
      return std::hypot(c[0] - o[0], c[1] - o[1], c[2] - o[2]) >= separation;
    });
    if (far) centres.push_back(c);
  }

  PlantedClusters data;
  data.n = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  std::vector<std::int64_t> order(data.n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), random);
  data.points.resize(data.n);
  data.truth.resize(data.n);
  int cluster = 0;
  std::int64_t cluster_end = sizes[0];
  for (std::int64_t i = 0; i < data.n; ++i) {
    while (i >= cluster_end) cluster_end += sizes[++cluster];
    const std::int64_t p = order[i];
    data.truth[p] = cluster + 1;
    for (int d = 0; d < 3; ++d) data.points[p][d] = centres[cluster][d] + noise(random);
  }

  std::vector<double> distance(data.n * data.n);
  double largest = 0.0;
  for (std::int64_t i = 0; i < data.n; ++i)
    for (std::int64_t j = 0; j < data.n; ++j) {
      const auto& a = data.points[i];
      const auto& b = data.points[j];
      distance[i * data.n + j] = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      largest = std::max(largest, distance[i * data.n + j]);
    }
  data.stored.resize(distance.size());
  for (std::size_t e = 0; e < distance.size(); ++e)
    data.stored[e] = static_cast<std::int16_t>(std::lround(distance[e] / largest * 32767.0));
  return data;
}

double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("label vectors differ in length");
  std::map<std::pair<int, int>, double> joint;
  std::map<int, double> rows, cols;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ++joint[{a[i], b[i]}];
    ++rows[a[i]];
    ++cols[b[i]];
  }
  auto pairs = [](double x) { return x * (x - 1.0) / 2.0; };
  double index = 0.0, sum_rows = 0.0, sum_cols = 0.0;
  for (const auto& [key, count] : joint) index += pairs(count);
  for (const auto& [key, count] : rows) sum_rows += pairs(count);
  for (const auto& [key, count] : cols) sum_cols += pairs(count);
  const double expected = sum_rows * sum_cols / pairs(static_cast<double>(a.size()));
  const double maximum = 0.5 * (sum_rows + sum_cols);
  if (maximum == expected) return 1.0;  // both trivial partitions
  return (index - expected) / (maximum - expected);
}

int count_labels(const std::vector<int>& labels) {
  return static_cast<int>(std::set<int>(labels.begin(), labels.end()).size());
}

}  // namespace dapwc::testing
