#include "cluster_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dapwc {
namespace {

// Keeps B finite for a cluster that has lost (almost) all its weight.
constexpr double kSmallestClusterSize = 1e-30;
// Below this many memberships the update is too short to pay for waking the threads.
constexpr std::int64_t kParallelMemberships = std::int64_t{1} << 15;

}  // namespace

ClusterState single_cluster(std::int64_t n, double temperature) {
  ClusterState state;
  state.n = n;
  state.clusters = 1;
  state.temperature = temperature;
  state.membership.assign(n, 1.0);
  state.b.assign(n, 0.0);
  state.epsilon.assign(n, 0.0);
  state.a.assign(1, 0.0);
  state.size.assign(1, static_cast<double>(n));
  return state;
}

double em_step(const DistanceRows& distances, RowExchange& exchange, ClusterState& state) {
  const std::int64_t n = state.n;
  const int k = state.clusters;

  // The distance pass wants each cluster's memberships as one contiguous vector.
  std::vector<double> columns(static_cast<std::size_t>(k) * n);
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) columns[j * n + p] = state.m(p, j);
  std::vector<double> local(exchange.local_block().rows() * k);
  multiply_rows(distances, columns.data(), k, local.data());
  std::vector<double> weighted_sums(n * k);
  exchange.allgather(local.data(), weighted_sums.data(), k);

  // Global sums in point order, identically on every rank.
  std::vector<double> size(k, 0.0);
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) size[j] += state.m(p, j);
  for (double& c : size) c = std::max(c, kSmallestClusterSize);

  std::vector<double> a(k, 0.0);
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) {
      const std::int64_t e = p * k + j;
      state.b[e] = weighted_sums[e] / size[j];
      a[j] += state.b[e] * state.membership[e];
    }
  for (int j = 0; j < k; ++j) a[j] = -0.5 * a[j] / size[j];

  std::vector<double> change(k, 0.0);
  for (std::int64_t p = 0; p < n; ++p)
    for (int j = 0; j < k; ++j) {
      const std::int64_t e = p * k + j;
      const double updated = state.b[e] + a[j];
      change[j] += std::abs(updated - state.epsilon[e]);
      state.epsilon[e] = updated;
    }
  const double result = state.epsilon_current
                            ? *std::max_element(change.begin(), change.end()) / static_cast<double>(n)
                            : std::numeric_limits<double>::infinity();
  state.size = std::move(size);
  state.a = std::move(a);
  state.epsilon_current = true;
  memberships_from_epsilon(state);
  return result;
}

EmConvergence converge(const DistanceRows& distances, RowExchange& exchange, ClusterState& state,
                       double max_change, int max_iterations) {
  EmConvergence result;
  while (result.iterations < max_iterations) {
    result.change = em_step(distances, exchange, state);
    ++result.iterations;
    if (result.change <= max_change) {
      result.converged = true;
      break;
    }
  }
  return result;
}

void memberships_from_epsilon(ClusterState& state) {
  const int k = state.clusters;
  const double temperature = state.temperature;
#pragma omp parallel for schedule(static) if (state.n * k >= kParallelMemberships)
  for (std::int64_t p = 0; p < state.n; ++p) {
    const double* eps = state.epsilon.data() + p * k;
    double* m = state.membership.data() + p * k;
    const double lowest = *std::min_element(eps, eps + k);
    double total = 0.0;
    for (int j = 0; j < k; ++j) {
      m[j] = std::exp(-(eps[j] - lowest) / temperature);
      total += m[j];
    }
    for (int j = 0; j < k; ++j) m[j] /= total;
  }
}

std::vector<double> freezing_measures(const ClusterState& state) {
  std::vector<double> spread(state.clusters, 0.0);
  std::vector<double> size(state.clusters, 0.0);
  for (std::int64_t p = 0; p < state.n; ++p)
    for (int j = 0; j < state.clusters; ++j) {
      const double m = state.m(p, j);
      spread[j] += m * (1.0 - m);
      size[j] += m;
    }
  for (int j = 0; j < state.clusters; ++j) spread[j] /= std::max(size[j], kSmallestClusterSize);
  return spread;
}

std::vector<int> nearest_clusters(const ClusterState& state) {
  std::vector<int> nearest(state.n);
  for (std::int64_t p = 0; p < state.n; ++p) {
    const double* eps = state.epsilon.data() + p * state.clusters;
    nearest[p] = static_cast<int>(std::min_element(eps, eps + state.clusters) - eps);
  }
  return nearest;
}

int merge_coincident_clusters(ClusterState& state, double tolerance) {
  const int k = state.clusters;
  auto coincide = [&](int i, int j) {
    for (std::int64_t p = 0; p < state.n; ++p)
      if (std::abs(state.epsilon[p * k + i] - state.epsilon[p * k + j]) > tolerance) return false;
    return true;
  };
  std::vector<int> kept;
  for (int j = 0; j < k; ++j)
    if (std::none_of(kept.begin(), kept.end(), [&](int i) { return coincide(i, j); })) kept.push_back(j);
  const int dropped = k - static_cast<int>(kept.size());
  if (dropped > 0) keep_clusters(state, kept);
  return dropped;
}

void keep_clusters(ClusterState& state, const std::vector<int>& kept) {
  if (kept.empty() || !state.epsilon_current)
    throw std::logic_error("keep_clusters needs current epsilon and at least one cluster");
  const int old_k = state.clusters;
  const int new_k = static_cast<int>(kept.size());
  auto select = [&](const std::vector<double>& table) {
    std::vector<double> out(state.n * new_k);
    for (std::int64_t p = 0; p < state.n; ++p)
      for (int j = 0; j < new_k; ++j) out[p * new_k + j] = table[p * old_k + kept[j]];
    return out;
  };
  state.b = select(state.b);
  state.epsilon = select(state.epsilon);
  std::vector<double> a, size;
  for (int j : kept) {
    a.push_back(state.a[j]);
    size.push_back(state.size[j]);
  }
  state.a = std::move(a);
  state.size = std::move(size);
  state.clusters = new_k;
  state.membership.assign(state.n * new_k, 0.0);
  memberships_from_epsilon(state);
}

}  // namespace dapwc
