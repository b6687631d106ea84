// The fused Guttman pass and the V·p product in AVX-512 single precision (16 floats a
// vector; the passes themselves are in simd_pass.hpp); guttman_pass and
// laplacian_product call them only when the CPU has AVX-512 F, BW, DQ and VL.
//
// The tests build this file a second time with DAMDS_AVX512_ON_SIMDE: the same
// intrinsics then come from SIMDe's portable AVX-512 under other entry-point names, so
// this exact code is checked on CPUs without AVX-512 (tests/CMakeLists.txt); its real
// machine code runs on an emulated AVX-512 CPU in the Bochs test.
#ifdef DAMDS_AVX512_ON_SIMDE
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#define DAMDS_AVX512_ENTRY(name) name##_simde
#else
#include <immintrin.h>
#define DAMDS_AVX512_ENTRY(name) name
#endif
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "point_sums.hpp"
#include "row_stream.hpp"

// Only what follows is compiled for AVX-512 (simd_pass.hpp's top says why).
#ifndef DAMDS_AVX512_ON_SIMDE
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512bw,avx512dq,avx512vl")
#endif

#include "simd_pass.hpp"

namespace damds {
namespace {

#ifdef DAMDS_AVX512_ON_SIMDE
// SIMDe 0.7 lacks these four: lane by lane, as the instructions define them
// (rsqrt14 exactly, within its 2^-14 bound).
__m512i _mm512_cvtepi16_epi32(__m256i v) {
  std::int16_t in[16];
  std::int32_t out[16];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(in), v);
  for (int lane = 0; lane < 16; ++lane) out[lane] = in[lane];
  return _mm512_loadu_si512(out);
}
__m512 _mm512_cvtepi32_ps(__m512i v) {
  std::int32_t in[16];
  float out[16];
  _mm512_storeu_si512(in, v);
  for (int lane = 0; lane < 16; ++lane) out[lane] = static_cast<float>(in[lane]);
  return _mm512_loadu_ps(out);
}
__m512 _mm512_rsqrt14_ps(__m512 v) {
  float lanes[16];
  _mm512_storeu_ps(lanes, v);
  for (float& lane : lanes) lane = 1.0f / std::sqrt(lane);
  return _mm512_loadu_ps(lanes);
}
float _mm512_reduce_add_ps(__m512 v) {
  float lanes[16];
  _mm512_storeu_ps(lanes, v);
  float sum = 0.0f;
  for (const float lane : lanes) sum += lane;
  return sum;
}
#endif

struct Avx512 {
  using Floats = __m512;
  static constexpr int kLanes = 16;
  // Two FMAs per axis into the sums (kernels_avx2.cpp says why AVX2 does otherwise):
  // most AVX-512 CPUs are Intel cores, whose FMAs and adds share the same ports.
  static constexpr bool kSumsByAdds = false;

  static Floats zero() { return _mm512_setzero_ps(); }
  static Floats set1(float value) { return _mm512_set1_ps(value); }
  static Floats load(const float* values) { return _mm512_loadu_ps(values); }
  static void store(float* values, Floats v) { _mm512_storeu_ps(values, v); }
  static Floats add(Floats a, Floats b) { return _mm512_add_ps(a, b); }
  static Floats sub(Floats a, Floats b) { return _mm512_sub_ps(a, b); }
  static Floats mul(Floats a, Floats b) { return _mm512_mul_ps(a, b); }
  static Floats fmadd(Floats a, Floats b, Floats c) { return _mm512_fmadd_ps(a, b, c); }     // a·b + c
  static Floats fnmadd(Floats a, Floats b, Floats c) { return _mm512_fnmadd_ps(a, b, c); }   // c − a·b
  static Floats rsqrt(Floats v) { return _mm512_rsqrt14_ps(v); }  // 14 bits
  // Sixteen stored int16 values as floats.
  static Floats load_stored(const std::int16_t* values) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(values))));
  }
  // max(v, +0) as a signed integer max on the float bits, off the multiply pipes.
  static Floats positive_part(Floats v) {
    return _mm512_castsi512_ps(_mm512_max_epi32(_mm512_castps_si512(v), _mm512_setzero_si512()));
  }
  // v in the first `lanes` lanes, zero in the others.
  static Floats first_lanes(Floats v, std::int64_t lanes) {
    return _mm512_maskz_mov_ps(static_cast<std::uint16_t>((1u << lanes) - 1), v);
  }
  static float sum(Floats v) { return _mm512_reduce_add_ps(v); }
};

}  // namespace

void DAMDS_AVX512_ENTRY(guttman_pass_avx512)(const LocalRows& rows, const Coordinates& x, double shift,
                                             PairStress stress, PassSums& out) {
  simd_guttman_pass<Avx512>(rows, x, shift, stress, out);
}

void DAMDS_AVX512_ENTRY(laplacian_product_avx512)(const LocalRows& rows, const Coordinates& p, PassSums& out) {
  simd_laplacian_product<Avx512>(rows, p, out);
}

}  // namespace damds

#ifndef DAMDS_AVX512_ON_SIMDE
#pragma GCC pop_options
#endif
