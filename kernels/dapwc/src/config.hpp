// The dapwc command line and its SPIDAL config.properties keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "annealing.hpp"
#include "spidal/matrix.hpp"

namespace dapwc {

struct Config {
  std::string distances_path;
  std::int64_t points = 0;
  std::string output_path;
  spidal::ByteOrder byte_order = spidal::ByteOrder::little;
  std::optional<std::string> centers_path;
  std::optional<std::string> points3d_path;  // only with centers_path
  std::optional<std::string> silhouettes_path;
  // Bytes this rank may use (--memory-limit); 0: the machine's available memory.
  std::int64_t memory_limit = 0;
  AnnealingSettings annealing;
};

// Throws spidal::HelpRequested for --help and spidal::UsageError for bad options.
Config parse_config(int argc, const char* const* argv);

}  // namespace dapwc
