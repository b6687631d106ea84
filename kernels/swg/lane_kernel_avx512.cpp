// AVX-512 instances of the lane kernel (this file is compiled with -mavx512f).
// The tests build it a second time with SWG_AVX512_ON_SIMDE: the same intrinsics then
// come from SIMDe's portable AVX-512 under other entry-point names, so this exact code
// is checked on CPUs without AVX-512 (tests/CMakeLists.txt).
#ifdef SWG_AVX512_ON_SIMDE
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#define SWG_AVX512_ENTRY(name) name##_simde
#else
#include <immintrin.h>
#define SWG_AVX512_ENTRY(name) name
#endif

#include "lane_kernel_impl.hpp"
#include "score_kernel_impl.hpp"

namespace swg {
namespace {

struct Avx512Narrow {  // 16 int32 keys in one register
  static constexpr int lanes = kAvx512Lanes;
  static constexpr int rows_per_sweep = 4;
  using Vector = __m512i;
  static Vector load(const std::int32_t* p) { return _mm512_load_si512(p); }
  static void store(std::int32_t* p, Vector v) { _mm512_store_si512(p, v); }
  static Vector set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static Vector add(Vector a, Vector b) { return _mm512_add_epi32(a, b); }
  static Vector sub(Vector a, Vector b) { return _mm512_sub_epi32(a, b); }
  static Vector max(Vector a, Vector b) { return _mm512_max_epi32(a, b); }
};

struct Avx512Wide {  // 16 int64 keys in two registers
  static constexpr int lanes = kAvx512Lanes;
  static constexpr int rows_per_sweep = 2;
  struct Vector {
    __m512i low, high;
  };
  static Vector load(const std::int64_t* p) { return {_mm512_load_si512(p), _mm512_load_si512(p + 8)}; }
  static void store(std::int64_t* p, Vector v) {
    _mm512_store_si512(p, v.low);
    _mm512_store_si512(p + 8, v.high);
  }
  static Vector set1(std::int64_t x) { return {_mm512_set1_epi64(x), _mm512_set1_epi64(x)}; }
  static Vector add(Vector a, Vector b) { return {_mm512_add_epi64(a.low, b.low), _mm512_add_epi64(a.high, b.high)}; }
  static Vector sub(Vector a, Vector b) { return {_mm512_sub_epi64(a.low, b.low), _mm512_sub_epi64(a.high, b.high)}; }
  static Vector max(Vector a, Vector b) { return {_mm512_max_epi64(a.low, b.low), _mm512_max_epi64(a.high, b.high)}; }
};

struct Avx512Bytes {  // 64 signed saturating bytes (H − 128)
  using Cell = ScoreBytes;
  static constexpr int lanes = kAvx512ScoreLanes;
  static constexpr int rows_per_sweep = 4;
  using Vector = __m512i;
  static Vector load(const Cell* p) { return _mm512_load_si512(p); }
  static void store(Cell* p, Vector v) { _mm512_store_si512(p, v); }
  static Vector set1(Cell x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  static Vector adds(Vector a, Vector b) { return _mm512_adds_epi8(a, b); }
  static Vector subs(Vector a, Vector b) { return _mm512_subs_epi8(a, b); }
  static Vector max(Vector a, Vector b) { return _mm512_max_epi8(a, b); }
};

struct Avx512WordHalf {  // 32 signed saturating words (subtraction: of non-negative ones, floored at 0)
  using Cell = ScoreWords;
  static constexpr int lanes = kAvx512ScoreLanes / 2;
  using Vector = __m512i;
  static Vector load(const Cell* p) { return _mm512_load_si512(p); }
  static void store(Cell* p, Vector v) { _mm512_store_si512(p, v); }
  static Vector set1(Cell x) { return _mm512_set1_epi16(x); }
  static Vector adds(Vector a, Vector b) { return _mm512_adds_epi16(a, b); }
  static Vector subs(Vector a, Vector b) { return _mm512_subs_epu16(a, b); }
  static Vector max(Vector a, Vector b) { return _mm512_max_epi16(a, b); }
};

}  // namespace

void SWG_AVX512_ENTRY(run_score_bytes_avx512)(const ScoreGroupJob<ScoreBytes>& job) {
  run_score_group<Avx512Bytes>(job);
}
void SWG_AVX512_ENTRY(run_score_words_avx512)(const ScoreGroupJob<ScoreWords>& job) {
  run_score_group<Doubled<Avx512WordHalf, 2>>(job);
}
void SWG_AVX512_ENTRY(run_narrow_avx512)(const LaneGroupJob<NarrowKeys>& job) { run_lane_group<Avx512Narrow>(job); }
void SWG_AVX512_ENTRY(run_wide_avx512)(const LaneGroupJob<WideKeys>& job) { run_lane_group<Avx512Wide>(job); }

}  // namespace swg
