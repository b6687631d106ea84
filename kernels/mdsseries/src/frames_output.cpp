#include "frames_output.hpp"

#include <cstdio>

namespace mdsseries {

FramesOutput::FramesOutput(const Config& config, const Market& market, std::int64_t frames, bool enabled)
    : market_(market) {
  if (!enabled) return;
  output_.emplace(config.output_path);
  std::ostream& out = output_->stream();
  out << "# mdsseries frames 1\n"
      << "symbols " << market.symbols << " frames " << frames << " window_days " << config.window_days
      << " step_days " << config.step_days << " distance "
      << (config.distance == DistanceKind::correlation ? "correlation" : "change") << " weights "
      << (config.weights == WeightKind::traded_value ? "tradedValue" : "none") << '\n';
  for (std::size_t s = 0; s < market.names.size(); ++s) out << "symbol " << s << ' ' << market.names[s] << '\n';
}

void FramesOutput::write(const Frame& frame) {
  if (!output_) return;
  const auto date = [&](std::int64_t day) {
    return market_.has_dates ? format_iso_date(market_.dates[day]) : std::to_string(day);
  };
  std::string text = "frame " + std::to_string(frame.index) + ' ' + std::to_string(frame.window.first) + ' ' +
                     std::to_string(frame.window.last) + ' ' + date(frame.window.first) + ' ' +
                     date(frame.window.last) + ' ' + std::to_string(frame.symbols.size());
  char number[48];
  std::snprintf(number, sizeof number, " %.9g\n", frame.stress);
  text += number;
  for (std::size_t p = 0; p < frame.symbols.size(); ++p) {
    std::snprintf(number, sizeof number, "%lld", static_cast<long long>(frame.symbols[p]));
    text += number;
    for (int k = 0; k < 3; ++k) {
      std::snprintf(number, sizeof number, " %.7g", frame.points[p * 3 + k]);
      text += number;
    }
    std::snprintf(number, sizeof number, " %d\n", frame.bins[p]);
    text += number;
  }
  output_->stream() << text;
}

void FramesOutput::commit() {
  if (output_) output_->commit();
}

}  // namespace mdsseries
