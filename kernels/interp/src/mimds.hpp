// MI-MDS (Bae, Qiu and Fox, "Dimension reduction and visualization of large
// high-dimensional data via interpolation", HPDC 2010): an out-of-sample point is placed
// from its distances to its k nearest in-sample points only, by iterative majorization
// of the stress against those k, and takes the cluster most of them have.
#pragma once

#include <cstdint>
#include <vector>

namespace interp {

struct Neighbour {
  std::int64_t index = 0;  // in-sample point
  double distance = 0.0;   // δ, the matrix value
};

// The k in-sample points nearest by `row` (n stored int16 distances, negative =
// missing and skipped), nearest first, ties to the lower index; fewer when fewer are
// not missing. `scratch` is reused between calls.
void nearest_neighbours(const std::int16_t* row, std::int64_t n, int k, std::vector<Neighbour>& scratch,
                        std::vector<Neighbour>& out);

struct PlaceOptions {
  int dim = 3;
  int max_iterations = 20;
  // Stops when the stress falls by less than this fraction of itself in one update.
  double threshold = 1e-6;
};

struct Placement {
  double stress = 0.0;         // Σ (δ_i − d_i)² over the neighbours at the final position
  double sum_squares = 0.0;    // Σ δ_i², to normalise the stress
  int iterations = 0;          // majorization updates done
};

// The point minimising Σ (δ_i − |x − p_i|)² over the neighbours, `points` the in-sample
// coordinates (n × dim). Starts at the neighbours' centroid; each update is
// x ← p̄ + (1/k) Σ δ_i (x − p_i)/|x − p_i| (SMACOF's Guttman transform with one free point,
// a term with |x − p_i| = 0 left out), which never raises the stress. Writes dim values.
Placement place(const std::vector<double>& points, const std::vector<Neighbour>& neighbours,
                const PlaceOptions& options, double* out);

// The label most of the neighbours have; a tie goes to the tied label whose nearest
// member is nearest (neighbours come nearest first). `labels` by in-sample index.
int majority_label(const std::vector<Neighbour>& neighbours, const std::vector<int>& labels);

// The silhouette of an out-of-sample point in cluster `label`, against the in-sample clusters
// (Rousseeuw 1987, as dapwc gives its points'): (b − a) / max(a, b), with a the mean of `row`'s
// distances to the in-sample members of `label` and b the least such mean over the other
// clusters; missing distances skipped. 0 when a or b has no distance. `labels` by in-sample
// index, each in 1..clusters; `sums` and `counts` are scratch.
double silhouette(const std::int16_t* row, std::int64_t n, int label, const std::vector<int>& labels, int clusters,
                  std::vector<double>& sums, std::vector<std::int64_t>& counts);

}  // namespace interp
