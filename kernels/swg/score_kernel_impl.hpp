// The score-only kernel, written once over a vector type V: V::lanes cells of type
// V::Cell with load/store/set1, a signed saturating add, a subtraction floored at the
// cell's floor (score_kernel.hpp), a signed max, and V::rows_per_sweep. Included only
// by the per-ISA translation units; everything is in an unnamed namespace so each ISA
// gets its own copy.
#pragma once

#include <algorithm>
#include <limits>
#include <type_traits>

#include "score_kernel.hpp"

namespace swg {
namespace {

// Two registers as one vector of twice the lanes: words get as many lanes as bytes.
template <class Half, int kRowsPerSweep>
struct Doubled {
  using Cell = typename Half::Cell;
  static constexpr int lanes = 2 * Half::lanes;
  static constexpr int rows_per_sweep = kRowsPerSweep;
  struct Vector {
    typename Half::Vector low, high;
  };
  static Vector load(const Cell* p) { return {Half::load(p), Half::load(p + Half::lanes)}; }
  static void store(Cell* p, const Vector& v) {
    Half::store(p, v.low);
    Half::store(p + Half::lanes, v.high);
  }
  static Vector set1(Cell x) { return {Half::set1(x), Half::set1(x)}; }
  static Vector adds(const Vector& a, const Vector& b) { return {Half::adds(a.low, b.low), Half::adds(a.high, b.high)}; }
  static Vector subs(const Vector& a, const Vector& b) { return {Half::subs(a.low, b.low), Half::subs(a.high, b.high)}; }
  static Vector max(const Vector& a, const Vector& b) { return {Half::max(a.low, b.low), Half::max(a.high, b.high)}; }
};

template <class V>
class ScoreGroupAligner {
 public:
  using Cell = typename V::Cell;
  using Vector = typename V::Vector;
  static constexpr int lanes = V::lanes;

  explicit ScoreGroupAligner(const ScoreGroupJob<Cell>& job)
      : job_(job),
        columns_(job.profile->columns()),
        h_row_(job.workspace),
        f_row_(job.workspace + columns_ * lanes),
        // Words: a cost beyond their range floors any H to 0 exactly as the true cost
        // does. Bytes take only schemes whose costs fit (scores_fit_bytes).
        open_(V::set1(saturated(job.gap_open))),
        extend_(V::set1(saturated(job.gap_extend))),
        floor_(V::set1(score_floor<Cell>())) {}

  void run() {
    constexpr int rows_per_sweep = V::rows_per_sweep;
    for (std::size_t r = 0; r < job_.rows.size(); ++r) {
      const auto row = job_.rows[r];
      for (int j = 0; j < columns_; ++j) {
        V::store(h_row_ + j * lanes, floor_);
        V::store(f_row_ + j * lanes, floor_);
      }
      best_ = floor_;
      std::size_t i = 0;
      for (; i + rows_per_sweep <= row.size(); i += rows_per_sweep) sweep<rows_per_sweep>(row, i);
      for (; i < row.size(); ++i) sweep<1>(row, i);
      alignas(kVectorAlignment) Cell best[lanes];
      V::store(best, best_);
      for (int lane = 0; lane < lanes; ++lane) job_.best_scores[r * lanes + lane] = best[lane] - score_floor<Cell>();
    }
  }

 private:
  static Cell saturated(int cost) { return static_cast<Cell>(std::min<int>(cost, std::numeric_limits<Cell>::max())); }

  // Rows i .. i + kRows − 1 in one pass over the columns, each row taking H and F of
  // the row above from registers (as the keyed kernel does). f_row_ holds F of the
  // row to come: each cell computes its successors' gap states from its own H.
  template <int kRows>
  void sweep(std::span<const Residue> row, std::size_t i) {
    const Cell* profiles[kRows];
    Vector left[kRows], e[kRows];  // H(i+k, j−1), E(i+k, j)
    for (int k = 0; k < kRows; ++k) {
      profiles[k] = job_.profile->row(row[i + k]);
      left[k] = floor_;
      e[k] = floor_;
    }
    Vector diagonal = floor_;  // H(i−1, j−1)
    // Locals, not members, in the loop: vector stores may alias *this.
    Vector best = best_;
    const Vector open = open_, extend = extend_;
    Cell* const h_row = h_row_;
    Cell* const f_row = f_row_;
    const int columns = columns_;
    for (int j = 0; j < columns; ++j) {
      const auto above = V::load(h_row + j * lanes);  // H(i−1, j)
      auto up = above;
      auto f = V::load(f_row + j * lanes);  // F(i, j)
      Vector column_best;
#pragma GCC unroll 8
      for (int k = 0; k < kRows; ++k) {
        auto h = V::adds(diagonal, V::load(profiles[k] + j * lanes));
        h = V::max(V::max(h, e[k]), f);  // words: E, F ≥ 0 is also the local floor
        column_best = k == 0 ? h : V::max(column_best, h);
        const auto opened = V::subs(h, open);
        e[k] = V::max(V::subs(e[k], extend), opened);  // E(i+k, j+1)
        f = V::max(V::subs(f, extend), opened);        // F(i+k+1, j)
        diagonal = left[k];
        left[k] = h;
        up = h;
      }
      best = V::max(best, column_best);
      V::store(f_row + j * lanes, f);
      V::store(h_row + j * lanes, up);
      diagonal = above;
    }
    best_ = best;
  }

  const ScoreGroupJob<Cell>& job_;
  const int columns_;
  Cell* const h_row_;  // H(i−1, j), then H(i, j)
  Cell* const f_row_;  // F(i, j), then F(i+1, j)
  const Vector open_, extend_, floor_;
  Vector best_;
};

template <class V>
void run_score_group(const ScoreGroupJob<typename V::Cell>& job) {
  ScoreGroupAligner<V>(job).run();
}

}  // namespace
}  // namespace swg
