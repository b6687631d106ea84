// The lane kernel, written once over a vector type V (V::lanes int32 lanes with
// load/store/add/sub/max/set1). Included only by the per-ISA translation units;
// everything is in an unnamed namespace so each ISA gets its own copy.
#pragma once

#include <algorithm>

#include "lane_kernel.hpp"

namespace swg {
namespace {

template <class V>
void run_lane_group(const LaneGroupJob& job) {
  constexpr int lanes = V::lanes;
  const int columns = job.profile->columns();
  std::int32_t* h_row = job.workspace;                      // H(i−1, j), then H(i, j)
  std::int32_t* f_row = job.workspace + columns * lanes;    // F(i−1, j), then F(i, j)
  const auto open = V::set1(job.open_key);
  const auto extend = V::set1(job.extend_key);
  const auto empty = V::set1(key::kEmpty);
  const auto impossible = V::set1(key::kImpossible);

  for (std::size_t r = 0; r < job.rows.size(); ++r) {
    const auto row = job.rows[r];
    for (int j = 0; j < columns; ++j) {
      V::store(h_row + j * lanes, empty);
      V::store(f_row + j * lanes, impossible);
    }
    auto best = empty;
    for (const Residue residue : row) {
      const std::int32_t* profile = job.profile->data() + static_cast<std::size_t>(residue) * columns * lanes;
      auto diagonal = empty;  // H(i−1, j−1)
      auto left = empty;      // H(i, j−1)
      auto e = impossible;    // E(i, j−1): horizontal gap
      for (int j = 0; j < columns; ++j) {
        const auto up = V::load(h_row + j * lanes);
        const auto f = V::max(V::sub(up, open), V::sub(V::load(f_row + j * lanes), extend));
        e = V::max(V::sub(left, open), V::sub(e, extend));
        const auto match = V::add(diagonal, V::load(profile + j * lanes));
        const auto here = V::max(V::max(match, empty), V::max(e, f));
        best = V::max(best, here);
        V::store(f_row + j * lanes, f);
        V::store(h_row + j * lanes, here);
        diagonal = up;
        left = here;
      }
    }
    alignas(kVectorAlignment) std::int32_t best_keys[lanes];  // job.best_keys need not be aligned
    V::store(best_keys, best);
    std::copy(best_keys, best_keys + lanes, job.best_keys + r * lanes);
  }
}

}  // namespace
}  // namespace swg
