#include "points3d.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "spidal/errors.hpp"

namespace dapwc {

std::vector<Point3> read_points3d(const std::string& path, std::int64_t n) {
  std::ifstream in(path);
  if (!in) throw spidal::InputError(path + ": cannot open the 3D points file");
  std::vector<Point3> points(n);
  std::vector<bool> seen(n, false);
  std::int64_t count = 0;
  std::string line;
  for (std::int64_t line_number = 1; std::getline(in, line); ++line_number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    std::istringstream fields(line);
    std::int64_t index = -1;
    Point3 p;
    if (!(fields >> index >> p[0] >> p[1] >> p[2]))
      throw spidal::InputError(where + "expected `index x y z`");
    if (index < 0 || index >= n)
      throw spidal::InputError(where + "index " + std::to_string(index) + " outside 0.." + std::to_string(n - 1));
    if (seen[index]) throw spidal::InputError(where + "index " + std::to_string(index) + " given twice");
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
      throw spidal::InputError(where + "non-finite coordinate");
    seen[index] = true;
    points[index] = p;
    ++count;
  }
  if (count != n)
    throw spidal::InputError(path + ": " + std::to_string(count) + " points, expected " + std::to_string(n));
  return points;
}

}  // namespace dapwc
