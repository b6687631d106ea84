// Cluster centres, as SPIDAL's separate centre program computed them.
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
  std::optional<SpatialCenters> spatial;
};

// Per point: mean distance to the other members of its cluster (0 for a
// cluster of one). One pass over this rank's rows, then gathered.
std::vector<double> mean_distance_to_own_cluster(const DistanceRows& distances, RowExchange& exchange,
                                                 const std::vector<int>& labels, int clusters);

// Centres of clusters 1..clusters (the spatial ones only when `points` is not
// empty); ties go to the lowest point index.
std::vector<ClusterCenters> cluster_centers(const std::vector<int>& labels, int clusters,
                                            const std::vector<double>& mean_distance,
                                            const std::vector<Point3>& points);

// One line per cluster: `label count medoid`, followed by
// `euclidean_medoid nearest_to_centroid cx cy cz` when the spatial centres are known.
void write_centers(std::ostream& out, const std::vector<ClusterCenters>& centers);

}  // namespace dapwc
