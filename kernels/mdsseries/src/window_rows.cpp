#include "window_rows.hpp"

#include <algorithm>
#include <cmath>

#include "spidal/matrix.hpp"

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
  // Per-symbol factors, so a pair costs a few multiply-adds (no division, and a square
  // root only for `change`): r from the sums' terms, √(wᵢwⱼ) = √wᵢ·√wⱼ, and 0/1 for
  // whether the symbol is in the window.
  const RollingSums::Terms terms = sums.terms();
  std::vector<double> lengths(n), root_weights(n), in_window(n);
  for (std::int64_t s = 0; s < n; ++s) {
    lengths[s] = change_length(symbols.log_change[s]);
    root_weights[s] = std::sqrt(weights[s]);
    in_window[s] = symbols.included[s] ? 1.0 : 0.0;
  }
  const bool change = kind == DistanceKind::change;

  // Row i's pairs are columns i+1 … i+length (mod n): at most two contiguous runs;
  // visit(i, first column, count, position of the first pair) for each.
  const auto for_each_run = [&](std::int64_t i, auto&& visit) {
    const std::int64_t start = halves.before(i) - first_position;
    const std::int64_t length = halves.length(i);
    const std::int64_t before_wrap = std::min(length, n - (i + 1));
    visit(i + 1, before_wrap, start);
    visit(std::int64_t{0}, length - before_wrap, start + before_wrap);
  };

  RowsSummary out;
  double scale = 1.0;
  if (change) {
    // The window's largest distance normalises them all: one pass for it, one to store.
    double largest = 0.0;
#pragma omp parallel for schedule(dynamic, 16) reduction(max : largest)
    for (std::int64_t i = block.begin; i < block.end; ++i) {
      if (!symbols.included[i]) continue;
      for_each_run(i, [&](std::int64_t column, std::int64_t count, std::int64_t position) {
        const double* sum_xy = sums.pair_sums(position);
        double row_largest = 0.0;
#pragma omp simd reduction(max : row_largest)
        for (std::int64_t t = 0; t < count; ++t) {
          const std::int64_t j = column + t;
          const double r = RollingSums::pearson(sum_xy[t], terms.mean[i], terms.scaled_mean[j],
                                                terms.inverse_spread[i], terms.inverse_spread[j]);
          const double distance = pair_distance(kind, r, lengths[i], lengths[j]) * in_window[j];
          row_largest = std::max(row_largest, distance);
        }
        largest = std::max(largest, row_largest);
      });
    }
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, comm);
    out.max_distance = largest;
    scale = largest > 0.0 ? 1.0 / largest : 1.0;
  } else {
    out.max_distance = 1.0;
  }

  // Stored units (value·32767, rounded half up: values are ≥ 0); a pair with a symbol
  // outside the window is missing (−1) with weight 0.
  const double stored_scale = scale * spidal::kMatrixScale;
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = block.begin; i < block.end; ++i) {
    for_each_run(i, [&](std::int64_t column, std::int64_t count, std::int64_t position) {
      std::int16_t* distances = rows.distances.data() + position;
      std::int16_t* pair_weights = weighted ? rows.weights.data() + position : nullptr;
      if (!symbols.included[i]) {
        std::fill_n(distances, count, std::int16_t{-1});
        if (weighted) std::fill_n(pair_weights, count, std::int16_t{0});
        return;
      }
      const double* sum_xy = sums.pair_sums(position);
#pragma omp simd
      for (std::int64_t t = 0; t < count; ++t) {
        const std::int64_t j = column + t;
        const double r = RollingSums::pearson(sum_xy[t], terms.mean[i], terms.scaled_mean[j],
                                              terms.inverse_spread[i], terms.inverse_spread[j]);
        const double stored = std::min(pair_distance(kind, r, lengths[i], lengths[j]) * stored_scale,
                                       spidal::kMatrixScale);
        // in_window is 0 or 1: −1 outside, the rounded distance inside.
        distances[t] = static_cast<std::int16_t>((stored + 0.5) * in_window[j] - (1.0 - in_window[j]));
      }
      if (weighted) {
        const double row_weight = root_weights[i] * spidal::kMatrixScale;
#pragma omp simd
        for (std::int64_t t = 0; t < count; ++t) {
          pair_weights[t] = static_cast<std::int16_t>(row_weight * root_weights[column + t] + 0.5);
        }
      }
    });
  }
  damds::prepare_local_rows(rows, comm, "window");
  // The weights are products √wᵢ·√wⱼ (0 outside the window): damds solves each Guttman
  // update in closed form instead of by conjugate gradients.
  if (weighted) {
    rows.weight_factors = std::move(root_weights);
  } else {
    rows.weight_factors.clear();
  }
  return out;
}

}  // namespace mdsseries
