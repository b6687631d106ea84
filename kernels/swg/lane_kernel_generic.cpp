// Portable instances of the lane kernel for CPUs without AVX2 (plain arrays the
// compiler may vectorise for the baseline instruction set).
#include <algorithm>
#include <array>

#include "lane_kernel_impl.hpp"

namespace swg {
namespace {

template <class Key, int kRowsPerSweep>
struct Generic {
  static constexpr int lanes = kGenericLanes;
  static constexpr int rows_per_sweep = kRowsPerSweep;
  using Vector = std::array<Key, lanes>;
  static Vector load(const Key* p) {
    Vector v;
    std::copy(p, p + lanes, v.begin());
    return v;
  }
  static void store(Key* p, const Vector& v) { std::copy(v.begin(), v.end(), p); }
  static Vector set1(Key x) {
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
  static Vector add(const Vector& a, const Vector& b) { return each(a, b, [](Key x, Key y) { return x + y; }); }
  static Vector sub(const Vector& a, const Vector& b) { return each(a, b, [](Key x, Key y) { return x - y; }); }
  static Vector max(const Vector& a, const Vector& b) { return each(a, b, [](Key x, Key y) { return std::max(x, y); }); }
};

}  // namespace

void run_narrow_generic(const LaneGroupJob<NarrowKeys>& job) { run_lane_group<Generic<std::int32_t, 4>>(job); }
void run_wide_generic(const LaneGroupJob<WideKeys>& job) { run_lane_group<Generic<std::int64_t, 2>>(job); }

}  // namespace swg
