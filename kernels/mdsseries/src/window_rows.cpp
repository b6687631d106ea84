#include "window_rows.hpp"

#include <algorithm>
#include <cmath>

namespace mdsseries {

double change_length(double log_change) {
  const double clamped = std::clamp(log_change, -std::log(10.0), std::log(10.0));
  return 10.0 * std::fabs(clamped);
}

double pair_distance(DistanceKind kind, double r, double length_i, double length_j) {
  if (kind == DistanceKind::correlation) return (1.0 - r) / 2.0;
  const double squared = length_i * length_i + length_j * length_j - 2.0 * length_i * length_j * r;
  return std::sqrt(std::max(0.0, squared));
}

std::vector<double> symbol_weights(WeightKind kind, const WindowSymbols& symbols) {
  const std::size_t n = symbols.included.size();
  std::vector<double> weights(n, 0.0);
  double largest = 0.0;
  for (std::size_t s = 0; s < n; ++s) {
    if (symbols.included[s]) largest = std::max(largest, symbols.traded_value[s]);
  }
  for (std::size_t s = 0; s < n; ++s) {
    if (!symbols.included[s]) continue;
    if (kind == WeightKind::none || !(largest > 0.0)) {
      weights[s] = 1.0;
    } else {
      weights[s] = std::max(std::pow(symbols.traded_value[s] / largest, 0.25), 0.05);
    }
  }
  return weights;
}

RowsSummary fill_window_rows(DistanceKind kind, const RollingSums& sums, const WindowSymbols& symbols,
                            const std::vector<double>& weights, bool weighted, damds::LocalRows& rows, MPI_Comm comm) {
  const damds::CircularHalves& halves = sums.halves();
  const spidal::RowBlock block = sums.block();
  const std::int64_t n = halves.n;
  rows.n = n;
  rows.block = block;
  rows.halves = halves;
  const std::int64_t first_position = halves.before(block.begin);
  const std::size_t pairs = static_cast<std::size_t>(halves.before(block.end) - first_position);
  rows.distances.resize(pairs);
  if (weighted) {
    rows.weights.resize(pairs);
  } else {
    rows.weights.clear();
  }
  std::vector<double> lengths(n, 0.0);
  for (std::int64_t s = 0; s < n; ++s) lengths[s] = change_length(symbols.log_change[s]);

  // Visits every kept pair of the block's rows with both symbols in the window.
  const auto for_each_pair = [&](auto&& visit) {
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t i = block.begin; i < block.end; ++i) {
      const std::int64_t start = halves.before(i) - first_position;
      for (std::int64_t t = 0; t < halves.length(i); ++t) {
        std::int64_t j = i + 1 + t;
        if (j >= n) j -= n;
        visit(i, j, start + t, symbols.included[i] && symbols.included[j]);
      }
    }
  };

  RowsSummary out;
  double scale = 1.0;
  if (kind == DistanceKind::change) {
    // The window's largest distance normalises them all: one pass for it, one to store.
    double largest = 0.0;
#pragma omp parallel for schedule(dynamic, 16) reduction(max : largest)
    for (std::int64_t i = block.begin; i < block.end; ++i) {
      if (!symbols.included[i]) continue;
      const std::int64_t start = halves.before(i) - first_position;
      for (std::int64_t t = 0; t < halves.length(i); ++t) {
        std::int64_t j = i + 1 + t;
        if (j >= n) j -= n;
        if (!symbols.included[j]) continue;
        largest = std::max(largest, pair_distance(kind, sums.correlation(i, j, start + t), lengths[i], lengths[j]));
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, comm);
    out.max_distance = largest;
    scale = largest > 0.0 ? 1.0 / largest : 1.0;
  } else {
    out.max_distance = 1.0;
  }

  for_each_pair([&](std::int64_t i, std::int64_t j, std::int64_t k, bool counts) {
    if (!counts) {
      rows.distances[k] = -1;
      if (weighted) rows.weights[k] = 0;
      return;
    }
    const double distance = pair_distance(kind, sums.correlation(i, j, k), lengths[i], lengths[j]) * scale;
    rows.distances[k] = damds::stored_value(std::min(distance, 1.0));
    if (weighted) rows.weights[k] = damds::stored_value(std::sqrt(weights[i] * weights[j]));
  });
  damds::prepare_local_rows(rows, comm, "window");
  return out;
}

}  // namespace mdsseries
