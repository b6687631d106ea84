#include "distance_rows.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "spidal/cpu.hpp"
#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"
#include "row_stream.hpp"

namespace dapwc {
namespace {

// The pass works in single precision on blocks of kColumnBlock entries: a row's
// block of distances is converted to float once and serves every column, and a
// block of up to 8 columns (16 KB) stays in L1 for all the rows of a tile. Each
// column's float sum over a block goes to double, so a result carries a relative
// error of ~1e-7 (the E/M convergence test works at 1e-3).
constexpr std::int64_t kColumnBlock = 512;
constexpr std::int64_t kRowTile = 16;
// Below this many pairs a pass is too short to pay for waking the threads.
constexpr std::int64_t kParallelPairs = std::int64_t{1} << 18;

// acc[j] += Σ_b distance[b]·columns[j][b] over [0, length) for C columns, C
// float accumulators held in vector registers.
template <int C>
inline void dot_block(const float* distance, const float* const* columns, std::int64_t length, double* acc) {
  // Named pointers and sums: GCC vectorises those (through the array it gathers).
  const float* c[8];
  for (int j = 0; j < 8; ++j) c[j] = columns[std::min(j, C - 1)];
  const float *c0 = c[0], *c1 = c[1], *c2 = c[2], *c3 = c[3], *c4 = c[4], *c5 = c[5], *c6 = c[6], *c7 = c[7];
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
#pragma omp simd reduction(+ : a0, a1, a2, a3, a4, a5, a6, a7)
  for (std::int64_t b = 0; b < length; ++b) {
    const float d = distance[b];
    a0 += d * c0[b];
    if constexpr (C > 1) a1 += d * c1[b];
    if constexpr (C > 2) a2 += d * c2[b], a3 += d * c3[b];
    if constexpr (C > 4) a4 += d * c4[b], a5 += d * c5[b], a6 += d * c6[b], a7 += d * c7[b];
  }
  const float sums[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  for (int j = 0; j < C; ++j) acc[j] += sums[j];
}

// Columns [first, first + count) with count ∈ {1, 2, 4, 8}: the grouping depends on
// the width alone, so every (row, column) gets the same rounding on any rank or thread.
inline void dot_group(int count, const float* distance, const float* const* columns, std::int64_t length,
                      double* acc) {
  switch (count) {
    case 8: return dot_block<8>(distance, columns, length, acc);
    case 4: return dot_block<4>(distance, columns, length, acc);
    case 2: return dot_block<2>(distance, columns, length, acc);
    default: return dot_block<1>(distance, columns, length, acc);
  }
}

inline int group_size(int remaining) { return remaining >= 8 ? 8 : remaining >= 4 ? 4 : remaining >= 2 ? 2 : 1; }

// One thread's share of the pass (an orphaned omp for over the row tiles).
// `single` is `columns` in float. Always inlined, so each variant below compiles the
// whole loop nest, dot_block included, for its own instruction set.
[[gnu::always_inline]] inline void pass_share(const DistanceRows& distances, const float* single, int width,
                                              double* out) {
  const std::int64_t n = distances.n;
  const std::int64_t rows = distances.block.rows();
  const std::int64_t tiles = (rows + kRowTile - 1) / kRowTile;
  std::vector<double> sums(static_cast<std::size_t>(kRowTile) * width);
  std::vector<float> distance(kColumnBlock);
  std::vector<const float*> block_columns(width);
#pragma omp for schedule(static)
  for (std::int64_t tile = 0; tile < tiles; ++tile) {
    const std::int64_t tile_begin = tile * kRowTile;
    const std::int64_t tile_rows = std::min(rows, tile_begin + kRowTile) - tile_begin;
    std::fill(sums.begin(), sums.end(), 0.0);
    for (std::int64_t begin = 0; begin < n; begin += kColumnBlock) {
      const std::int64_t length = std::min(n, begin + kColumnBlock) - begin;
      for (int j = 0; j < width; ++j) block_columns[j] = single + j * n + begin;
      for (std::int64_t r = 0; r < tile_rows; ++r) {
        const std::int16_t* row = distances.row(tile_begin + r) + begin;
        for (std::int64_t b = 0; b < length; ++b) distance[b] = row[b];
        for (int first = 0; first < width; first += group_size(width - first))
          dot_group(group_size(width - first), distance.data(), block_columns.data() + first, length,
                    sums.data() + r * width + first);
      }
    }
    for (std::int64_t r = 0; r < tile_rows; ++r)
      for (int j = 0; j < width; ++j) out[(tile_begin + r) * width + j] = sums[r * width + j] / spidal::kMatrixScale;
  }
}

// The build is for any x86-64 (no -march=native: Slurm nodes may be older than the
// build machine); only these functions use AVX2 + FMA, picked at run time.
void pass_share_portable(const DistanceRows& distances, const float* single, int width, double* out) {
  pass_share(distances, single, width, out);
}
[[gnu::target("avx2,fma")]] void pass_share_avx2(const DistanceRows& distances, const float* single, int width,
                                                double* out) {
  pass_share(distances, single, width, out);
}

}  // namespace

PassVariant fastest_pass_variant() {
  static const PassVariant fastest =
      spidal::cpu_supports(spidal::Isa::avx2) ? PassVariant::avx2 : PassVariant::portable;
  return fastest;
}

void multiply_rows(const DistanceRows& distances, const double* columns, int width, double* out,
                   PassVariant variant) {
  std::vector<float> single(static_cast<std::size_t>(width) * distances.n);
  for (std::size_t e = 0; e < single.size(); ++e) single[e] = static_cast<float>(columns[e]);
  const auto share = variant == PassVariant::avx2 ? pass_share_avx2 : pass_share_portable;
  for_each_block(distances, [&](const DistanceRows& part) {
    double* part_out = out + (part.block.begin - distances.block.begin) * width;
#pragma omp parallel if (part.block.rows() * part.n >= kParallelPairs)
    share(part, single.data(), width, part_out);
  });
}

void clean_rows(DistanceRows& rows, std::optional<std::int16_t> fill) {
  for (std::int64_t r = 0; r < rows.block.rows(); ++r) rows.stored[r * rows.n + rows.block.begin + r] = 0;
  if (fill) std::replace_if(rows.stored.begin(), rows.stored.end(), [](std::int16_t v) { return v < 0; }, *fill);
}

MatrixSummary prepare_distances(DistanceRows& distances, RowExchange& exchange) {
  const std::int64_t n = distances.n;
  const spidal::RowBlock& block = distances.block;
  // Per row: sum of valid off-diagonal stored values, their count, missing count.
  // Integer-valued doubles below 2^53, so the gathered sums are exact.
  std::vector<double> local(block.rows() * 3, 0.0);
  for_each_block(distances, [&](const DistanceRows& part) {
    double* part_local = local.data() + (part.block.begin - block.begin) * 3;
#pragma omp parallel for schedule(static) if (part.block.rows() * n >= kParallelPairs)
    for (std::int64_t r = 0; r < part.block.rows(); ++r) {
      const std::int16_t* row = part.row(r);
      const std::int64_t diagonal = part.block.begin + r;
      std::int64_t sum = 0, valid = 0, missing = 0;
      for (std::int64_t b = 0; b < n; ++b) {
        if (b == diagonal) continue;
        if (row[b] < 0) {
          ++missing;
        } else {
          sum += row[b];
          ++valid;
        }
      }
      part_local[r * 3] = static_cast<double>(sum);
      part_local[r * 3 + 1] = static_cast<double>(valid);
      part_local[r * 3 + 2] = static_cast<double>(missing);
    }
  });
  std::vector<double> full(n * 3);
  exchange.allgather(local.data(), full.data(), 3);
  double sum = 0.0, valid = 0.0, missing = 0.0;
  for (std::int64_t a = 0; a < n; ++a) {
    sum += full[a * 3];
    valid += full[a * 3 + 1];
    missing += full[a * 3 + 2];
  }
  if (valid == 0.0)
    throw spidal::InputError("the distance matrix has no valid (non-negative) off-diagonal distance");
  if (sum == 0.0) throw spidal::InputError("all distances are zero: there is nothing to cluster");
  const double mean_stored = sum / valid;
  const auto fill = static_cast<std::int16_t>(std::lround(mean_stored));
  if (distances.stream) {
    distances.stream->set_fill(fill);  // applied to each block as it is read
  } else {
    clean_rows(distances, fill);
  }
  return {mean_stored / spidal::kMatrixScale, static_cast<std::int64_t>(missing)};
}

}  // namespace dapwc
