// The lane kernel, written once over a vector type V: V::lanes keys of type
// Keys::Key with load/store/add/sub/max/set1, and V::rows_per_sweep; and once over
// the alignment mode (a template parameter, so the local kernel keeps its exact
// instruction sequence). Included only by the per-ISA translation units;
// everything is in an unnamed namespace so each ISA gets its own copy.
#pragma once

#include <algorithm>

#include "lane_kernel.hpp"

namespace swg {
namespace {

template <class V, class Keys, AlignmentMode kMode>
class LaneGroupAligner {
 public:
  using Key = typename Keys::Key;
  using Vector = typename V::Vector;
  static constexpr int lanes = V::lanes;

  explicit LaneGroupAligner(const LaneGroupJob<Keys>& job)
      : job_(job),
        columns_(job.profile->columns()),
        hm_row_(job.workspace),
        f_row_(job.workspace + columns_ * lanes),
        open_(V::set1(job.open_key)),
        extend_(V::set1(job.extend_key)),
        empty_(V::set1(Keys::empty)),
        impossible_(V::set1(Keys::impossible)) {}

  void run() {
    constexpr int rows_per_sweep = V::rows_per_sweep;
    for (std::size_t r = 0; r < job_.rows.size(); ++r) {
      const auto row = job_.rows[r];
      for (int j = 0; j < columns_; ++j) {
        V::store(hm_row_ + j * lanes, V::set1(edge(j + 1) - job_.open_key));
        V::store(f_row_ + j * lanes, impossible_);
      }
      best_ = empty_;
      // rows_per_sweep rows per pass over the columns: each row takes H and F of the
      // row above from registers, which cuts the row-buffer traffic and gives the CPU
      // independent dependency chains. The last few rows go one at a time, so that
      // hm_row_ ends as the last row's H − open (the global alignments end there).
      std::size_t i = 0;
      for (; i + rows_per_sweep <= row.size(); i += rows_per_sweep) sweep<rows_per_sweep>(row, i);
      for (; i < row.size(); ++i) sweep<1>(row, i);

      Key* out = job_.result_keys + r * lanes;
      if constexpr (kMode == AlignmentMode::local) {
        alignas(kVectorAlignment) Key best_keys[lanes];  // job.result_keys need not be aligned
        V::store(best_keys, best_);
        std::copy(best_keys, best_keys + lanes, out);
      } else {  // H(len(a), len(b)) of each lane's own sequence
        for (int lane = 0; lane < lanes; ++lane) {
          const int length = job_.profile->lane_length(lane);
          out[lane] = length > 0 ? hm_row_[(length - 1) * lanes + lane] + job_.open_key : Keys::empty;
        }
      }
    }
  }

 private:
  // H(k, 0) and H(0, k): local alignments may start anywhere (the empty alignment);
  // a global one starts with an end gap of k columns.
  Key edge(std::size_t k) const {
    if constexpr (kMode == AlignmentMode::local) {
      return Keys::empty;
    } else {
      return k == 0 ? Keys::empty : Keys::empty - job_.open_key - static_cast<Key>(k - 1) * job_.extend_key;
    }
  }

  // Rows i .. i + kRows − 1 of `row` in one pass over the columns. H is kept as
  // H − open (written "Hm"): both gap recurrences start from it, and the profile's
  // added opening turns the diagonal's Hm back into H + column. So each H costs one
  // subtraction instead of one per gap direction.
  template <int kRows>
  void sweep(std::span<const Residue> row, std::size_t i) {
    const Key* profiles[kRows];
    Vector left[kRows], e[kRows];  // Hm(i+k, j−1), E(i+k, j−1)
    for (int k = 0; k < kRows; ++k) {
      profiles[k] = job_.profile->row(row[i + k]);
      left[k] = V::set1(edge(i + k + 1) - job_.open_key);
      e[k] = impossible_;
    }
    Vector diagonal = V::set1(edge(i) - job_.open_key);  // Hm(i−1, j−1)
    // Locals, not members, in the loop: vector stores may alias *this.
    Vector best = best_;
    const Vector open = open_, extend = extend_;
    [[maybe_unused]] const Vector empty = empty_;
    Key* const hm_row = hm_row_;
    Key* const f_row = f_row_;
    const int columns = columns_;
    for (int j = 0; j < columns; ++j) {
      const auto above = V::load(hm_row + j * lanes);  // Hm(i−1, j)
      auto up = above;                                 // Hm(i+k−1, j)
      auto f = V::load(f_row + j * lanes);             // F(i+k−1, j)
      // Local mode: the column's best H, folded into `best` once per column. Then the
      // loop-carried `best` (kept on the stack when registers run out) takes one max
      // per column instead of one per row (4–9 % faster on Zen 3: bench/RESULTS.md).
      [[maybe_unused]] Vector column_best;
#pragma GCC unroll 8
      for (int k = 0; k < kRows; ++k) {
        f = V::max(up, V::sub(f, extend));
        e[k] = V::max(left[k], V::sub(e[k], extend));
        const auto match = V::add(diagonal, V::load(profiles[k] + j * lanes));  // H(i+k−1, j−1) + column
        Vector h;
        if constexpr (kMode == AlignmentMode::local) {
          h = V::max(V::max(match, empty), V::max(e[k], f));
          column_best = k == 0 ? h : V::max(column_best, h);
        } else {  // no zero floor: the alignment runs from corner to corner
          h = V::max(match, V::max(e[k], f));
        }
        const auto hm = V::sub(h, open);
        diagonal = left[k];  // the next row's diagonal is this row's Hm(i+k, j−1)
        left[k] = hm;
        up = hm;
      }
      if constexpr (kMode == AlignmentMode::local) best = V::max(best, column_best);
      V::store(f_row + j * lanes, f);
      V::store(hm_row + j * lanes, up);
      diagonal = above;
    }
    best_ = best;
  }

  const LaneGroupJob<Keys>& job_;
  const int columns_;
  Key* const hm_row_;  // Hm(i−1, j), then Hm(i, j)
  Key* const f_row_;  // F(i−1, j), then F(i, j)
  const Vector open_, extend_, empty_, impossible_;
  Vector best_;  // local mode: the best key so far, per lane
};

template <class V, class Keys>
void run_lane_group(const LaneGroupJob<Keys>& job) {
  if (job.mode == AlignmentMode::global) {
    LaneGroupAligner<V, Keys, AlignmentMode::global>(job).run();
  } else {
    LaneGroupAligner<V, Keys, AlignmentMode::local>(job).run();
  }
}

}  // namespace
}  // namespace swg
