#include "distance_rows.hpp"

#include <algorithm>
#include <cmath>

#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"

namespace dapwc {
namespace {

constexpr int kRowsPerGroup = 4;   // rows sharing each load of a column vector
constexpr std::int64_t kTile = 2048;  // columns per tile: 4 rows + 1 vector stay in L1
// Below this many pairs a pass is too short to pay for waking the threads.
constexpr std::int64_t kParallelPairs = std::int64_t{1} << 18;

// Adds Σ_β row_i[β]·column[β] over [begin, end) to acc[i] for four rows.
inline void accumulate_group(const std::int16_t* const rows[kRowsPerGroup], const double* column,
                             std::int64_t begin, std::int64_t end, double acc[kRowsPerGroup]) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  const std::int16_t* r0 = rows[0];
  const std::int16_t* r1 = rows[1];
  const std::int16_t* r2 = rows[2];
  const std::int16_t* r3 = rows[3];
#pragma omp simd reduction(+ : a0, a1, a2, a3)
  for (std::int64_t b = begin; b < end; ++b) {
    const double c = column[b];
    a0 += r0[b] * c;
    a1 += r1[b] * c;
    a2 += r2[b] * c;
    a3 += r3[b] * c;
  }
  acc[0] += a0;
  acc[1] += a1;
  acc[2] += a2;
  acc[3] += a3;
}

}  // namespace

void multiply_rows(const DistanceRows& distances, const double* columns, int width, double* out) {
  const std::int64_t n = distances.n;
  const std::int64_t rows = distances.block.rows();
  const std::int64_t groups = (rows + kRowsPerGroup - 1) / kRowsPerGroup;
#pragma omp parallel for schedule(static) if (rows * n >= kParallelPairs)
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t first = g * kRowsPerGroup;
    // A short last group repeats its last row so that every row goes through
    // the same four-lane code (and so gets the same rounding).
    const std::int16_t* group_rows[kRowsPerGroup];
    for (int i = 0; i < kRowsPerGroup; ++i)
      group_rows[i] = distances.row(std::min(first + i, rows - 1));
    for (int j = 0; j < width; ++j) {
      const double* column = columns + j * n;
      double acc[kRowsPerGroup] = {0.0, 0.0, 0.0, 0.0};
      for (std::int64_t begin = 0; begin < n; begin += kTile)
        accumulate_group(group_rows, column, begin, std::min(begin + kTile, n), acc);
      for (int i = 0; i < kRowsPerGroup && first + i < rows; ++i)
        out[(first + i) * width + j] = acc[i] / spidal::kMatrixScale;
    }
  }
}

MatrixSummary prepare_distances(DistanceRows& distances, RowExchange& exchange) {
  const std::int64_t n = distances.n;
  const spidal::RowBlock& block = distances.block;
  // Per row: sum of valid off-diagonal stored values, their count, missing count.
  // Integer-valued doubles below 2^53, so the gathered sums are exact.
  std::vector<double> local(block.rows() * 3, 0.0);
#pragma omp parallel for schedule(static) if (block.rows() * n >= kParallelPairs)
  for (std::int64_t r = 0; r < block.rows(); ++r) {
    std::int16_t* row = distances.stored.data() + r * n;
    const std::int64_t diagonal = block.begin + r;
    row[diagonal] = 0;
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
    local[r * 3] = static_cast<double>(sum);
    local[r * 3 + 1] = static_cast<double>(valid);
    local[r * 3 + 2] = static_cast<double>(missing);
  }
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
  if (missing > 0) {
    const auto fill = static_cast<std::int16_t>(std::lround(mean_stored));
    for (std::int16_t& value : distances.stored)
      if (value < 0) value = fill;
  }
  return {mean_stored / spidal::kMatrixScale, static_cast<std::int64_t>(missing)};
}

}  // namespace dapwc
