// The fused Guttman pass in AVX2 + FMA single precision (this file alone is compiled
// with -mavx2 -mfma; guttman_pass calls it only when the CPU has both).
//
// The pass is compute-bound, so the loop is cut to the fewest multiply-class
// operations (the FMA pipes are the bottleneck):
// - coordinates are pre-scaled to half the stored distance unit (x·32767/2), so the
//   target δ̂ = stored − shift needs no multiply and the Newton step for 1/d needs no
//   constant ½: with q = (d/2)², r ≈ rsqrt(q), t = q·r, u = 3 − t·r gives
//   d = t·u and 4/d = r·u;
// - (B X)_i = Σ_j c_ij (x_i − x_j) reuses the differences already formed for d;
// - the clamps are integer operations on the float bits (max(v, +0) is a signed
//   integer max; q > cut-off an integer compare), off the FMA pipes;
// - rows in groups sweep the columns in blocks, so each block of coordinates is
//   read from L1 by every row of the group; float sums go to double per block.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels.hpp"

namespace damds {
namespace {

constexpr float kHalfUnit = static_cast<float>(spidal::kMatrixScale / 2.0);
// Columns per float accumulation block: short enough for accurate float sums, small
// enough that L axes of a block (L · 4 KB) stay in L1 for the whole row group.
constexpr std::int64_t kBlock = 1024;
constexpr std::int64_t kRowGroup = 8;
// d > 1e-10 (the original's cut-off) in these units: (d / 2)² > this.
constexpr float kMinHalfSquared = static_cast<float>((1e-10 * spidal::kMatrixScale / 2.0) *
                                                     (1e-10 * spidal::kMatrixScale / 2.0));

inline __m256 load_stored(const std::int16_t* values) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values))));
}

inline float horizontal_sum(__m256 v) {
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 quarter = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(quarter, _mm_shuffle_ps(quarter, quarter, 1)));
}

// Sums over a row in pass units: Σ w(δ̂ − d)², Σ w·4c·(x_i − x_j) per axis.
struct RowSums {
  double stress = 0.0;
  double weighted[kMaxDimension] = {};
};

template <int L, bool Weighted>
struct EightColumns {
  __m256 stress = _mm256_setzero_ps();
  __m256 weighted[L];
  __m256 xi[L];
  __m256 shift;

  EightColumns(const float* xi_scaled, float shift_scaled) : shift(_mm256_set1_ps(shift_scaled)) {
    for (int k = 0; k < L; ++k) {
      weighted[k] = _mm256_setzero_ps();
      xi[k] = _mm256_set1_ps(xi_scaled[k]);
    }
  }

  // Columns j..j+7: distances, weights (if any) and L axes of coordinates.
  inline void add(const std::int16_t* distance, const std::int16_t* weight, const float* const* axes) {
    const __m256i zero_bits = _mm256_setzero_si256();
    // δ̂ = max(stored − shift, +0), a signed integer max on the float bits.
    const __m256 target = _mm256_castsi256_ps(
        _mm256_max_epi32(_mm256_castps_si256(_mm256_sub_ps(load_stored(distance), shift)), zero_bits));
    __m256 difference[L];
    __m256 q;
    for (int k = 0; k < L; ++k) {
      difference[k] = _mm256_sub_ps(xi[k], _mm256_loadu_ps(axes[k]));
      q = k == 0 ? _mm256_mul_ps(difference[k], difference[k]) : _mm256_fmadd_ps(difference[k], difference[k], q);
    }
    // r = rsqrt(q), zeroed for coincident points (q ≥ +0, so an integer compare works).
    const __m256i separated =
        _mm256_cmpgt_epi32(_mm256_castps_si256(q), _mm256_castps_si256(_mm256_set1_ps(kMinHalfSquared)));
    const __m256 r = _mm256_castsi256_ps(_mm256_and_si256(_mm256_castps_si256(_mm256_rsqrt_ps(q)), separated));
    const __m256 t = _mm256_mul_ps(q, r);
    const __m256 u = _mm256_fnmadd_ps(t, r, _mm256_set1_ps(3.0f));
    const __m256 d = _mm256_mul_ps(t, u);                           // distance, stored units
    __m256 coefficient = _mm256_mul_ps(target, _mm256_mul_ps(r, u));  // 4 δ̂ / d
    const __m256 error = _mm256_sub_ps(target, d);
    if constexpr (Weighted) {
      const __m256 w = load_stored(weight);  // zero for missing distances and the diagonal
      coefficient = _mm256_mul_ps(w, coefficient);
      stress = _mm256_fmadd_ps(_mm256_mul_ps(w, error), error, stress);
    } else {
      stress = _mm256_fmadd_ps(error, error, stress);
    }
    for (int k = 0; k < L; ++k) weighted[k] = _mm256_fmadd_ps(coefficient, difference[k], weighted[k]);
  }

  void flush(RowSums& sums) {
    sums.stress += horizontal_sum(stress);
    stress = _mm256_setzero_ps();
    for (int k = 0; k < L; ++k) {
      sums.weighted[k] += horizontal_sum(weighted[k]);
      weighted[k] = _mm256_setzero_ps();
    }
  }
};

template <int L, bool Weighted>
void guttman_rows(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx,
                  std::vector<double>& row_stress) {
  const std::int64_t n = rows.n;
  const std::int64_t row_count = rows.block.rows();
  const std::int64_t vector_end = n - n % 8;
  std::vector<float> scaled(static_cast<std::size_t>(L) * n);
  for (int k = 0; k < L; ++k) {
    for (std::int64_t j = 0; j < n; ++j) scaled[k * n + j] = static_cast<float>(x.axis(k)[j] * kHalfUnit);
  }
  const float shift_scaled = static_cast<float>(shift * spidal::kMatrixScale);
  // Undo the units: stress in stored units² (× stored weight), Σ 4c(x_i − x_j) in
  // half stored units (× stored weight).
  const double weight_unit = Weighted ? 1.0 / spidal::kMatrixScale : 1.0;
  const double stress_unit = weight_unit / (spidal::kMatrixScale * spidal::kMatrixScale);
  const double bx_unit = weight_unit / (4.0 * kHalfUnit);

#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t group = 0; group < row_count; group += kRowGroup) {
    const std::int64_t group_end = std::min(row_count, group + kRowGroup);
    RowSums sums[kRowGroup];
    for (std::int64_t block = 0; block < n; block += kBlock) {
      const std::int64_t block_end = std::min(vector_end, block + kBlock);
      const bool last_block = block + kBlock >= n;
      for (std::int64_t local_row = group; local_row < group_end; ++local_row) {
        const std::int64_t i = rows.block.begin + local_row;
        const std::int16_t* distance = rows.distance_row(local_row);
        const std::int16_t* weight = Weighted ? rows.weight_row(local_row) : nullptr;
        float xi[L];
        for (int k = 0; k < L; ++k) xi[k] = scaled[k * n + i];
        EightColumns<L, Weighted> columns(xi, shift_scaled);
        const float* axes[L];
        for (std::int64_t j = block; j < block_end; j += 8) {
          for (int k = 0; k < L; ++k) axes[k] = scaled.data() + k * n + j;
          columns.add(distance + j, weight ? weight + j : nullptr, axes);
        }
        if (last_block && vector_end < n) {
          // The last n % 8 columns, padded with pairs that add nothing: distance and
          // weight 0 at the point x_i itself.
          alignas(32) std::int16_t tail_distance[8] = {};
          alignas(32) std::int16_t tail_weight[8] = {};
          alignas(32) float tail_axes[L][8];
          const std::int64_t tail = n - vector_end;
          std::memcpy(tail_distance, distance + vector_end, tail * sizeof(std::int16_t));
          if (weight) std::memcpy(tail_weight, weight + vector_end, tail * sizeof(std::int16_t));
          for (int k = 0; k < L; ++k) {
            std::fill(tail_axes[k], tail_axes[k] + 8, xi[k]);
            std::memcpy(tail_axes[k], scaled.data() + k * n + vector_end, tail * sizeof(float));
            axes[k] = tail_axes[k];
          }
          columns.add(tail_distance, tail_weight, axes);
        }
        columns.flush(sums[local_row - group]);
      }
    }
    for (std::int64_t local_row = group; local_row < group_end; ++local_row) {
      const RowSums& row = sums[local_row - group];
      for (int k = 0; k < L; ++k) bx[local_row * L + k] = row.weighted[k] * bx_unit;
      row_stress[local_row] = row.stress * stress_unit;
    }
  }
}

}  // namespace

void guttman_pass_avx2(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx,
                       std::vector<double>& row_stress) {
  bx.resize(static_cast<std::size_t>(rows.block.rows()) * x.dim);
  row_stress.resize(static_cast<std::size_t>(rows.block.rows()));
  auto run = [&]<int L>() {
    if (rows.weighted()) {
      guttman_rows<L, true>(rows, x, shift, bx, row_stress);
    } else {
      guttman_rows<L, false>(rows, x, shift, bx, row_stress);
    }
  };
  switch (x.dim) {
    case 1: return run.template operator()<1>();
    case 2: return run.template operator()<2>();
    case 3: return run.template operator()<3>();
    case 4: return run.template operator()<4>();
    default: throw std::invalid_argument("dimension must be 1.." + std::to_string(kMaxDimension));
  }
}

}  // namespace damds
