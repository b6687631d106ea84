// A window's distances and weights as damds's solver takes them: the rank's rows of
// circular halves over all symbols, pairs with a symbol left out of the window
// missing (weight 0), so the layout and the row blocks stay the same in every window.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "series_config.hpp"
#include "spidal/cpu.hpp"
#include "local_rows.hpp"
#include "market.hpp"
#include "rolling.hpp"

namespace mdsseries {

// SPIDAL's per-stock length L = 10·|ln(p_last / p_first)|, the ratio clamped to [0.1, 10].
double change_length(double log_change);

// A pair's distance before any normalisation: correlation (1 − r)/2, or change
// √(Lᵢ² + Lⱼ² − 2LᵢLⱼr) (to be divided by the window's largest).
double pair_distance(DistanceKind kind, double r, double length_i, double length_j);

// Per-symbol weights (0 for symbols left out). tradedValue, after SPIDAL's market-cap
// weights with traded value in place of the cap: wᵢ = max((vᵢ / v_max)^¼, 0.05), vᵢ
// the symbol's mean daily price × volume in the window and v_max the largest over the
// window's symbols; a pair weighs √(wᵢwⱼ), in [0.05, 1]. none: 1.
std::vector<double> symbol_weights(WeightKind kind, const WindowSymbols& symbols);

struct RowsSummary {
  double max_distance = 0.0;  // the normalisation of `change` (1 for correlation)
};

// The widest variant of fill_window_rows's pass this CPU runs (avx2 or generic).
spidal::Isa fastest_fill_isa();

// Moves `sums` to `window` and fills `rows` (distances as value·32767 in [0, 1], weights)
// in one pass over the rank's rows: each row's pair sums take the window's changed days
// and give the row's distances while in cache (`change` takes a pass for the largest
// distance first). Then runs damds::prepare_local_rows. Collective. `isa`: the compiled
// variant of the pass (tests compare them).
RowsSummary fill_window_rows(DistanceKind kind, RollingSums& sums, const Window& window, const WindowSymbols& symbols,
                             const std::vector<double>& weights, bool weighted, damds::LocalRows& rows, MPI_Comm comm,
                             spidal::Isa isa = fastest_fill_isa());

}  // namespace mdsseries
