// Point sets as n × dim row-major doubles: the random start, the initial-points
// file and the `index x y z` output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace damds {

// Uniform in [-1, 1]^dim; the same seed gives the same points on every rank.
std::vector<double> random_points(std::int64_t n, int dim, std::uint64_t seed);

// Reads `index x y ...` lines (extra columns, e.g. a SPIDAL label, are ignored);
// throws spidal::InputError naming the line on anything else.
std::vector<double> read_points(const std::string& path, std::int64_t n, int dim);

// Writes `index x y ...` lines atomically (temporary file, then rename).
void write_points(const std::string& path, const std::vector<double>& points, std::int64_t n, int dim);

}  // namespace damds
