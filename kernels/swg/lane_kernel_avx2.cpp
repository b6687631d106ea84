// AVX2 instances of the lane kernel (this file is compiled with -mavx2).
#include <immintrin.h>

#include "lane_kernel_impl.hpp"
#include "score_kernel_impl.hpp"

namespace swg {
namespace {

struct Avx2Narrow {  // 8 int32 keys in one register
  static constexpr int lanes = kAvx2Lanes;
  static constexpr int rows_per_sweep = 4;
  using Vector = __m256i;
  static Vector load(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::int32_t* p, Vector v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vector set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static Vector add(Vector a, Vector b) { return _mm256_add_epi32(a, b); }
  static Vector sub(Vector a, Vector b) { return _mm256_sub_epi32(a, b); }
  static Vector max(Vector a, Vector b) { return _mm256_max_epi32(a, b); }
};

struct Avx2Wide {  // 8 int64 keys in two registers; AVX2 has no 64-bit max
  static constexpr int lanes = kAvx2Lanes;
  static constexpr int rows_per_sweep = 3;
  struct Vector {
    __m256i low, high;
  };
  static Vector load(const std::int64_t* p) {
    return {_mm256_load_si256(reinterpret_cast<const __m256i*>(p)),
            _mm256_load_si256(reinterpret_cast<const __m256i*>(p + 4))};
  }
  static void store(std::int64_t* p, Vector v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v.low);
    _mm256_store_si256(reinterpret_cast<__m256i*>(p + 4), v.high);
  }
  static Vector set1(std::int64_t x) { return {_mm256_set1_epi64x(x), _mm256_set1_epi64x(x)}; }
  static Vector add(Vector a, Vector b) { return {_mm256_add_epi64(a.low, b.low), _mm256_add_epi64(a.high, b.high)}; }
  static Vector sub(Vector a, Vector b) { return {_mm256_sub_epi64(a.low, b.low), _mm256_sub_epi64(a.high, b.high)}; }
  static __m256i max64(__m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b)); }
  static Vector max(Vector a, Vector b) { return {max64(a.low, b.low), max64(a.high, b.high)}; }
};

struct Avx2Bytes {  // 32 signed saturating bytes (H − 128)
  using Cell = ScoreBytes;
  static constexpr int lanes = kAvx2ScoreLanes;
  static constexpr int rows_per_sweep = 4;
  using Vector = __m256i;
  static Vector load(const Cell* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(Cell* p, Vector v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vector set1(Cell x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  static Vector adds(Vector a, Vector b) { return _mm256_adds_epi8(a, b); }
  static Vector subs(Vector a, Vector b) { return _mm256_subs_epi8(a, b); }
  static Vector max(Vector a, Vector b) { return _mm256_max_epi8(a, b); }
};

struct Avx2WordHalf {  // 16 signed saturating words (subtraction: of non-negative ones, floored at 0)
  using Cell = ScoreWords;
  static constexpr int lanes = kAvx2ScoreLanes / 2;
  using Vector = __m256i;
  static Vector load(const Cell* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(Cell* p, Vector v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vector set1(Cell x) { return _mm256_set1_epi16(x); }
  static Vector adds(Vector a, Vector b) { return _mm256_adds_epi16(a, b); }
  static Vector subs(Vector a, Vector b) { return _mm256_subs_epu16(a, b); }
  static Vector max(Vector a, Vector b) { return _mm256_max_epi16(a, b); }
};

}  // namespace

void run_score_bytes_avx2(const ScoreGroupJob<ScoreBytes>& job) { run_score_group<Avx2Bytes>(job); }
void run_score_words_avx2(const ScoreGroupJob<ScoreWords>& job) { run_score_group<Doubled<Avx2WordHalf, 2>>(job); }
void run_narrow_avx2(const LaneGroupJob<NarrowKeys>& job) { run_lane_group<Avx2Narrow>(job); }
void run_wide_avx2(const LaneGroupJob<WideKeys>& job) { run_lane_group<Avx2Wide>(job); }

}  // namespace swg
