#include "points_io.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "spidal/errors.hpp"
#include "spidal/output.hpp"

namespace damds {

std::vector<double> random_points(std::int64_t n, int dim, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<double> points(static_cast<std::size_t>(n) * dim);
  // 53 random bits -> [0, 1) -> [-1, 1); independent of the library's distributions.
  for (auto& value : points) value = 2.0 * static_cast<double>(generator() >> 11) * 0x1.0p-53 - 1.0;
  return points;
}

std::vector<double> read_points(const std::string& path, std::int64_t n, int dim) {
  std::ifstream file(path);
  if (!file) throw spidal::InputError(path + ": cannot open initial points");
  std::vector<double> points;
  points.reserve(static_cast<std::size_t>(n) * dim);
  std::string line;
  std::int64_t line_number = 0;
  while (static_cast<std::int64_t>(points.size()) < n * dim && std::getline(file, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string index;
    fields >> index;
    for (int k = 0; k < dim; ++k) {
      std::string text;
      fields >> text;
      double value = 0.0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
        throw spidal::InputError(path + ":" + std::to_string(line_number) + ": expected `index` and " +
                                 std::to_string(dim) + " finite coordinates");
      }
      points.push_back(value);
    }
  }
  if (static_cast<std::int64_t>(points.size()) < n * dim) {
    throw spidal::InputError(path + ": has " + std::to_string(points.size() / dim) + " points, expected " +
                             std::to_string(n));
  }
  return points;
}

void write_points(const std::string& path, const std::vector<double>& points, std::int64_t n, int dim) {
  spidal::AtomicTextOutput output(path);
  std::string line;
  char number[32];
  for (std::int64_t i = 0; i < n; ++i) {
    line = std::to_string(i);
    for (int k = 0; k < dim; ++k) {
      std::snprintf(number, sizeof number, " %.10g", points[i * dim + k]);
      line += number;
    }
    line += '\n';
    output.stream() << line;
  }
  output.commit();
}

}  // namespace damds
