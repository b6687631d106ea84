#include "files.hpp"

#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "spidal/errors.hpp"
#include "spidal/output.hpp"

namespace interp {
namespace {

// The lines that are neither blank nor comments, with their line numbers.
template <typename OnLine>
void for_each_line(const std::string& path, const char* what, OnLine on_line) {
  std::ifstream file(path);
  if (!file) throw spidal::InputError(path + ": cannot open " + what);
  std::string line;
  std::int64_t number = 0;
  while (std::getline(file, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    on_line(line, number);
  }
}

spidal::InputError bad_line(const std::string& path, std::int64_t line, const std::string& expected) {
  return spidal::InputError(path + ":" + std::to_string(line) + ": expected " + expected);
}

// `index value` lines for points 0..n−1 (any order), each index once, every value `valid`.
template <typename Value, typename Valid>
std::vector<Value> read_indexed(const std::string& path, std::int64_t n, const char* what, const std::string& expected,
                                Valid valid) {
  std::vector<Value> values(static_cast<std::size_t>(n));
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  std::int64_t count = 0;
  for_each_line(path, what, [&](const std::string& line, std::int64_t number) {
    std::istringstream fields(line);
    std::int64_t index = -1;
    Value value{};
    if (!(fields >> index >> value) || index < 0 || index >= n || seen[index] || !valid(value)) {
      throw bad_line(path, number, expected + " with a distinct index in 0.." + std::to_string(n - 1));
    }
    seen[index] = true;
    values[index] = value;
    ++count;
  });
  if (count != n) throw spidal::InputError(path + ": has " + std::to_string(count) + " points, expected " + std::to_string(n));
  return values;
}

// `index value` lines in index order, atomically.
template <typename Value>
void write_indexed(const std::string& path, const std::vector<Value>& values) {
  spidal::AtomicTextOutput output(path);
  output.stream() << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (std::size_t i = 0; i < values.size(); ++i) output.stream() << i << ' ' << values[i] << '\n';
  output.commit();
}

}  // namespace

std::vector<int> read_labels(const std::string& path, std::int64_t n) {
  return read_indexed<int>(path, n, "clusters", "`index label` (label ≥ 1)", [](int label) { return label >= 1; });
}

std::vector<double> read_silhouettes(const std::string& path, std::int64_t n) {
  return read_indexed<double>(path, n, "silhouettes", "`index silhouette` (in [-1, 1])",
                              [](double s) { return s >= -1.0 && s <= 1.0; });
}

std::vector<std::int64_t> input_rows(const std::string& path, std::int64_t n, std::int64_t total) {
  std::vector<std::int64_t> rows;
  rows.reserve(static_cast<std::size_t>(total));
  std::vector<bool> in_sample(static_cast<std::size_t>(total), path.empty());
  if (path.empty()) {
    for (std::int64_t i = 0; i < n; ++i) rows.push_back(i);
    std::fill(in_sample.begin() + n, in_sample.end(), false);
  } else {
    for_each_line(path, "sample", [&](const std::string& line, std::int64_t number) {
      std::istringstream fields(line);
      std::int64_t row = -1;
      if (!(fields >> row) || row < 0 || row >= total || in_sample[row]) {
        throw bad_line(path, number, "a distinct input row in 0.." + std::to_string(total - 1));
      }
      in_sample[row] = true;
      rows.push_back(row);
    });
    if (static_cast<std::int64_t>(rows.size()) != n) {
      throw spidal::InputError(path + ": lists " + std::to_string(rows.size()) + " rows, expected " + std::to_string(n));
    }
  }
  for (std::int64_t row = 0; row < total; ++row) {
    if (!in_sample[row]) rows.push_back(row);
  }
  return rows;
}

std::vector<Centre> read_centres(const std::string& path, std::int64_t n) {
  std::vector<Centre> centres;
  for_each_line(path, "centres", [&](const std::string& line, std::int64_t number) {
    std::istringstream fields(line);
    Centre centre;
    if (!(fields >> centre.label >> centre.count >> centre.medoid) || centre.medoid < 0 || centre.medoid >= n) {
      throw bad_line(path, number, "`label count medoid` with a medoid in 0.." + std::to_string(n - 1));
    }
    centres.push_back(centre);
  });
  return centres;
}

void write_labels(const std::string& path, const std::vector<int>& labels) { write_indexed(path, labels); }

void write_silhouettes(const std::string& path, const std::vector<double>& silhouettes) {
  write_indexed(path, silhouettes);
}

void write_centres(const std::string& path, const std::vector<Centre>& centres) {
  spidal::AtomicTextOutput output(path);
  for (const Centre& c : centres) output.stream() << c.label << ' ' << c.count << ' ' << c.medoid << '\n';
  output.commit();
}

}  // namespace interp
