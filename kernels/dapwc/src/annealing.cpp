#include "annealing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>

namespace dapwc {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool all_frozen(const ClusterState& state, double limit) {
  const std::vector<double> measures = freezing_measures(state);
  return std::all_of(measures.begin(), measures.end(), [&](double f) { return f < limit; });
}

// Runs the schedule; member functions are its phases.
class Annealer {
 public:
  Annealer(const DistanceRows& distances, RowExchange& exchange, const AnnealingSettings& settings,
           const AnnealingObserver& observer, AnnealingResult& result)
      : distances_(distances), exchange_(exchange), settings_(settings), observer_(observer),
        result_(result) {}

  void run(double mean_distance) {
    result_.initial_temperature = 2.0 * mean_distance;
    const double min_temperature = result_.initial_temperature * settings_.min_temperature_ratio;
    min_temperature_ = min_temperature;
    result_.state = single_cluster(distances_.n, result_.initial_temperature);
    ClusterState& state = result_.state;

    // Splitting phase: cool, testing for an unstable cluster; it ends at T_min, when
    // the clusters are frozen and stable, or when a cluster is unstable at MaxNcent
    // (then the cap, not the data, set the count, and the result says so).
    // Coincident copies are merged first, so that MaxNcent counts distinct clusters.
    int steps_since_test = settings_.wait_iterations;
    for (;;) {
      converge_here("anneal");
      if (result_.splits == 0 || steps_since_test >= settings_.wait_iterations) {
        steps_since_test = 0;
        merge_coincident();
        const bool at_cap = state.clusters >= settings_.max_clusters;
        if (try_split(!at_cap)) {
          if (!at_cap) continue;  // re-converge at the same temperature
          warn("capped at " + std::to_string(state.clusters) +
               " clusters: one was still splitting, so the data may hold more");
          break;
        }
        if (state.clusters > 1 && all_frozen(state, settings_.freezing_limit)) break;
      }
      if (state.temperature < min_temperature) break;
      state.temperature *= result_.splits == 0 ? settings_.initial_cooling : settings_.fine_cooling;
      ++steps_since_test;
      ++result_.temperature_steps;
    }

    // Final phase: no more splits, cool until frozen.
    final_phase_ = true;
    for (int step = 0; step < settings_.final_steps && !all_frozen(state, settings_.freezing_limit);
         ++step) {
      state.temperature *= settings_.final_cooling;
      ++result_.temperature_steps;
      final_steps_left_ = settings_.final_steps - step - 1;
      converge_here("final");
    }
    final_steps_left_ = 0;

    const int before_end = state.clusters;
    if (merge_coincident() > 0)
      warn(std::to_string(before_end - state.clusters) + " of " + std::to_string(before_end) +
           " clusters merged: they held the same points");
    remove_small_clusters();
    result_.frozen = all_frozen(state, settings_.freezing_limit);
    result_.labels = labels_by_first_point(nearest_clusters(state));
    result_.clusters = state.clusters;
  }

 private:
  void converge_here(const char* phase) {
    const auto start = Clock::now();
    const EmConvergence c = converge(distances_, exchange_, result_.state, settings_.epsi_max_change,
                                     settings_.max_em_iterations);
    result_.em_iterations += c.iterations;
    result_.em_seconds += seconds_since(start);
    report(phase);
  }

  // Tests the clusters' stability and, when `may_split`, splits the least stable unstable
  // one; returns whether one was unstable.
  bool try_split(bool may_split) {
    const auto start = Clock::now();
    ClusterState& state = result_.state;
    const StabilityTest test = test_stability(distances_, exchange_, state,
                                              settings_.too_small_to_split,
                                              settings_.min_eig_test, settings_.eigen);
    result_.eigen_passes += test.passes;
    const int chosen = choose_split(test, settings_.min_eig_test);
    const bool splits = chosen >= 0 && may_split;
    if (splits) {
      split_cluster(state, test.tested[chosen], test.direction[chosen], settings_.split_amplitude);
      ++result_.splits;
    }
    result_.split_seconds += seconds_since(start);
    if (splits) report("split");
    return chosen >= 0;
  }

  // Merges clusters that a split produced but that did not separate; returns how many went.
  int merge_coincident() {
    ClusterState& state = result_.state;
    const int dropped =
        merge_coincident_clusters(state, settings_.coincidence_tolerance * state.temperature);
    if (dropped == 0) return 0;
    result_.merged_clusters += dropped;
    converge_here("merge");
    return dropped;
  }

  // Drops clusters with fewer than min_cluster_points nearest points (never the
  // last one) and re-converges, until every cluster is large enough.
  void remove_small_clusters() {
    ClusterState& state = result_.state;
    const int before = state.clusters;
    for (;;) {
      std::vector<int> counts(state.clusters, 0);
      for (int j : nearest_clusters(state)) ++counts[j];
      std::vector<int> kept;
      for (int j = 0; j < state.clusters; ++j)
        if (counts[j] >= settings_.min_cluster_points) kept.push_back(j);
      if (kept.empty()) kept.push_back(static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin()));
      if (static_cast<int>(kept.size()) == state.clusters) break;
      result_.removed_clusters += state.clusters - static_cast<int>(kept.size());
      keep_clusters(state, kept);
      converge_here("remove");
    }
    if (state.clusters < before)
      warn(std::to_string(before - state.clusters) + " of " + std::to_string(before) + " clusters dropped: under " +
           std::to_string(settings_.min_cluster_points) + " points");
  }

  void warn(std::string message) { result_.warnings.push_back(std::move(message)); }

  // Temperature steps the schedule may still take from here (see AnnealingEvent::fraction).
  double steps_left() const {
    if (final_phase_) return final_steps_left_;
    const double t = result_.state.temperature;
    const double cooling = result_.splits == 0 ? settings_.initial_cooling : settings_.fine_cooling;
    const double to_min = t > min_temperature_ && min_temperature_ > 0.0
                              ? std::ceil(std::log(min_temperature_ / t) / std::log(cooling))
                              : 0.0;
    return to_min + settings_.final_steps;
  }

  void report(const char* phase) {
    if (!observer_) return;
    const double done = result_.temperature_steps;
    fraction_ = std::max(fraction_, std::min(1.0, done / std::max(1.0, done + steps_left())));
    observer_({phase, result_.temperature_steps, result_.em_iterations, result_.state.temperature,
               result_.state.clusters, fraction_});
  }

  const DistanceRows& distances_;
  RowExchange& exchange_;
  const AnnealingSettings& settings_;
  const AnnealingObserver& observer_;
  AnnealingResult& result_;
  double min_temperature_ = 0.0;
  bool final_phase_ = false;
  int final_steps_left_ = 0;
  double fraction_ = 0.0;
};

}  // namespace

AnnealingResult anneal(const DistanceRows& distances, RowExchange& exchange, double mean_distance,
                       const AnnealingSettings& settings, const AnnealingObserver& observer) {
  AnnealingResult result;
  Annealer(distances, exchange, settings, observer, result).run(mean_distance);
  return result;
}

int default_min_cluster_points(std::int64_t n) {
  return static_cast<int>(std::clamp<std::int64_t>(n / 40, 2, 25));
}

std::vector<int> labels_by_first_point(const std::vector<int>& cluster_of_point) {
  std::map<int, int> label_of_cluster;
  std::vector<int> labels(cluster_of_point.size());
  for (std::size_t p = 0; p < cluster_of_point.size(); ++p) {
    auto [it, inserted] = label_of_cluster.try_emplace(cluster_of_point[p],
                                                        static_cast<int>(label_of_cluster.size()) + 1);
    labels[p] = it->second;
  }
  return labels;
}

}  // namespace dapwc
