#include "window_rows.hpp"

#include <algorithm>
#include <cmath>

#include "spidal/cpu.hpp"
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

namespace {

// What a thread's rows need, shared by the two compiled variants of the pass.
struct FillContext {
  RollingSums& sums;
  const WindowSymbols& symbols;
  damds::LocalRows& rows;
  bool change = false;     // DistanceKind::change
  bool weighted = false;
  bool update = true;      // the pass adds the staged days to each row first
  bool store = true;       // false: only the largest distance (`change`'s first pass)
  double stored_scale = 0; // distance → stored units
  std::int64_t first_position = 0;
  const double* mean = nullptr;
  const double* scaled_mean = nullptr;
  const double* inverse_spread = nullptr;
  const double* lengths = nullptr;
  const double* root_weights = nullptr;
  const double* in_window = nullptr;  // 0 or 1 per symbol
};

// One run of row i's pairs (columns column … column+count−1), from their pair sums.
template <bool kChange, bool kWeighted>
[[gnu::always_inline]] inline void fill_run(const FillContext& c, std::int64_t i, std::int64_t column,
                                            std::int64_t count, std::int64_t position, double& largest) {
  const double* sum_xy = c.sums.pair_sums(position);
  const double mean_i = c.mean[i], spread_i = c.inverse_spread[i], length_i = c.lengths[i];
  const double* scaled_mean = c.scaled_mean + column;
  const double* spread = c.inverse_spread + column;
  const double* lengths = c.lengths + column;
  const double* in_window = c.in_window + column;
  const auto distance = [&](std::int64_t t) __attribute__((always_inline)) {
    const double r = RollingSums::pearson(sum_xy[t], mean_i, scaled_mean[t], spread_i, spread[t]);
    if constexpr (kChange) {
      return std::sqrt(std::max(0.0, length_i * length_i + lengths[t] * lengths[t] - 2.0 * length_i * lengths[t] * r));
    } else {
      return (1.0 - r) / 2.0;
    }
  };
  if (!c.store) {
    double run_largest = largest;
#pragma omp simd reduction(max : run_largest)
    for (std::int64_t t = 0; t < count; ++t) run_largest = std::max(run_largest, distance(t) * in_window[t]);
    largest = run_largest;
    return;
  }
  std::int16_t* distances = c.rows.distances.data() + position;
  const double* root_weights = c.root_weights + column;
  const double row_weight = c.root_weights[i] * spidal::kMatrixScale;
#pragma omp simd
  for (std::int64_t t = 0; t < count; ++t) {
    // Stored units (value·32767, rounded half up: values are ≥ 0); a pair with a symbol
    // outside the window is missing (−1) with weight 0 (its root weight is 0).
    const double stored = std::min(distance(t) * c.stored_scale, spidal::kMatrixScale);
    distances[t] = static_cast<std::int16_t>((stored + 0.5) * in_window[t] - (1.0 - in_window[t]));
  }
  if constexpr (kWeighted) {
    std::int16_t* weights = c.rows.weights.data() + position;
#pragma omp simd
    for (std::int64_t t = 0; t < count; ++t) weights[t] = static_cast<std::int16_t>(row_weight * root_weights[t] + 0.5);
  }
}

// One thread's rows (an orphaned omp for): the staged days added to the row's pair sums,
// then, while they are in cache, the row's distances and weights. Always
// inlined, so each variant below compiles the whole nest for its instruction set.
template <bool kChange, bool kWeighted>
[[gnu::always_inline]] inline void fill_share(const FillContext& c, double& largest) {
  const damds::CircularHalves& halves = c.sums.halves();
  const spidal::RowBlock block = c.sums.block();
  const std::int64_t n = halves.n;
#pragma omp for schedule(dynamic, 16)
  for (std::int64_t i = block.begin; i < block.end; ++i) {
    if (c.update) c.sums.update_row(i);
    const std::int64_t start = halves.before(i) - c.first_position;
    const std::int64_t length = halves.length(i);
    if (!c.symbols.included[i]) {
      if (c.store) {
        std::fill_n(c.rows.distances.data() + start, length, std::int16_t{-1});
        if (c.weighted) std::fill_n(c.rows.weights.data() + start, length, std::int16_t{0});
      }
      continue;
    }
    // Row i's pairs are columns i+1 … i+length (mod n): at most two contiguous runs.
    const std::int64_t before_wrap = std::min(length, n - (i + 1));
    fill_run<kChange, kWeighted>(c, i, i + 1, before_wrap, start, largest);
    fill_run<kChange, kWeighted>(c, i, 0, length - before_wrap, start + before_wrap, largest);
  }
}

// The pass for the window's distance kind and weighting, each its own loop nest.
[[gnu::always_inline]] inline void fill_share_for(const FillContext& c, double& largest) {
  if (c.change) {
    c.weighted ? fill_share<true, true>(c, largest) : fill_share<true, false>(c, largest);
  } else {
    c.weighted ? fill_share<false, true>(c, largest) : fill_share<false, false>(c, largest);
  }
}

void fill_share_generic(const FillContext& c, double& largest) { fill_share_for(c, largest); }
// The build is for any x86-64 (the gateway's Slurm nodes may be older than the build
// machine); this variant is called only where the CPU has AVX2 + FMA.
[[gnu::target("avx2,fma")]] void fill_share_avx2(const FillContext& c, double& largest) {
  fill_share_for(c, largest);
}

// One pass over the block's rows on all threads; returns the largest distance seen
// (`change`'s first pass; 0 otherwise).
double fill_pass(const FillContext& c, spidal::Isa isa) {
  const auto share = isa == spidal::Isa::avx2 ? fill_share_avx2 : fill_share_generic;
  double out = 0.0;
#pragma omp parallel reduction(max : out)
  share(c, out);  // a thread's `out` starts at the lowest double
  return out;
}

}  // namespace

spidal::Isa fastest_fill_isa() {
  static const spidal::Isa fastest = spidal::cpu_supports(spidal::Isa::avx2) ? spidal::Isa::avx2 : spidal::Isa::generic;
  return fastest;
}

RowsSummary fill_window_rows(DistanceKind kind, RollingSums& sums, const Window& window, const WindowSymbols& symbols,
                             const std::vector<double>& weights, bool weighted, damds::LocalRows& rows, MPI_Comm comm,
                             spidal::Isa isa) {
  sums.stage(window);
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
  FillContext context{sums, symbols, rows};
  context.change = kind == DistanceKind::change;
  context.weighted = weighted;
  context.first_position = first_position;
  context.mean = terms.mean.data();
  context.scaled_mean = terms.scaled_mean.data();
  context.inverse_spread = terms.inverse_spread.data();
  context.lengths = lengths.data();
  context.root_weights = root_weights.data();
  context.in_window = in_window.data();

  RowsSummary out;
  double scale = 1.0;
  out.max_distance = 1.0;
  if (context.change) {
    // The window's largest distance normalises them all: one pass (with the sums' update)
    // for it, one to store.
    context.store = false;
    double largest = fill_pass(context, isa);
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, comm);
    out.max_distance = largest;
    scale = largest > 0.0 ? 1.0 / largest : 1.0;
    context.store = true;
    context.update = false;
  }
  context.stored_scale = scale * spidal::kMatrixScale;
  fill_pass(context, isa);
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
