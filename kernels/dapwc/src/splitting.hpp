// Cluster splitting by the eigenvalue test: a cluster becomes unstable (and
// should split) when its Hessian H_αβ = δ_αβ M_α + (M_α M_β / T)(d_αβ − B_α − B_β
// − 2A_k)/C_k acquires a negative eigenvalue. The smallest eigenvalue comes from
// two power iterations: λmax of H, then the largest eigenvalue μ of λmax·I − H,
// λmin = λmax − μ. All tested clusters share each pass over the distances.
#pragma once

#include <vector>

#include "cluster_state.hpp"
#include "distance_rows.hpp"
#include "row_exchange.hpp"

namespace dapwc {

struct PowerIterationSettings {
  int max_iterations = 100;       // per power iteration (two per test)
  double tolerance = 1e-4;        // relative change of the λmin estimate
  double shift_tolerance = 1e-2;  // same for the dominant eigenvalue, which only sets the shift
};

struct StabilityTest {
  std::vector<int> tested;                     // clusters with C_k above the size limit
  std::vector<double> lambda_max, lambda_min;  // per tested cluster
  std::vector<std::vector<double>> direction;  // unit eigenvector of λmin per tested cluster
  int passes = 0;                              // distance passes spent
};

// Tests every cluster with C_k > too_small_to_split; ε must be current.
// The λmin estimates are upper bounds that fall towards the true value; a
// cluster stops iterating once converged or once its bound already shows
// λmin ≤ min_eig_test·λmax (an unstable cluster needs no better estimate).
StabilityTest test_stability(const DistanceRows& distances, RowExchange& exchange,
                             const ClusterState& state, double too_small_to_split,
                             double min_eig_test, const PowerIterationSettings& settings);

// Index into test.tested of the cluster with the smallest λmin among those with
// λmin ≤ min_eig_test·λmax (min_eig_test is negative), or −1 when all are stable.
int choose_split(const StabilityTest& test, double min_eig_test);

// Duplicates `cluster` into a new last cluster and moves the two copies apart:
// ε ± amplitude·T·v/max|v|, then recomputes the memberships.
void split_cluster(ClusterState& state, int cluster, const std::vector<double>& direction,
                   double amplitude);

}  // namespace dapwc
