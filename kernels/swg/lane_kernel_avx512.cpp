// AVX-512 instance of the lane kernel (this file is compiled with -mavx512f).
#include <immintrin.h>

#include "lane_kernel_impl.hpp"

namespace swg {
namespace {

struct Avx512 {
  static constexpr int lanes = kAvx512Lanes;
  using Vector = __m512i;
  static Vector load(const std::int32_t* p) { return _mm512_load_si512(p); }
  static void store(std::int32_t* p, Vector v) { _mm512_store_si512(p, v); }
  static Vector set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static Vector add(Vector a, Vector b) { return _mm512_add_epi32(a, b); }
  static Vector sub(Vector a, Vector b) { return _mm512_sub_epi32(a, b); }
  static Vector max(Vector a, Vector b) { return _mm512_max_epi32(a, b); }
};

}  // namespace

void run_lane_group_avx512(const LaneGroupJob& job) { run_lane_group<Avx512>(job); }

}  // namespace swg
