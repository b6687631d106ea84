// The fused Guttman pass and the V·p product in AVX2 + FMA single precision (8 floats
// a vector; the passes themselves are in simd_pass.hpp); guttman_pass and
// laplacian_product call them only when the CPU has both.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "point_sums.hpp"
#include "row_stream.hpp"

// Only what follows is compiled for AVX2 (simd_pass.hpp's top says why).
#pragma GCC push_options
#pragma GCC target("avx2,fma")

#include "simd_pass.hpp"

namespace damds {
namespace {

struct Avx2 {
  using Floats = __m256;
  static constexpr int kLanes = 8;
  // AMD Zen cores run FMAs and multiplies on two of their four FP pipes and adds on the
  // other two: a multiply and two adds per axis balance the loop (14 → 11 operations
  // on the multiply pipes; the pass 5–16 % faster on one Zen 3 thread, bench/RESULTS.md).
  // On Intel cores, where both share the same ports, this is 3 more operations per 8
  // pairs; the AVX2 CPUs this runs on here are Zen 3.
  static constexpr bool kSumsByAdds = true;

  static Floats zero() { return _mm256_setzero_ps(); }
  static Floats set1(float value) { return _mm256_set1_ps(value); }
  static Floats load(const float* values) { return _mm256_loadu_ps(values); }
  static void store(float* values, Floats v) { _mm256_storeu_ps(values, v); }
  static Floats add(Floats a, Floats b) { return _mm256_add_ps(a, b); }
  static Floats sub(Floats a, Floats b) { return _mm256_sub_ps(a, b); }
  static Floats mul(Floats a, Floats b) { return _mm256_mul_ps(a, b); }
  static Floats fmadd(Floats a, Floats b, Floats c) { return _mm256_fmadd_ps(a, b, c); }     // a·b + c
  static Floats fnmadd(Floats a, Floats b, Floats c) { return _mm256_fnmadd_ps(a, b, c); }   // c − a·b
  static Floats rsqrt(Floats v) { return _mm256_rsqrt_ps(v); }  // 12 bits
  // Eight stored int16 values as floats.
  static Floats load_stored(const std::int16_t* values) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values))));
  }
  // max(v, +0) as a signed integer max on the float bits, off the multiply pipes.
  static Floats positive_part(Floats v) {
    return _mm256_castsi256_ps(_mm256_max_epi32(_mm256_castps_si256(v), _mm256_setzero_si256()));
  }
  // v in the first `lanes` lanes, zero in the others.
  static Floats first_lanes(Floats v, std::int64_t lanes) {
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lanes)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_and_ps(v, _mm256_castsi256_ps(mask));
  }
  static float sum(Floats v) {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 quarter = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(quarter, _mm_shuffle_ps(quarter, quarter, 1)));
  }
};

}  // namespace

void guttman_pass_avx2(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress, PassSums& out) {
  simd_guttman_pass<Avx2>(rows, x, shift, stress, out);
}

void laplacian_product_avx2(const LocalRows& rows, const Coordinates& p, PassSums& out) {
  simd_laplacian_product<Avx2>(rows, p, out);
}

}  // namespace damds

#pragma GCC pop_options
