// The DA-PWC state at one temperature and the E/M step that updates it
// (notation of shared/docs/algorithms.md). Every rank holds the whole state;
// only the O(N²K) distance pass is split by rows.
#pragma once

#include <cstdint>
#include <vector>

#include "distance_rows.hpp"
#include "row_exchange.hpp"

namespace dapwc {

struct ClusterState {
  std::int64_t n = 0;
  int clusters = 0;
  double temperature = 0.0;
  // N × clusters, point-major (entry α·clusters + k):
  std::vector<double> membership;  // M_α(k)
  std::vector<double> b;           // B_α(k) = Σ_β d_αβ M_β(k) / C_k
  std::vector<double> epsilon;     // ε_α(k) = B_α(k) + A_k
  // per cluster:
  std::vector<double> a;           // A_k = −½ Σ_α B_α(k) M_α(k) / C_k
  std::vector<double> size;        // C_k = Σ_α M_α(k)
  bool epsilon_current = false;    // false until ε has been computed for these clusters

  double m(std::int64_t point, int k) const { return membership[point * clusters + k]; }
};

// Every point in one cluster at temperature `temperature`.
ClusterState single_cluster(std::int64_t n, double temperature);

// One E/M step: B, A, ε from the current M, then M from ε at the state's
// temperature. Returns max_k Σ_α |Δε_α(k)| / N, or +inf when ε was not current.
double em_step(const DistanceRows& distances, RowExchange& exchange, ClusterState& state);

struct EmConvergence {
  int iterations = 0;
  double change = 0.0;
  bool converged = false;
};

// E/M steps until the ε change is at most `max_change` or `max_iterations` pass.
EmConvergence converge(const DistanceRows& distances, RowExchange& exchange, ClusterState& state,
                       double max_change, int max_iterations);

// M_α(k) = exp(−(ε_α(k) − min_k ε_α)/T) / Σ_k′ (…), for every point.
void memberships_from_epsilon(ClusterState& state);

// Σ_α M_α(k)(1 − M_α(k)) / C_k per cluster: 0 when memberships are hard.
std::vector<double> freezing_measures(const ClusterState& state);

// argmin_k ε_α(k) per point (0-based cluster index, lowest index on ties).
std::vector<int> nearest_clusters(const ClusterState& state);

// Clusters whose ε differ by at most `tolerance` at every point describe the
// same group of points (a split whose two halves fell back together): keeps the
// lowest-numbered copy of each such set. Returns how many clusters were dropped.
int merge_coincident_clusters(ClusterState& state, double tolerance);

// Keeps only the clusters listed (ascending, non-empty) and recomputes the
// memberships from their ε; ε must be current.
void keep_clusters(ClusterState& state, const std::vector<int>& kept);

}  // namespace dapwc
