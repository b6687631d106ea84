#include "series.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "alignment.hpp"
#include "cancel.hpp"
#include "local_rows.hpp"
#include "points_io.hpp"
#include "rolling.hpp"
#include "smacof.hpp"
#include "spidal/errors.hpp"
#include "window_rows.hpp"

namespace mdsseries {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A direction in [−1, 1]³ from (symbol, window) alone, so every rank offsets alike.
std::array<double, 3> offset_direction(std::int64_t symbol, std::int64_t day) {
  std::uint64_t z = static_cast<std::uint64_t>(symbol) * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(day);
  std::array<double, 3> out;
  for (double& value : out) {
    z += 0x9e3779b97f4a7c15ULL;
    std::uint64_t x = z;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    value = 2.0 * static_cast<double>(x >> 11) * 0x1.0p-53 - 1.0;
  }
  return out;
}

damds::Config mds_config(const Config& config, bool first) {
  damds::Config out = config.solver;
  if (!first) {
    out.max_iterations_per_temperature = config.warm_iterations;
    out.threshold = config.warm_threshold;
  }
  return out;
}

}  // namespace

void place_new_symbols(const Config& config, const Market& market, const Window& window,
                       const WindowSymbols& symbols, const std::vector<std::uint8_t>& known,
                       const std::vector<std::int64_t>& fresh, std::vector<double>& points) {
  std::vector<std::int64_t> known_symbols;
  for (std::int64_t s = 0; s < market.symbols; ++s) {
    if (known[s]) known_symbols.push_back(s);
  }
  if (known_symbols.empty()) {
    const std::vector<double> random = damds::random_points(market.symbols, 3, config.solver.seed + window.first);
    for (const std::int64_t s : fresh) std::copy_n(random.begin() + s * 3, 3, points.begin() + s * 3);
    return;
  }
  double spread = 0.0;  // rms distance of the known points from their centroid
  {
    std::array<double, 3> centroid = {0, 0, 0};
    for (const std::int64_t s : known_symbols) {
      for (int k = 0; k < 3; ++k) centroid[k] += points[s * 3 + k];
    }
    for (double& c : centroid) c /= static_cast<double>(known_symbols.size());
    for (const std::int64_t s : known_symbols) {
      for (int k = 0; k < 3; ++k) spread += std::pow(points[s * 3 + k] - centroid[k], 2);
    }
    spread = std::sqrt(spread / static_cast<double>(known_symbols.size()));
  }
  const std::size_t k_nearest = std::min<std::size_t>(config.neighbours, known_symbols.size());
  std::vector<std::array<double, 3>> starts(fresh.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t f = 0; f < fresh.size(); ++f) {
    const std::int64_t i = fresh[f];
    const double length_i = change_length(symbols.log_change[i]);
    std::vector<std::pair<double, std::int64_t>> by_distance;
    by_distance.reserve(known_symbols.size());
    for (const std::int64_t j : known_symbols) {
      const double r = correlation_from_scratch(market, window, i, j);
      by_distance.emplace_back(pair_distance(config.distance, r, length_i, change_length(symbols.log_change[j])), j);
    }
    std::partial_sort(by_distance.begin(), by_distance.begin() + k_nearest, by_distance.end());
    std::array<double, 3> start = {0, 0, 0};
    for (std::size_t n = 0; n < k_nearest; ++n) {
      for (int k = 0; k < 3; ++k) start[k] += points[by_distance[n].second * 3 + k] / static_cast<double>(k_nearest);
    }
    const auto direction = offset_direction(i, window.first);
    for (int k = 0; k < 3; ++k) start[k] += 1e-3 * spread * direction[k];
    starts[f] = start;
  }
  for (std::size_t f = 0; f < fresh.size(); ++f) std::copy_n(starts[f].begin(), 3, points.begin() + fresh[f] * 3);
}

SeriesTimings run_series(const Config& config, const Market& market, const std::vector<Window>& windows, MPI_Comm comm,
                         spidal::ProgressReporter& progress, const std::function<void(const Frame&)>& on_frame) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::int64_t n = market.symbols;
  RollingSums sums(market, spidal::row_block(n, size, rank));
  damds::LocalRows rows;
  SeriesTimings timings;
  std::vector<double> points;                // n × 3: the last frame's aligned points
  std::vector<std::uint8_t> previous(n, 0);  // symbols of the last frame
  spidal::ProgressReporter quiet("mdsseries", false);
  const auto frames = static_cast<std::int64_t>(windows.size());

  for (std::int64_t index = 0; index < frames; ++index) {
    check_cancel(comm);
    const Window& window = windows[index];
    const bool first = index == 0;
    const auto frame_start = std::chrono::steady_clock::now();

    auto start = std::chrono::steady_clock::now();
    const WindowSymbols symbols = window_symbols(market, window, config.max_missing, config.references);
    if (symbols.count < 3) {
      throw spidal::InputError("window ending on day " + std::to_string(window.last) + " keeps " +
                               std::to_string(symbols.count) + " symbols (" + std::to_string(symbols.too_sparse) +
                               " too sparse, " + std::to_string(symbols.constant) + " constant); needs at least 3");
    }
    const std::vector<double> weights = symbol_weights(config.weights, symbols);
    const bool weighted = config.weights == WeightKind::traded_value || symbols.count < n;
    fill_window_rows(config.distance, sums, window, symbols, weights, weighted, rows, comm);
    timings.distances += seconds_since(start);

    start = std::chrono::steady_clock::now();
    if (first) {
      points = damds::random_points(n, 3, config.solver.seed);
    } else {
      std::vector<std::uint8_t> known(n, 0);
      std::vector<std::int64_t> fresh;
      for (std::int64_t s = 0; s < n; ++s) {
        known[s] = symbols.included[s] && previous[s];
        if (symbols.included[s] && !previous[s]) fresh.push_back(s);
      }
      if (!fresh.empty()) place_new_symbols(config, market, window, symbols, known, fresh, points);
    }
    timings.placement += seconds_since(start);

    start = std::chrono::steady_clock::now();
    const damds::Config solver_config = mds_config(config, first);
    damds::Smacof smacof(solver_config, rows, comm, points);
    damds::RunOptions options;
    options.start_fraction = first ? 1.0 : config.warm_temperature;
    options.after_iteration = [comm] { check_cancel(comm); };
    options.report_fraction = false;  // the frame lines carry the whole series' fraction
    damds::AnnealResult result = smacof.run(first ? progress : quiet, options);
    const double mds_seconds = seconds_since(start);
    timings.mds += mds_seconds;
    timings.cg_iterations += result.cg_iterations;
    if (first) {
      timings.first_mds = mds_seconds;
      timings.first_iterations = result.iterations;
    } else {
      timings.warm_iterations += result.iterations;
    }

    start = std::chrono::steady_clock::now();
    Frame frame;
    frame.index = index;
    frame.window = window;
    frame.stress = result.stress;
    frame.iterations = result.iterations;
    for (std::int64_t s = 0; s < n; ++s) {
      if (symbols.included[s]) frame.symbols.push_back(s);
    }
    if (!first) {
      // Fit on the symbols in both frames, weighted as in the window's stress.
      std::vector<double> moving, target, fit_weights;
      for (const std::int64_t s : frame.symbols) {
        if (!previous[s]) continue;
        moving.insert(moving.end(), result.points.begin() + s * 3, result.points.begin() + s * 3 + 3);
        target.insert(target.end(), points.begin() + s * 3, points.begin() + s * 3 + 3);
        fit_weights.push_back(weights[s]);
      }
      const Similarity transform =
          fit_similarity(moving.data(), target.data(), fit_weights.data(), static_cast<std::int64_t>(fit_weights.size()));
      transform.apply(result.points.data(), n);
    }
    points = std::move(result.points);
    previous = symbols.included;
    frame.points.reserve(frame.symbols.size() * 3);
    for (const std::int64_t s : frame.symbols) {
      frame.points.insert(frame.points.end(), points.begin() + s * 3, points.begin() + s * 3 + 3);
      frame.bins.push_back(change_bin(symbols.log_change[s]));
    }
    timings.alignment += seconds_since(start);

    start = std::chrono::steady_clock::now();
    on_frame(frame);
    timings.output += seconds_since(start);
    ++timings.frames;
    progress.report("frame", spidal::JsonFields()
                                 .add("fraction", static_cast<double>(index + 1) / static_cast<double>(frames))
                                 .add("frame", index + 1)
                                 .add("frames", frames)
                                 .add("points", static_cast<std::int64_t>(frame.symbols.size()))
                                 .add("stress", frame.stress)
                                 .add("iterations", frame.iterations)
                                 .add("cg_iterations", result.cg_iterations)
                                 .add("seconds", seconds_since(frame_start)));
  }
  return timings;
}

}  // namespace mdsseries
