// The fused Guttman pass and the V·p product over a vector of V::kLanes floats, one
// source for every instruction set: kernels_avx2.cpp (V = 8 floats in AVX2 + FMA) and
// kernels_avx512.cpp (16 floats in AVX-512) include it below their `#pragma GCC
// target` with their V, the few vector operations a pass needs as intrinsics;
// guttman_pass and laplacian_product pick one at run time (spidal/cpu.hpp).
//
// It includes nothing itself: an includer includes what it uses (the list below)
// before its target pragma, so that only the code here is compiled for wider
// vectors, while the headers' inline functions and templates (std::vector,
// ThreadPointSums…) stay portable, as the linker may keep any file's copies of them
// for the whole program. Anything used here and not included first fails to compile.
//   <omp.h> <algorithm> <cstdint> <vector> "kernels.hpp" "point_sums.hpp" "row_stream.hpp"
//
// The rows keep their circular upper halves (local_rows.hpp): each unordered pair is
// visited once and its term goes to both points (with opposite signs), half the int16
// reads and half the arithmetic of a row-by-row pass.
// The pass is compute-bound (as fast on rows from L3 as from DRAM): the loop is cut to
// the fewest vector operations, and those it keeps are spread over the multiply and
// add pipes:
// - coordinates are pre-scaled to half the stored distance unit (x·32767/2), so the
//   target δ̂ = stored − shift needs no multiply and the Newton step for 1/d needs no
//   constant ½: with q = (d/2)², r ≈ rsqrt(q), t = q·r, u = 3 − t·r gives
//   d = t·u and 4/d = r·u;
// - c_ij (x_i − x_j) reuses the differences already formed for d; with
//   V::kSumsByAdds it goes to the row and column sums as one multiply and two adds per
//   axis, not two FMAs, to move work from the busiest pipes (V's definition says where);
// - max(δ − shift, +0) is a signed integer max on the float bits, off the multiply
//   pipes; at T = 0 (the final SMACOF loop) neither it nor the subtraction is done;
// - q starts from a tiny floor (the original's cut-off) instead of a mask, so 1/d
//   stays finite for coincident points, whose differences are exactly 0;
// - the stress is added pair by pair only when asked (PairStress): with unit weights
//   Smacof derives it from B(X)X after a temperature's first pass;
// - rows in groups sweep the columns in blocks, so a block of coordinates and of the
//   columns' sums stays in L1 for every row of the group; float sums go to double
//   per block.
#pragma once

namespace damds {
// Each includer's own copy, compiled for its instruction set.
namespace {

constexpr float kHalfUnit = static_cast<float>(spidal::kMatrixScale / 2.0);
// Columns per float accumulation block: short enough for accurate float sums, small
// enough that L axes of a block's coordinates and column sums (2 · L · 2 KB) stay in
// L1 for the whole row group.
constexpr std::int64_t kBlock = 512;
// A row's last vector may run up to kLanes − 1 columns past its end (those lanes add
// nothing), so the coordinate and column-sum arrays have room for them.
template <typename V>
constexpr std::int64_t kOverrun = V::kLanes - 1;
template <typename V>
constexpr std::int64_t kBlockStride = kBlock + kOverrun<V>;
constexpr std::int64_t kRowGroup = 32;
// int16 columns per 64-byte line: one prefetch each.
constexpr std::int64_t kLineColumns = 32;
// The original's cut-off d = 1e-10 in these units: (d / 2)², the floor of q.
constexpr float kMinHalfSquared = static_cast<float>((1e-10 * spidal::kMatrixScale / 2.0) *
                                                     (1e-10 * spidal::kMatrixScale / 2.0));

// Sums over a row in pass units: the stress (Guttman pass only) and the row's terms
// per axis.
struct RowSums {
  double stress = 0.0;
  double weighted[kMaxDimension] = {};
};

// The Guttman pass's terms of kLanes pairs: w·4c·(x_i − x_j) per axis and, if
// AddStress, Σ w(δ̂ − d)²; coordinates in half stored units. Shifted: the temperature's
// shift is not zero (at T = 0, the final SMACOF loop, the target is the stored value
// itself).
template <typename V, int L, bool Weighted, bool AddStress, bool Shifted>
struct GuttmanColumns {
  using F = typename V::Floats;
  static constexpr bool kReadsDistances = true;
  static constexpr bool kReadsWeights = Weighted;
  static constexpr float kCoordinateScale = kHalfUnit;

  F stress = V::zero();
  F weighted[L];
  F xi[L];
  F shift;

  GuttmanColumns(const float* xi_scaled, float shift_scaled) : shift(V::set1(shift_scaled)) {
    for (int k = 0; k < L; ++k) {
      weighted[k] = V::zero();
      xi[k] = V::set1(xi_scaled[k]);
    }
  }

  // kLanes columns from `at`: their distances and weights (if any) from the given
  // pointers, L axes of coordinates and L axes of the columns' own sums (which take
  // each pair's term with the opposite sign) from the given starts. A Tail call adds
  // only the first `lanes` columns.
  template <bool Tail = false>
  inline void add(const std::int16_t* distance, const std::int16_t* weight, const float* const* axes,
                  float* const* column_sums, std::int64_t at, std::int64_t lanes = V::kLanes) {
    // Unshifted, a stored value is its own target: only missing ones are negative,
    // and their weight is zero.
    F target = V::load_stored(distance);
    if constexpr (Shifted) target = V::positive_part(V::sub(target, shift));
    F w;
    if constexpr (Weighted) w = V::load_stored(weight);  // zero for missing distances
    if constexpr (Tail) {
      // Zero weight (or, without weights, zero target and error below) ends the term.
      if constexpr (Weighted) {
        w = V::first_lanes(w, lanes);
      } else {
        target = V::first_lanes(target, lanes);
      }
    }
    F difference[L];
    F q = V::set1(kMinHalfSquared);
    for (int k = 0; k < L; ++k) {
      difference[k] = V::sub(xi[k], V::load(axes[k] + at));
      q = V::fmadd(difference[k], difference[k], q);
    }
    // Coincident points: r is large but finite and their differences are 0, so they
    // add no term (as below the original's cut-off) and d ≈ 0 in the stress.
    const F r = V::rsqrt(q);
    const F t = V::mul(q, r);
    const F u = V::fnmadd(t, r, V::set1(3.0f));
    F coefficient = V::mul(target, V::mul(r, u));  // 4 δ̂ / d
    if constexpr (Weighted) coefficient = V::mul(w, coefficient);
    if constexpr (AddStress) {
      F error = V::sub(target, V::mul(t, u));  // δ̂ − d, stored units
      if constexpr (Tail && !Weighted) error = V::first_lanes(error, lanes);
      F weighted_error = error;
      if constexpr (Weighted) weighted_error = V::mul(w, error);
      stress = V::fmadd(weighted_error, error, stress);
    }
    for (int k = 0; k < L; ++k) {
      float* sums = column_sums[k] + at;
      if constexpr (V::kSumsByAdds) {
        const F term = V::mul(coefficient, difference[k]);
        weighted[k] = V::add(weighted[k], term);
        V::store(sums, V::sub(V::load(sums), term));
      } else {
        weighted[k] = V::fmadd(coefficient, difference[k], weighted[k]);
        V::store(sums, V::fnmadd(coefficient, difference[k], V::load(sums)));
      }
    }
  }

  void flush(RowSums& sums) {
    if constexpr (AddStress) {
      sums.stress += V::sum(stress);
      stress = V::zero();
    }
    for (int k = 0; k < L; ++k) {
      sums.weighted[k] += V::sum(weighted[k]);
      weighted[k] = V::zero();
    }
  }
};

// The V·p product's terms of kLanes pairs: w (p_i − p_j) per axis, in stored weight units.
template <typename V, int L>
struct LaplacianColumns {
  using F = typename V::Floats;
  static constexpr bool kReadsDistances = false;
  static constexpr bool kReadsWeights = true;
  static constexpr float kCoordinateScale = 1.0f;

  F weighted[L];
  F pi[L];

  LaplacianColumns(const float* p_i, float /* no shift */) {
    for (int k = 0; k < L; ++k) {
      weighted[k] = V::zero();
      pi[k] = V::set1(p_i[k]);
    }
  }

  template <bool Tail = false>
  inline void add(const std::int16_t* /* no distances */, const std::int16_t* weight, const float* const* axes,
                  float* const* column_sums, std::int64_t at, std::int64_t lanes = V::kLanes) {
    F w = V::load_stored(weight);
    if constexpr (Tail) w = V::first_lanes(w, lanes);
    for (int k = 0; k < L; ++k) {
      const F term = V::mul(w, V::sub(pi[k], V::load(axes[k] + at)));
      weighted[k] = V::add(weighted[k], term);
      float* sums = column_sums[k] + at;
      V::store(sums, V::sub(V::load(sums), term));
    }
  }

  void flush(RowSums& sums) {
    for (int k = 0; k < L; ++k) {
      sums.weighted[k] += V::sum(weighted[k]);
      weighted[k] = V::zero();
    }
  }
};

// A pass over rows' pairs with the terms of `Columns` (GuttmanColumns or
// LaplacianColumns), the rows given block by block (all of a rank's, or streamed).
template <typename V, int L, typename Columns>
class HalfPass {
 public:
  HalfPass(const Coordinates& x, double shift)
      : n_(x.n), shift_(static_cast<float>(shift * spidal::kMatrixScale)),
        axis_stride_(2 * x.n + kOverrun<V>), scaled_(static_cast<std::size_t>(L * axis_stride_)) {
    // Coordinates twice over, so that a row's half (which may run past n) is one range.
    for (int k = 0; k < L; ++k) {
      for (std::int64_t j = 0; j < n_; ++j) {
        const float value = static_cast<float>(x.axis(k)[j] * Columns::kCoordinateScale);
        scaled_[k * axis_stride_ + j] = value;
        scaled_[k * axis_stride_ + n_ + j] = value;
      }
    }
  }

  // Row i's pairs are the columns v in [i + 1, end(i)), point v mod n.
  static std::int64_t end(const LocalRows& rows, std::int64_t i) { return i + 1 + rows.halves.length(i); }

  // The local rows [first, last) of `rows`, grouped so that each column block is read
  // from L1 by every row of a group.
  void run_group(const LocalRows& rows, std::int64_t first, std::int64_t last, double* const* out, double& stress,
                 std::vector<float>& column_block) const {
    RowSums sums[kRowGroup];
    const std::int64_t begin = rows.block.begin + first + 1;
    std::int64_t group_end = begin;
    for (std::int64_t local_row = first; local_row < last; ++local_row) {
      group_end = std::max(group_end, end(rows, rows.block.begin + local_row));
    }
    for (std::int64_t block = begin; block < group_end; block += kBlock) {
      const std::int64_t block_end = std::min(group_end, block + kBlock);
      std::fill(column_block.begin(), column_block.end(), 0.0f);
      for (std::int64_t local_row = first; local_row < last; ++local_row) {
        const std::int64_t i = rows.block.begin + local_row;
        const std::int64_t from = std::max(block, i + 1);
        const std::int64_t to = std::min(block_end, end(rows, i));
        if (from >= to) continue;
        float xi[L];
        for (int k = 0; k < L; ++k) xi[k] = scaled_[k * axis_stride_ + i];
        Columns columns(xi, shift_);
        run_columns(rows, local_row, from, to, block, columns, column_block);
        columns.flush(sums[local_row - first]);
      }
      for (int k = 0; k < L; ++k) {
        double* point_sums = out[k] + block;
        const float* block_sums = column_block.data() + k * kBlockStride<V>;
        for (std::int64_t v = 0; v < block_end - block; ++v) point_sums[v] += block_sums[v];
      }
    }
    for (std::int64_t local_row = first; local_row < last; ++local_row) {
      const std::int64_t i = rows.block.begin + local_row;
      RowSums& row = sums[local_row - first];
      for (int k = 0; k < L; ++k) out[k][i] += row.weighted[k];
      stress += row.stress;
    }
  }

 private:
  // Columns [from, to) of one row (entry v − i − 1 of its half).
  void run_columns(const LocalRows& rows, std::int64_t local_row, std::int64_t from, std::int64_t to,
                   std::int64_t block, Columns& columns, std::vector<float>& column_block) const {
    constexpr std::int64_t kLanes = V::kLanes;
    const std::int64_t i = rows.block.begin + local_row;
    const std::int16_t* distance = Columns::kReadsDistances ? rows.distance_row(local_row) + (from - i - 1) : nullptr;
    const std::int16_t* weight = Columns::kReadsWeights ? rows.weight_row(local_row) + (from - i - 1) : nullptr;
    // Starts computed once, the sums in a local copy: vector stores may alias anything,
    // so the compiler would otherwise reload members and spill the accumulators
    // around every column-sum store.
    const float* axes[L];
    float* sums[L];
    for (int k = 0; k < L; ++k) {
      axes[k] = scaled_.data() + k * axis_stride_ + from;
      sums[k] = column_block.data() + k * kBlockStride<V> + (from - block);
    }
    // The same columns of the next row are read next: fetching them now hides the
    // memory latency that the hardware prefetcher, restarting on every 2 KB run of a
    // row, does not (it cost the pass a third of its time).
    // (The next row's half starts one column later, right after this row's.)
    const bool last_row = local_row + 1 == rows.block.rows();
    const std::int64_t next = rows.row_length(local_row) - 1;
    const std::int16_t* next_distance = last_row || !distance ? distance : distance + next;
    const std::int16_t* next_weight = last_row || !weight ? weight : weight + next;
    Columns local = columns;
    const std::int64_t count = to - from;
    std::int64_t at = 0;
    const auto prefetch_next = [&](std::int64_t column) {
      if constexpr (Columns::kReadsDistances) __builtin_prefetch(next_distance + column, 0, 3);
      if constexpr (Columns::kReadsWeights) __builtin_prefetch(next_weight + column, 0, 3);
    };
    const auto add_vector = [&](std::int64_t column) {
      local.add(Columns::kReadsDistances ? distance + column : nullptr,
                Columns::kReadsWeights ? weight + column : nullptr, axes, sums, column);
    };
    // One prefetch per 64-byte line of the next row, not one per vector (several to a
    // line, all but one redundant).
    for (; at + kLineColumns <= count; at += kLineColumns) {
      prefetch_next(at);
      for (std::int64_t part = 0; part < kLineColumns; part += kLanes) add_vector(at + part);
    }
    prefetch_next(at);
    for (; at + kLanes <= count; at += kLanes) add_vector(at);
    if (at < count) {
      // The last count − at < kLanes columns as one vector whose other lanes add nothing.
      std::int16_t distance_copy[kLanes] = {};
      std::int16_t weight_copy[kLanes] = {};
      const std::int64_t lanes = count - at;
      local.template add<true>(
          Columns::kReadsDistances ? vector_entries(distance + at, lanes, rows.distances, distance_copy) : nullptr,
          Columns::kReadsWeights ? vector_entries(weight + at, lanes, rows.weights, weight_copy) : nullptr, axes,
          sums, at, lanes);
    }
    columns = local;
  }

  // kLanes entries from `entries` (in `all`) for one vector load. Past the row's end
  // they are the next row's; the rank's last row has none, so where fewer than kLanes
  // are left in `all`, the `valid` ones are copied into `copy` (zero-padded).
  static const std::int16_t* vector_entries(const std::int16_t* entries, std::int64_t valid,
                                            const std::vector<std::int16_t>& all, std::int16_t* copy) {
    if (static_cast<std::size_t>(entries - all.data()) + V::kLanes <= all.size()) return entries;
    std::copy_n(entries, valid, copy);
    return copy;
  }

  const std::int64_t n_;
  const float shift_;
  const std::int64_t axis_stride_;
  std::vector<float> scaled_;  // L axes × (2n + overrun)
};

// Streamed blocks start on a row group's first row, so the groups are those in memory.
static_assert(kBlockRowMultiple % kRowGroup == 0);

// Runs a HalfPass over the rank's rows on every thread, block by block; out gets the
// per-point sums × point_unit and the stress × stress_unit.
template <typename V, int L, typename Columns>
void run_pass(const LocalRows& rows, const Coordinates& x, double shift, double point_unit, double stress_unit,
              PassSums& out) {
  const HalfPass<V, L, Columns> pass(x, shift);
  ThreadPointSums sums(rows.n, L);
  for_each_block(rows, [&](const LocalRows& block) {
    const std::int64_t row_count = block.block.rows();
    // Every row has the same number of pairs give or take one, so equal static shares
    // balance.
#pragma omp parallel num_threads(sums.threads())
    {
      const int thread = omp_get_thread_num();
      double* point[L];
      for (int k = 0; k < L; ++k) point[k] = sums.axis(thread, k);
      std::vector<float> column_block(static_cast<std::size_t>(L) * kBlockStride<V>);
#pragma omp for schedule(static)
      for (std::int64_t group = 0; group < row_count; group += kRowGroup) {
        pass.run_group(block, group, std::min(row_count, group + kRowGroup), point, sums.scalar(thread), column_block);
      }
    }
  });
  out.reset(rows.n, L);
  sums.write(out.bx(), point_unit);
  out.stress() = sums.scalar_total() * stress_unit;
}

template <typename V, int L, bool Weighted, bool AddStress>
void guttman_pairs(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out) {
  // Undo the units: stress in stored units² (× stored weight), Σ 4c(x_i − x_j) in
  // half stored units (× stored weight).
  const double weight_unit = Weighted ? 1.0 / spidal::kMatrixScale : 1.0;
  const double point_unit = weight_unit / (4.0 * kHalfUnit);
  const double stress_unit = weight_unit / (spidal::kMatrixScale * spidal::kMatrixScale);
  if (shift > 0.0) {
    run_pass<V, L, GuttmanColumns<V, L, Weighted, AddStress, true>>(rows, x, shift, point_unit, stress_unit, out);
  } else {
    run_pass<V, L, GuttmanColumns<V, L, Weighted, AddStress, false>>(rows, x, shift, point_unit, stress_unit, out);
  }
}

// The fused Guttman pass (guttman_pass in kernels.hpp) in V's vectors.
template <typename V>
void simd_guttman_pass(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                       PassSums& out) {
  with_dimension(x.dim, [&]<int L>() {
    const bool add = stress == PairStress::add;
    if (rows.weighted()) {
      add ? guttman_pairs<V, L, true, true>(rows, x, shift, out) : guttman_pairs<V, L, true, false>(rows, x, shift, out);
    } else {
      add ? guttman_pairs<V, L, false, true>(rows, x, shift, out)
          : guttman_pairs<V, L, false, false>(rows, x, shift, out);
    }
  });
}

// The V·p product (laplacian_product in kernels.hpp) in V's vectors.
template <typename V>
void simd_laplacian_product(const LocalRows& rows, const Coordinates& p, PassSums& out) {
  with_dimension(p.dim, [&]<int L>() {
    run_pass<V, L, LaplacianColumns<V, L>>(rows, p, 0.0, 1.0 / spidal::kMatrixScale, 0.0, out);
  });
}

}  // namespace
}  // namespace damds
