// mdsseries: a stock market's time series of 3-D maps, one DA-MDS frame per sliding
// window of daily prices, each warm-started from and aligned to the previous frame.
#include <omp.h>

#include <chrono>

#include "cancel.hpp"
#include "series_config.hpp"
#include "frames_output.hpp"
#include "market.hpp"
#include "series.hpp"
#include "spidal/errors.hpp"
#include "spidal/mpi_env.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"

namespace {

// 128 + SIGTERM, what a shell reports for a process ended by the signal.
constexpr int kExitCancelled = 143;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_mdsseries(spidal::MpiEnv& mpi, int argc, char** argv) {
  const mdsseries::Config config = mdsseries::parse_config(argc, argv);
  spidal::check_output_writable(config.output_path);
  mdsseries::install_cancel_handler();
  spidal::ProgressReporter progress("mdsseries", mpi.is_root());

  auto start = std::chrono::steady_clock::now();
  const mdsseries::Market market = mdsseries::load_market(
      config.prices_path, config.volumes_path ? &*config.volumes_path : nullptr,
      config.dates_path ? &*config.dates_path : nullptr, config.symbols_path ? &*config.symbols_path : nullptr);
  if (config.references > market.symbols) {
    throw spidal::UsageError("--references " + std::to_string(config.references) + " exceeds the " +
                             std::to_string(market.symbols) + " symbols");
  }
  std::vector<mdsseries::Window> windows = mdsseries::make_windows(market, config.window_days, config.step_days);
  if (config.max_frames > 0 && static_cast<std::int64_t>(windows.size()) > config.max_frames) {
    windows.resize(config.max_frames);
  }
  const double load_seconds = seconds_since(start);
  progress.report("loaded", spidal::JsonFields()
                                .add("symbols", market.symbols)
                                .add("days", market.days)
                                .add("frames", static_cast<std::int64_t>(windows.size()))
                                .add("ranks", mpi.size())
                                .add("threads", omp_get_max_threads()));

  mdsseries::FramesOutput output(config, market, static_cast<std::int64_t>(windows.size()), mpi.is_root());
  mdsseries::SeriesTimings timings;
  try {
    timings = mdsseries::run_series(config, market, windows, mpi.comm(), progress,
                                    [&](const mdsseries::Frame& frame) { output.write(frame); });
  } catch (const mdsseries::Cancelled&) {
    // Every rank stops here together; the temporary output is removed on the way out.
    progress.report("cancelled");
    return kExitCancelled;
  }
  start = std::chrono::steady_clock::now();
  output.commit();
  const double commit_seconds = seconds_since(start);

  const std::int64_t warm_frames = timings.frames - 1;
  progress.done(spidal::JsonFields()
                    .add("output", config.output_path)
                    .add("symbols", market.symbols)
                    .add("frames", timings.frames)
                    .add("first_iterations", timings.first_iterations)
                    .add("warm_iterations_per_frame",
                         warm_frames > 0 ? static_cast<double>(timings.warm_iterations) / warm_frames : 0.0)
                    .add("cg_iterations", timings.cg_iterations)
                    .add("ranks", mpi.size())
                    .add("threads", omp_get_max_threads()),
                spidal::JsonFields()
                    .add("load", load_seconds)
                    .add("distances", timings.distances)
                    .add("placement", timings.placement)
                    .add("mds", timings.mds)
                    .add("first_mds", timings.first_mds)
                    .add("alignment", timings.alignment)
                    .add("output", timings.output + commit_seconds));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_mdsseries); }
