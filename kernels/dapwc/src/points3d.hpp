// 3D coordinates of the points (the `index x y z` output of damds), used for
// the Euclidean cluster centres.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dapwc {

using Point3 = std::array<double, 3>;

// Reads `index x y z [ignored columns]` lines, one per point, indices 0..n−1 each
// exactly once in any order; blank lines and lines starting with '#' are skipped.
// Throws spidal::InputError naming the file and line on anything else.
std::vector<Point3> read_points3d(const std::string& path, std::int64_t n);

}  // namespace dapwc
