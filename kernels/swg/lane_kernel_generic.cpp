// Portable instances of the lane kernels for CPUs without AVX2 (plain arrays the
// compiler may vectorise for the baseline instruction set).
#include <algorithm>
#include <array>
#include <limits>

#include "lane_kernel_impl.hpp"
#include "score_kernel_impl.hpp"

namespace swg {
namespace {

template <class Cell_, int kLanes, int kRowsPerSweep>
struct Generic {
  using Cell = Cell_;
  static constexpr int lanes = kLanes;
  static constexpr int rows_per_sweep = kRowsPerSweep;
  using Vector = std::array<Cell, lanes>;
  static Vector load(const Cell* p) {
    Vector v;
    std::copy(p, p + lanes, v.begin());
    return v;
  }
  static void store(Cell* p, const Vector& v) { std::copy(v.begin(), v.end(), p); }
  static Vector set1(Cell x) {
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
  // Keys (lane_kernel_impl.hpp).
  static Vector add(const Vector& a, const Vector& b) { return each(a, b, [](Cell x, Cell y) { return x + y; }); }
  static Vector sub(const Vector& a, const Vector& b) { return each(a, b, [](Cell x, Cell y) { return x - y; }); }
  static Vector max(const Vector& a, const Vector& b) { return each(a, b, [](Cell x, Cell y) { return std::max(x, y); }); }
  // Saturating score cells (score_kernel_impl.hpp).
  static Vector adds(const Vector& a, const Vector& b) {
    return each(a, b, [](Cell x, Cell y) {
      return static_cast<Cell>(std::clamp<int>(x + y, std::numeric_limits<Cell>::min(), std::numeric_limits<Cell>::max()));
    });
  }
  static Vector subs(const Vector& a, const Vector& b) {
    return each(a, b, [](Cell x, Cell y) { return static_cast<Cell>(std::max<int>(x - y, score_floor<Cell>())); });
  }
};

}  // namespace

void run_narrow_generic(const LaneGroupJob<NarrowKeys>& job) {
  run_lane_group<Generic<std::int32_t, kGenericLanes, 4>>(job);
}
void run_wide_generic(const LaneGroupJob<WideKeys>& job) { run_lane_group<Generic<std::int64_t, kGenericLanes, 2>>(job); }
void run_score_bytes_generic(const ScoreGroupJob<ScoreBytes>& job) {
  run_score_group<Generic<ScoreBytes, kGenericScoreLanes, 2>>(job);
}
void run_score_words_generic(const ScoreGroupJob<ScoreWords>& job) {
  run_score_group<Generic<ScoreWords, kGenericScoreLanes, 2>>(job);
}

}  // namespace swg
