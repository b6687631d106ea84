// DA-MDS settings: command line and SPIDAL config.properties, validated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <vector>

#include "spidal/matrix.hpp"
#include "spidal/options.hpp"

namespace damds {

// The kernels keep one accumulator per axis in registers (see kernels.cpp).
inline constexpr int kMaxDimension = 4;

struct Config {
  std::string distances_path;
  std::optional<std::string> weights_path;
  std::string output_path;
  std::optional<std::string> initial_points_path;
  std::int64_t points = 0;
  int dimension = 3;
  double alpha = 0.95;
  double tmin_factor = 0.5;
  double threshold = 1e-6;
  std::int64_t max_iterations_per_temperature = 0;  // 0: no cap (as in the original)
  int cg_iterations = 100;
  double cg_threshold = 1e-5;
  std::uint64_t seed = 0;
  spidal::ByteOrder byte_order = spidal::ByteOrder::little;
  // Bytes this rank may use (--memory-limit); 0: the machine's available memory.
  std::int64_t memory_limit = 0;
  // The passes' SIMD variant (--kernel, select_pass_isa's names); "auto": the widest.
  std::string kernel = "auto";
};

// Parses argv; throws spidal::HelpRequested / spidal::UsageError.
Config parse_config(int argc, const char* const* argv);

// The schedule and solver options (alpha, tmin-factor, threshold,
// max-iterations-per-temperature, cg-iterations, cg-threshold, seed) with their
// config.properties keys, for damds and for programs that run its solver (mdsseries).
std::vector<spidal::OptionSpec> solver_options();
// Reads those options into `config`; throws spidal::UsageError when out of range.
void read_solver_options(const spidal::Options& options, Config& config);
// Options of a program that runs the solver: its `specs`, then solver_options(),
// parsed from argv (throws as spidal::Options::parse does).
spidal::Options parse_with_solver_options(const std::string& program, const std::string& summary,
                                          std::vector<spidal::OptionSpec> specs, int argc, const char* const* argv);

}  // namespace damds
