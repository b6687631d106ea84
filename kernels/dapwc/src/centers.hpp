// Cluster centres, as SPIDAL's separate centre program computed them, and how well each
// cluster stands apart (silhouettes).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "distance_rows.hpp"
#include "points3d.hpp"
#include "row_exchange.hpp"

namespace dapwc {

// Centres in the 3D layout, when one is given.
struct SpatialCenters {
  std::int64_t euclidean_medoid = 0;     // smallest mean 3D Euclidean distance to the other members
  std::int64_t nearest_to_centroid = 0;  // nearest (3D) to the members' centre of gravity
  Point3 centroid{};                     // the centre of gravity
};

struct ClusterCenters {
  int label = 0;                      // 1..K
  std::int64_t count = 0;             // points with this label
  std::int64_t medoid = 0;            // SPIDAL's centre: smallest mean distance (input matrix) to the other members
  double within_distance = 0.0;       // mean distance between two members (0 alone)
  double silhouette = 0.0;            // mean of the members' silhouettes
  std::optional<SpatialCenters> spatial;
};

// Per point, from one pass over this rank's rows (then gathered): the mean distance to
// the other members of its cluster (0 alone), and its silhouette (Rousseeuw 1987):
// (b − a) / max(a, b), with a that mean and b the mean distance to the members of the
// nearest other cluster; 0 in a cluster of one, or when there is one cluster.
struct PointDistances {
  std::vector<double> own;
  std::vector<double> silhouette;
};
PointDistances distances_to_clusters(const DistanceRows& distances, RowExchange& exchange,
                                     const std::vector<int>& labels, int clusters);

// Centres of clusters 1..clusters (the spatial ones only when `points` is not
// empty), with their mean distances and silhouettes; ties go to the lowest point index.
std::vector<ClusterCenters> cluster_centers(const std::vector<int>& labels, int clusters,
                                            const PointDistances& distances,
                                            const std::vector<Point3>& points);

// One line per cluster: `label count medoid`, followed by
// `euclidean_medoid nearest_to_centroid cx cy cz` when the spatial centres are known.
void write_centers(std::ostream& out, const std::vector<ClusterCenters>& centers);

// One line per point: `index silhouette`.
void write_silhouettes(std::ostream& out, const PointDistances& distances);

}  // namespace dapwc
