// Cluster splitting by the eigenvalue test: a cluster becomes unstable (and
// should split) when its Hessian H_αβ = δ_αβ M_α + (M_α M_β / T)(d_αβ − B_α − B_β
// − 2A_k)/C_k acquires a negative eigenvalue. λmin and λmax come from one Lanczos
// run per tested cluster; all tested clusters share each pass over the distances.
#pragma once

#include <vector>

#include "cluster_state.hpp"
#include "distance_rows.hpp"
#include "row_exchange.hpp"

namespace dapwc {

struct EigenSettings {
  int max_passes = 200;               // distance passes per test
  int max_dimension = 32;             // Krylov basis vectors kept before a restart
  double tolerance = 1e-4;            // λmin's residual bound, relative to the largest |eigenvalue|
  double lambda_max_tolerance = 1e-2; // the same for λmax, which only scales the test
  bool stop_when_decided = true;      // stop once λmin is clearly below or above the threshold
};

struct StabilityTest {
  std::vector<int> tested;                     // clusters with C_k above the size limit
  std::vector<double> lambda_max, lambda_min;  // per tested cluster
  std::vector<std::vector<double>> direction;  // unit eigenvector of λmin per tested cluster
  int passes = 0;                              // distance passes spent
};

// Tests every cluster with C_k > too_small_to_split; ε must be current.
// The λmin estimates are upper bounds that fall towards the true value; a
// cluster stops iterating once converged or once its estimate is clearly on one
// side of min_eig_test·λmax (the test needs no better estimate).
// Labels and directions are the same on every rank (all of it is computed
// redundantly from the gathered products, in point order).
StabilityTest test_stability(const DistanceRows& distances, RowExchange& exchange,
                             const ClusterState& state, double too_small_to_split,
                             double min_eig_test, const EigenSettings& settings);

// Index into test.tested of the cluster with the smallest λmin among those with
// λmin ≤ min_eig_test·λmax (min_eig_test is negative), or −1 when all are stable.
int choose_split(const StabilityTest& test, double min_eig_test);

// Duplicates `cluster` into a new last cluster and moves the two copies apart:
// ε ± amplitude·T·v/max|v|, then recomputes the memberships.
void split_cluster(ClusterState& state, int cluster, const std::vector<double>& direction,
                   double amplitude);

}  // namespace dapwc
