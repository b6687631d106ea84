#include "files.hpp"

#include <fstream>
#include <sstream>

#include "spidal/errors.hpp"
#include "spidal/output.hpp"

namespace interp {
namespace {

// Whitespace-separated integer fields of the non-blank lines, with their line numbers.
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

}  // namespace

std::vector<int> read_labels(const std::string& path, std::int64_t n) {
  std::vector<int> labels(static_cast<std::size_t>(n), 0);
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  std::int64_t count = 0;
  for_each_line(path, "clusters", [&](const std::string& line, std::int64_t number) {
    std::istringstream fields(line);
    std::int64_t index = -1;
    int label = 0;
    if (!(fields >> index >> label) || index < 0 || index >= n || seen[index]) {
      throw bad_line(path, number, "`index label` with a distinct index in 0.." + std::to_string(n - 1));
    }
    seen[index] = true;
    labels[index] = label;
    ++count;
  });
  if (count != n) throw spidal::InputError(path + ": has " + std::to_string(count) + " points, expected " + std::to_string(n));
  return labels;
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

void write_labels(const std::string& path, const std::vector<int>& labels) {
  spidal::AtomicTextOutput output(path);
  for (std::size_t i = 0; i < labels.size(); ++i) output.stream() << i << ' ' << labels[i] << '\n';
  output.commit();
}

void write_centres(const std::string& path, const std::vector<Centre>& centres) {
  spidal::AtomicTextOutput output(path);
  for (const Centre& c : centres) output.stream() << c.label << ' ' << c.count << ' ' << c.medoid << '\n';
  output.commit();
}

}  // namespace interp
