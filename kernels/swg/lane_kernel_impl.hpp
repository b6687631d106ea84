// The lane kernel, written once over a vector type V: V::lanes keys of type
// Keys::Key with load/store/add/sub/max/set1, and V::rows_per_sweep. Included only
// by the per-ISA translation units; everything is in an unnamed namespace so each
// ISA gets its own copy.
#pragma once

#include <algorithm>

#include "lane_kernel.hpp"

namespace swg {
namespace {

template <class V, class Keys>
void run_lane_group(const LaneGroupJob<Keys>& job) {
  using Key = typename Keys::Key;
  constexpr int lanes = V::lanes;
  constexpr int rows_per_sweep = V::rows_per_sweep;
  const int columns = job.profile->columns();
  Key* h_row = job.workspace;                    // H(i−1, j), then H(i, j)
  Key* f_row = job.workspace + columns * lanes;  // F(i−1, j), then F(i, j)
  const auto open = V::set1(job.open_key);
  const auto extend = V::set1(job.extend_key);
  const auto empty = V::set1(Keys::empty);
  const auto impossible = V::set1(Keys::impossible);
  const Key* padding_row = job.profile->row(job.profile->padding_code());

  for (std::size_t r = 0; r < job.rows.size(); ++r) {
    const auto row = job.rows[r];
    for (int j = 0; j < columns; ++j) {
      V::store(h_row + j * lanes, empty);
      V::store(f_row + j * lanes, impossible);
    }
    auto best = empty;
    // rows_per_sweep rows per pass over the columns: each row takes H and F of the
    // row above from registers, which cuts the row-buffer traffic and gives the CPU
    // independent dependency chains. Rows past the end use the all-padding profile
    // row, which can never beat `best`.
    for (std::size_t i = 0; i < row.size(); i += rows_per_sweep) {
      const Key* profiles[rows_per_sweep];
      typename V::Vector left[rows_per_sweep], e[rows_per_sweep];  // H(i+k, j−1), E(i+k, j−1)
      for (int k = 0; k < rows_per_sweep; ++k) {
        profiles[k] = i + k < row.size() ? job.profile->row(row[i + k]) : padding_row;
        left[k] = empty;
        e[k] = impossible;
      }
      auto diagonal = empty;  // H(i−1, j−1)
      for (int j = 0; j < columns; ++j) {
        const auto above = V::load(h_row + j * lanes);  // H(i−1, j)
        auto up = above;                                // H(i+k−1, j)
        auto f = V::load(f_row + j * lanes);            // F(i+k−1, j)
#pragma GCC unroll 8
        for (int k = 0; k < rows_per_sweep; ++k) {
          f = V::max(V::sub(up, open), V::sub(f, extend));
          e[k] = V::max(V::sub(left[k], open), V::sub(e[k], extend));
          const auto match = V::add(diagonal, V::load(profiles[k] + j * lanes));
          const auto h = V::max(V::max(match, empty), V::max(e[k], f));
          best = V::max(best, h);
          diagonal = left[k];  // the next row's diagonal is this row's H(i+k, j−1)
          left[k] = h;
          up = h;
        }
        V::store(f_row + j * lanes, f);
        V::store(h_row + j * lanes, up);
        diagonal = above;
      }
    }
    alignas(kVectorAlignment) Key best_keys[lanes];  // job.best_keys need not be aligned
    V::store(best_keys, best);
    std::copy(best_keys, best_keys + lanes, job.best_keys + r * lanes);
  }
}

}  // namespace
}  // namespace swg
