// mdsseries settings: command line (or SPIDAL-style config file), validated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config.hpp"

namespace mdsseries {

enum class DistanceKind { correlation, change };
enum class WeightKind { traded_value, none };

struct Config {
  std::string prices_path;
  std::optional<std::string> volumes_path;
  std::optional<std::string> dates_path;
  std::optional<std::string> symbols_path;
  std::string output_path;
  std::int64_t window_days = 365;
  std::int64_t step_days = 7;
  double max_missing = 0.05;
  DistanceKind distance = DistanceKind::correlation;
  WeightKind weights = WeightKind::none;
  std::int64_t max_frames = 0;  // 0: every window
  std::int64_t references = 0;  // the last K symbols are reference series (window_symbols)
  // damds's solver settings (3 dimensions); max_iterations_per_temperature applies to
  // the first window.
  damds::Config solver;
  // Later windows: the schedule starts at warm_temperature · alpha · T_max (0: plain
  // SMACOF at T = 0), each temperature capped at warm_iterations Guttman updates and
  // ended when an update lowers the normalised stress by less than warm_threshold.
  double warm_temperature = 0.0;
  std::int64_t warm_iterations = 20;
  double warm_threshold = 3e-6;
  int neighbours = 3;  // known symbols a new one is placed among
};

// Parses argv; throws spidal::HelpRequested / spidal::UsageError.
Config parse_config(int argc, const char* const* argv);

}  // namespace mdsseries
