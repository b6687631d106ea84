// The frames file: text, written by rank 0 frame by frame into a temporary file that
// is renamed onto the output path once the last frame is in (spidal::AtomicTextOutput).
//
//   # mdsseries frames 1
//   symbols <S> frames <F> window_days <W> step_days <D> distance <correlation|change> weights <tradedValue|none>
//   symbol <index> <name>                       (S lines, only with --symbols)
//   frame <k> <first_day> <last_day> <first_date> <last_date> <points> <stress>
//   <index> <x> <y> <z> <bin>                   (<points> lines)
//
// Symbols are 0-based rows of the price matrix; days are 0-based trading days (first
// and last of the window); dates are YYYY-MM-DD with --dates, else the day numbers;
// <bin> is the window's change bin 0–9 (market.hpp change_bin).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "series_config.hpp"
#include "market.hpp"
#include "spidal/output.hpp"

namespace mdsseries {

struct Frame {
  std::int64_t index = 0;
  Window window;
  std::vector<std::int64_t> symbols;  // included, ascending
  std::vector<double> points;         // symbols.size() × 3, aligned
  std::vector<int> bins;              // per included symbol
  double stress = 0.0;
  std::int64_t iterations = 0;
};

class FramesOutput {
 public:
  // Opens the temporary file on the root rank (`enabled`), nothing elsewhere.
  FramesOutput(const Config& config, const Market& market, std::int64_t frames, bool enabled);
  void write(const Frame& frame);
  void commit();

 private:
  const Market& market_;
  std::optional<spidal::AtomicTextOutput> output_;
};

}  // namespace mdsseries
