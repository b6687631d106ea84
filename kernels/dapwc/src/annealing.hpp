// The DA-PWC temperature schedule: start with one cluster at T₀ = 2·mean distance,
// converge the E/M step at each temperature, test for splits, cool, freeze, drop
// small clusters, label; say why the result has fewer clusters than asked for.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster_state.hpp"
#include "distance_rows.hpp"
#include "row_exchange.hpp"
#include "splitting.hpp"

namespace dapwc {

// Defaults as in SPIDAL's DA-PWC (names of its config keys in comments).
struct AnnealingSettings {
  int max_clusters = 8;               // MaxNcent
  double epsi_max_change = 0.001;     // EpsiMaxChange
  int max_em_iterations = 1000;       // ConvergenceLoopLimit, per temperature
  double initial_cooling = 0.9;       // until the first split
  double fine_cooling = 0.99;         // after the first split
  double final_cooling = 0.98;        // in the final (freezing) phase
  double min_temperature_ratio = 1e-5;  // T_min = T₀ · ratio
  double too_small_to_split = 5.0;    // ToosmalltoSplit (C_k)
  double min_eig_test = -0.01;        // MinEigTest
  int wait_iterations = 10;           // Waititerations, temperature steps between split tests
  double freezing_limit = 0.002;      // FreezingLimit
  int final_steps = 200;              // IterationAtEnd, temperature steps of the final phase
  int min_cluster_points = 25;        // clusters with fewer points are dropped at the end
                                      // (the program's default follows N: default_min_cluster_points)
  double split_amplitude = 0.5;       // ε perturbation of a split, in units of T
  double coincidence_tolerance = 0.05;  // clusters with ε this close (units of T) are merged
  EigenSettings eigen;
};

// One line of progress: a converged temperature step, a split or a removal.
struct AnnealingEvent {
  std::string phase;          // "anneal", "split", "final", "merge", "remove"
  int step = 0;               // temperature steps so far
  std::int64_t em_iterations = 0;  // E/M steps so far
  double temperature = 0.0;
  int clusters = 0;
  // Share of the schedule done, for a progress bar: steps so far of steps so far plus those the
  // schedule may still take (cooling to T_min at the current rate, then the final phase). An
  // upper bound on the steps left, since the splitting phase may end early (MaxNcent reached,
  // frozen), so it never goes back: it jumps ahead instead.
  double fraction = 0.0;
};
using AnnealingObserver = std::function<void(const AnnealingEvent&)>;

struct AnnealingResult {
  ClusterState state;
  std::vector<int> labels;    // per point, 1..clusters, numbered in order of each cluster's first point
  int clusters = 0;
  double initial_temperature = 0.0;
  int temperature_steps = 0;
  std::int64_t em_iterations = 0;
  std::int64_t eigen_passes = 0;   // distance passes spent in split tests (Lanczos)
  int splits = 0;
  int merged_clusters = 0;         // coincident copies merged before split tests
  int removed_clusters = 0;
  bool frozen = false;             // every final cluster below the freezing limit
  // Why the count is not the data's own: fewer clusters than the schedule reached, e.g.
  // "3 of 8 clusters dropped: under 5 points", or MaxNcent ended the splitting
  // ("capped at 8 clusters: ..."); empty otherwise.
  std::vector<std::string> warnings;
  double em_seconds = 0.0;
  double split_seconds = 0.0;
};

AnnealingResult anneal(const DistanceRows& distances, RowExchange& exchange, double mean_distance,
                       const AnnealingSettings& settings, const AnnealingObserver& observer);

// SPIDAL dropped clusters under 25 points whatever N; that removes every cluster
// of a few hundred points (families of 12-60 reads). The default is N/40 clamped
// to 2..25: 25 from N = 1000 up, as SPIDAL, and still below a fortieth of N.
int default_min_cluster_points(std::int64_t n);

// Renumbers 0-based cluster indices to 1..K in order of each cluster's first point.
std::vector<int> labels_by_first_point(const std::vector<int>& cluster_of_point);

}  // namespace dapwc
