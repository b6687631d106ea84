#include "centers.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>

namespace dapwc {
namespace {

double euclidean(const Point3& a, const Point3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

// Position of the smallest value; the first one on ties.
std::size_t argmin(const std::vector<double>& values) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i] < values[best]) best = i;
  return best;
}

}  // namespace

PointDistances distances_to_clusters(const DistanceRows& distances, RowExchange& exchange,
                                     const std::vector<int>& labels, int clusters) {
  const std::int64_t n = distances.n;
  std::vector<double> indicator(static_cast<std::size_t>(clusters) * n, 0.0);
  std::vector<std::int64_t> count(clusters, 0);
  for (std::int64_t p = 0; p < n; ++p) {
    indicator[(labels[p] - 1) * n + p] = 1.0;
    ++count[labels[p] - 1];
  }
  std::vector<double> local(exchange.local_block().rows() * clusters);
  multiply_rows(distances, indicator.data(), clusters, local.data());
  std::vector<double> sums(n * clusters);
  exchange.allgather(local.data(), sums.data(), clusters);
  PointDistances result{std::vector<double>(n), std::vector<double>(n, 0.0)};
  for (std::int64_t p = 0; p < n; ++p) {
    const int c = labels[p] - 1;
    if (count[c] < 2) continue;
    const double a = sums[p * clusters + c] / static_cast<double>(count[c] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (int other = 0; other < clusters; ++other)
      if (other != c && count[other] > 0) b = std::min(b, sums[p * clusters + other] / static_cast<double>(count[other]));
    result.own[p] = a;
    if (std::isfinite(b) && std::max(a, b) > 0.0) result.silhouette[p] = (b - a) / std::max(a, b);
  }
  return result;
}

std::vector<ClusterCenters> cluster_centers(const std::vector<int>& labels, int clusters,
                                            const PointDistances& distances,
                                            const std::vector<Point3>& points) {
  std::vector<std::vector<std::int64_t>> members(clusters);
  for (std::size_t p = 0; p < labels.size(); ++p) members[labels[p] - 1].push_back(static_cast<std::int64_t>(p));

  std::vector<ClusterCenters> centers(clusters);
  for (int c = 0; c < clusters; ++c) {
    const std::vector<std::int64_t>& m = members[c];
    ClusterCenters& center = centers[c];
    center.label = c + 1;
    center.count = static_cast<std::int64_t>(m.size());
    if (m.empty()) continue;

    std::vector<double> by_matrix(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
      by_matrix[i] = distances.own[m[i]];
      center.within_distance += by_matrix[i];
      center.silhouette += distances.silhouette[m[i]];
    }
    center.medoid = m[argmin(by_matrix)];
    center.within_distance /= static_cast<double>(m.size());
    center.silhouette /= static_cast<double>(m.size());
    if (points.empty()) continue;

    SpatialCenters& spatial = center.spatial.emplace();
    std::vector<double> by_space(m.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::size_t i = 0; i < m.size(); ++i)
      for (std::size_t j = 0; j < m.size(); ++j) by_space[i] += euclidean(points[m[i]], points[m[j]]);
    spatial.euclidean_medoid = m[argmin(by_space)];

    for (std::int64_t p : m)
      for (int d = 0; d < 3; ++d) spatial.centroid[d] += points[p][d];
    for (int d = 0; d < 3; ++d) spatial.centroid[d] /= static_cast<double>(m.size());
    std::vector<double> to_centroid(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) to_centroid[i] = euclidean(points[m[i]], spatial.centroid);
    spatial.nearest_to_centroid = m[argmin(to_centroid)];
  }
  return centers;
}

void write_centers(std::ostream& out, const std::vector<ClusterCenters>& centers) {
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (const ClusterCenters& c : centers) {
    out << c.label << ' ' << c.count << ' ' << c.medoid;
    if (const auto& s = c.spatial)
      out << ' ' << s->euclidean_medoid << ' ' << s->nearest_to_centroid << ' ' << s->centroid[0] << ' '
          << s->centroid[1] << ' ' << s->centroid[2];
    out << '\n';
  }
}

void write_silhouettes(std::ostream& out, const PointDistances& distances) {
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (std::size_t p = 0; p < distances.silhouette.size(); ++p) out << p << ' ' << distances.silhouette[p] << '\n';
}

}  // namespace dapwc
