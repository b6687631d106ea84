#include "series_config.hpp"

#include <limits>

#include "spidal/errors.hpp"
#include "spidal/options.hpp"

namespace mdsseries {

Config parse_config(int argc, const char* const* argv) {
  std::vector<spidal::OptionSpec> specs = {
      {"prices", "FILE", "price matrix (symbols × trading days, WPVTSMAT header, NaN = missing)", std::nullopt,
       {"PricesFile"}},
      {"output", "FILE", "output frames file", std::nullopt, {"FramesFile"}},
      {"volumes", "FILE", "volume matrix, same layout as --prices (needed by --weights tradedValue)",
       std::nullopt, {"VolumesFile"}},
      {"dates", "FILE", "one YYYY-MM-DD per trading day, ascending; default: day t is calendar day t",
       std::nullopt, {"DatesFile"}},
      {"symbols", "FILE", "one symbol name per line, copied into the output header", std::nullopt,
       {"SymbolsFile"}},
      {"window-days", "D", "window length in calendar days", "365", {"WindowDays"}},
      {"step-days", "D", "calendar days between window starts", "7", {"StepDays"}},
      {"max-missing", "F", "leave a symbol out of a window when it misses more than this share of its days",
       "0.05", {"MaxMissing"}},
      {"distance", "KIND", "correlation: (1 - r)/2 of daily log returns; change: SPIDAL's L-based distance",
       "correlation", {"Distance"}},
      {"weights", "KIND", "tradedValue: from average daily price × volume; none: unit weights", "none",
       {"Weights"}},
      {"max-frames", "K", "compute only the first K windows (0: all)", "0", {"MaxFrames"}},
      {"references", "K", "the last K symbols are reference series, kept in a window even with a constant price",
       "0", {"References"}},
      {"warm-temperature", "F",
       "later windows start annealing at F × the first window's starting temperature (0: plain SMACOF)", "0",
       {"WarmTemperature"}},
      {"warm-iterations", "K", "later windows: cap on Guttman iterations per temperature", "20",
       {"WarmIterations"}},
      {"warm-threshold", "F", "later windows: stop when an update lowers the normalised stress by less than F", "3e-6",
       {"WarmThreshold"}},
      {"neighbours", "K", "a symbol new to a window starts at the mean of its K nearest known symbols", "3",
       {"Neighbours"}},
  };
  // With damds's solver options; --max-iterations-per-temperature caps the first window's.
  const spidal::Options options = damds::parse_with_solver_options(
      "mdsseries",
      "Stock time series: one DA-MDS frame per sliding window of a price matrix, each warm-started from\n"
      "and aligned to the previous one. Input and output layouts: kernels/README.md (mdsseries).\n"
      "Progress as JSON lines on stdout.",
      std::move(specs), argc, argv);

  Config config;
  config.prices_path = options.get_string("prices");
  config.output_path = options.get_string("output");
  if (options.has("volumes")) config.volumes_path = options.get_string("volumes");
  if (options.has("dates")) config.dates_path = options.get_string("dates");
  if (options.has("symbols")) config.symbols_path = options.get_string("symbols");
  config.window_days = options.get_int("window-days", 2, 1'000'000);
  config.step_days = options.get_int("step-days", 1, 1'000'000);
  config.max_missing = options.get_double("max-missing", 0.0, 1.0);
  const std::string distance = options.get_string("distance");
  if (distance == "correlation") {
    config.distance = DistanceKind::correlation;
  } else if (distance == "change") {
    config.distance = DistanceKind::change;
  } else {
    throw spidal::UsageError("--distance must be correlation or change, got '" + distance + "'");
  }
  const std::string weights = options.get_string("weights");
  if (weights == "tradedValue") {
    config.weights = WeightKind::traded_value;
    if (!config.volumes_path) throw spidal::UsageError("--weights tradedValue needs --volumes");
  } else if (weights == "none") {
    config.weights = WeightKind::none;
  } else {
    throw spidal::UsageError("--weights must be tradedValue or none, got '" + weights + "'");
  }
  config.max_frames = options.get_int("max-frames", 0, std::numeric_limits<std::int32_t>::max());
  config.references = options.get_int("references", 0, std::numeric_limits<std::int32_t>::max());
  config.solver.dimension = 3;
  damds::read_solver_options(options, config.solver);
  config.warm_temperature = options.get_double("warm-temperature", 0.0, 1.0);
  config.warm_iterations = options.get_int("warm-iterations", 1, std::numeric_limits<std::int32_t>::max());
  config.warm_threshold = options.get_double("warm-threshold", 0.0, 1.0);
  config.neighbours = static_cast<int>(options.get_int("neighbours", 1, 100));
  return config;
}

}  // namespace mdsseries
