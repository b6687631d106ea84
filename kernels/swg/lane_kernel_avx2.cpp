// AVX2 instance of the lane kernel (this file is compiled with -mavx2).
#include <immintrin.h>

#include "lane_kernel_impl.hpp"

namespace swg {
namespace {

struct Avx2 {
  static constexpr int lanes = kAvx2Lanes;
  using Vector = __m256i;
  static Vector load(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::int32_t* p, Vector v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vector set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static Vector add(Vector a, Vector b) { return _mm256_add_epi32(a, b); }
  static Vector sub(Vector a, Vector b) { return _mm256_sub_epi32(a, b); }
  static Vector max(Vector a, Vector b) { return _mm256_max_epi32(a, b); }
};

}  // namespace

void run_lane_group_avx2(const LaneGroupJob& job) { run_lane_group<Avx2>(job); }

}  // namespace swg
