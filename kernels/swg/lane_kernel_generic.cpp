// Portable instance of the lane kernel for CPUs without AVX2 (plain arrays the
// compiler may vectorise for the baseline instruction set).
#include <algorithm>
#include <array>

#include "lane_kernel_impl.hpp"

namespace swg {
namespace {

struct Generic {
  static constexpr int lanes = kGenericLanes;
  using Vector = std::array<std::int32_t, lanes>;
  static Vector load(const std::int32_t* p) {
    Vector v;
    std::copy(p, p + lanes, v.begin());
    return v;
  }
  static void store(std::int32_t* p, const Vector& v) { std::copy(v.begin(), v.end(), p); }
  static Vector set1(std::int32_t x) {
    Vector v;
    v.fill(x);
    return v;
  }
  template <class Op>
  static Vector each(const Vector& a, const Vector& b, Op op) {
    Vector v;
    for (int i = 0; i < lanes; ++i) v[i] = op(a[i], b[i]);
    return v;
  }
  static Vector add(const Vector& a, const Vector& b) { return each(a, b, [](auto x, auto y) { return x + y; }); }
  static Vector sub(const Vector& a, const Vector& b) { return each(a, b, [](auto x, auto y) { return x - y; }); }
  static Vector max(const Vector& a, const Vector& b) { return each(a, b, [](auto x, auto y) { return std::max(x, y); }); }
};

}  // namespace

void run_lane_group_generic(const LaneGroupJob& job) { run_lane_group<Generic>(job); }

}  // namespace swg
