#include "config.hpp"

#include <limits>
#include <stdexcept>

#include "kernels.hpp"
#include "spidal/errors.hpp"
#include "spidal/options.hpp"
#include "spidal/row_stream.hpp"

namespace damds {
std::vector<spidal::OptionSpec> solver_options() {
  return {
      {"alpha", "A", "cooling factor per temperature", "0.95", {"Alpha"}},
      {"tmin-factor", "F", "final temperature as a fraction of the smallest distance", "0.5", {"TminFactor"}},
      {"threshold", "E", "stop a temperature when the stress decreases by less than this", "1e-6", {"Threshold"}},
      {"max-iterations-per-temperature", "K", "cap on Guttman iterations per temperature (0: none)", "0",
       {"StressIterations"}},
      {"cg-iterations", "K", "conjugate-gradient iterations per Guttman step (weighted)", "100", {"CGIterations"}},
      {"cg-threshold", "E", "CG stops when r'r falls below this fraction of its start", "1e-5", {"CGErrorThreshold"}},
      {"seed", "S", "seed of the random start", "0", {"RandomSeed"}},
  };
}

void read_solver_options(const spidal::Options& options, Config& config) {
  config.alpha = options.get_double("alpha", 1e-3, 0.999999);
  config.tmin_factor = options.get_double("tmin-factor", 0.0, 1e6);
  config.threshold = options.get_double("threshold", 0.0, 1.0);
  config.max_iterations_per_temperature =
      options.get_int("max-iterations-per-temperature", 0, std::numeric_limits<std::int32_t>::max());
  config.cg_iterations = static_cast<int>(options.get_int("cg-iterations", 1, 100000));
  config.cg_threshold = options.get_double("cg-threshold", 0.0, 1.0);
  config.seed = static_cast<std::uint64_t>(options.get_int("seed", 0, std::numeric_limits<std::int64_t>::max()));
}

spidal::Options parse_with_solver_options(const std::string& program, const std::string& summary,
                                          std::vector<spidal::OptionSpec> specs, int argc, const char* const* argv) {
  for (auto& spec : solver_options()) specs.push_back(std::move(spec));
  spidal::Options options(program, summary, std::move(specs));
  options.parse(argc, argv);
  return options;
}

Config parse_config(int argc, const char* const* argv) {
  std::vector<spidal::OptionSpec> specs = {
      {"distances", "FILE", "N×N int16 distance matrix (value/32767, negative = missing)", std::nullopt,
       {"DistanceMatrixFile"}},
      {"points", "N", "number of points (matrix side)", std::nullopt, {"NumberDataPoints"}},
      {"output", "FILE", "output points file", std::nullopt, {"PointsFile"}},
      {"weights", "FILE", "N×N int16 weight matrix (same format); default: unit weights", std::nullopt,
       {"WeightMatrixFile"}},
      {"dim", "L", "target dimension", "3", {"TargetDimension"}},
      {"initial-points", "FILE", "start from these points (`index x y ...` lines) instead of random", std::nullopt,
       {"InitialPointsFile"}},
      {"big-endian", "", "matrices are big-endian (Java SPIDAL writers)", std::nullopt, {"IsBigEndian"}},
      {"memory-limit", "BYTES",
       "memory per rank (suffix K, M or G); a matrix whose halves need more than 3/4 of it is streamed from "
       "disk on every pass; default: the machine's available memory shared by the node's ranks",
       std::nullopt, {"MemoryLimit"}},
      {"kernel", "auto|avx512|avx2|generic", "SIMD variant of the passes", "auto", {}},
  };
  const spidal::Options options = parse_with_solver_options(
      "damds",
      "Deterministic-annealing weighted SMACOF: embeds an N×N SPIDAL distance matrix in --dim dimensions.\n"
      "Writes `index x y ...` per point; progress as JSON lines on stdout.",
      std::move(specs), argc, argv);

  Config config;
  config.distances_path = options.get_string("distances");
  config.points = options.get_int("points", 1, 1'000'000'000LL);
  config.output_path = options.get_string("output");
  if (options.has("weights")) config.weights_path = options.get_string("weights");
  if (options.has("initial-points")) config.initial_points_path = options.get_string("initial-points");
  config.dimension = static_cast<int>(options.get_int("dim", 1, kMaxDimension));
  read_solver_options(options, config);
  config.byte_order = options.get_flag("big-endian") ? spidal::ByteOrder::big : spidal::ByteOrder::little;
  if (options.has("memory-limit")) config.memory_limit = spidal::parse_memory_limit(options.get_string("memory-limit"));
  config.kernel = options.get_string("kernel");
  try {
    select_pass_isa(config.kernel);
  } catch (const std::invalid_argument& error) {
    throw spidal::UsageError(std::string("--kernel: ") + error.what());
  }
  return config;
}

}  // namespace damds
