// The windows loop: per window the rolling sums move on, the window's distances and
// weights fill damds's rows, DA-MDS runs (annealed in the first window, warm-started
// from the previous frame after that) and the frame is aligned to the previous one.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "series_config.hpp"
#include "frames_output.hpp"
#include "market.hpp"
#include "spidal/progress.hpp"

namespace mdsseries {

struct SeriesTimings {
  double distances = 0.0;  // rolling sums, window symbols, rows (prepare included)
  double placement = 0.0;  // start points of symbols new to a window
  double mds = 0.0;
  double alignment = 0.0;
  double output = 0.0;     // the on_frame callback
  double first_mds = 0.0;  // the first window's annealing (inside mds)
  std::int64_t first_iterations = 0;
  std::int64_t warm_iterations = 0;  // over all later windows
  std::int64_t cg_iterations = 0;
  std::int64_t frames = 0;
};

// Runs `windows` in order; `on_frame` gets every frame on every rank (identical
// points everywhere). Throws Cancelled (cancel.hpp) when signalled, spidal::InputError
// when a window keeps fewer than 3 symbols. Collective over `comm`.
SeriesTimings run_series(const Config& config, const Market& market, const std::vector<Window>& windows, MPI_Comm comm,
                         spidal::ProgressReporter& progress, const std::function<void(const Frame&)>& on_frame);

// Start points of the symbols new to a window (`fresh`): the mean of the positions of
// their `neighbours` nearest `known` symbols by the window's distance, plus an offset
// of 1e-3 of the known points' spread (two new symbols with the same neighbours would
// otherwise coincide, and coincident points never separate in SMACOF). Writes rows of
// `points` (n × 3). Identical on every rank.
void place_new_symbols(const Config& config, const Market& market, const Window& window,
                       const WindowSymbols& symbols, const std::vector<std::uint8_t>& known,
                       const std::vector<std::int64_t>& fresh, std::vector<double>& points);

}  // namespace mdsseries
