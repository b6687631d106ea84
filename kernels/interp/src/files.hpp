// The interpolation's inputs besides the points (damds's `index x y z`, read with
// damds's points_io) and the distance block: dapwc's clusters, centres and silhouettes, the
// in-sample rows of the input; and the merged outputs in input order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace interp {

// dapwc's `index label` lines for points 0..n−1 (any order), labels from 1; throws
// spidal::InputError naming the line on a bad, missing or repeated index.
std::vector<int> read_labels(const std::string& path, std::int64_t n);

// dapwc's `index silhouette` lines (--silhouettes) for points 0..n−1, as read_labels.
std::vector<double> read_silhouettes(const std::string& path, std::int64_t n);

// Which input rows the in-sample points are: `path` holds n distinct row numbers in
// 0..total−1, one per line, in the in-sample matrix's order; without a file the
// in-sample points are rows 0..n−1. The out-of-sample points are the other rows,
// ascending (the distance block's rows). Returns the input row of in-sample point i at
// [i] and of out-of-sample point j at [n + j].
std::vector<std::int64_t> input_rows(const std::string& path, std::int64_t n, std::int64_t total);

struct Centre {
  int label = 0;
  std::int64_t count = 0;
  std::int64_t medoid = 0;  // in-sample point
};

// dapwc's centres file: `label count medoid` per cluster (later columns ignored).
std::vector<Centre> read_centres(const std::string& path, std::int64_t n);

// Writes `index label` lines for labels in input order, atomically.
void write_labels(const std::string& path, const std::vector<int>& labels);

// Writes `index silhouette` lines in input order, atomically.
void write_silhouettes(const std::string& path, const std::vector<double>& silhouettes);

// Writes `label count medoid` lines, the medoid already an input row, atomically.
void write_centres(const std::string& path, const std::vector<Centre>& centres);

}  // namespace interp
