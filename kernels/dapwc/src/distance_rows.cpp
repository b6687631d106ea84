#include "distance_rows.hpp"

#include <algorithm>
#include <cmath>

#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"

namespace dapwc {
namespace {

// Each pass step takes 2 rows × 4 clusters: one int16→double conversion of a
// distance serves 4 clusters and one column load serves 2 rows, with the 8
// accumulators held in vector registers (AVX2: 16 registers).
constexpr int kRowsPerGroup = 2;
constexpr int kColumnsPerGroup = 4;
// Below this many pairs a pass is too short to pay for waking the threads.
constexpr std::int64_t kParallelPairs = std::int64_t{1} << 18;

// acc[i][j] = Σ_β row_i[β]·column_j[β] over [0, n).
inline void dot_block(const std::int16_t* const rows[kRowsPerGroup],
                      const double* const columns[kColumnsPerGroup], std::int64_t n,
                      double acc[kRowsPerGroup][kColumnsPerGroup]) {
  const std::int16_t* r0 = rows[0];
  const std::int16_t* r1 = rows[1];
  const double* c0 = columns[0];
  const double* c1 = columns[1];
  const double* c2 = columns[2];
  const double* c3 = columns[3];
  double a00 = 0.0, a01 = 0.0, a02 = 0.0, a03 = 0.0, a10 = 0.0, a11 = 0.0, a12 = 0.0, a13 = 0.0;
#pragma omp simd reduction(+ : a00, a01, a02, a03, a10, a11, a12, a13)
  for (std::int64_t b = 0; b < n; ++b) {
    const double d0 = r0[b];
    const double d1 = r1[b];
    a00 += d0 * c0[b];
    a01 += d0 * c1[b];
    a02 += d0 * c2[b];
    a03 += d0 * c3[b];
    a10 += d1 * c0[b];
    a11 += d1 * c1[b];
    a12 += d1 * c2[b];
    a13 += d1 * c3[b];
  }
  acc[0][0] = a00, acc[0][1] = a01, acc[0][2] = a02, acc[0][3] = a03;
  acc[1][0] = a10, acc[1][1] = a11, acc[1][2] = a12, acc[1][3] = a13;
}

}  // namespace

void multiply_rows(const DistanceRows& distances, const double* columns, int width, double* out) {
  const std::int64_t n = distances.n;
  const std::int64_t rows = distances.block.rows();
  const std::int64_t row_groups = (rows + kRowsPerGroup - 1) / kRowsPerGroup;
#pragma omp parallel for schedule(static) if (rows * n >= kParallelPairs)
  for (std::int64_t g = 0; g < row_groups; ++g) {
    // A short last group repeats its last row (and a short column group its last
    // column), so that every (row, column) goes through the same lane of the same
    // code and gets the same rounding wherever it falls; the repeats are discarded.
    const std::int64_t first_row = g * kRowsPerGroup;
    const std::int16_t* group_rows[kRowsPerGroup];
    for (int i = 0; i < kRowsPerGroup; ++i) group_rows[i] = distances.row(std::min(first_row + i, rows - 1));
    for (int first_column = 0; first_column < width; first_column += kColumnsPerGroup) {
      const double* group_columns[kColumnsPerGroup];
      for (int j = 0; j < kColumnsPerGroup; ++j)
        group_columns[j] = columns + std::min(first_column + j, width - 1) * n;
      double acc[kRowsPerGroup][kColumnsPerGroup];
      dot_block(group_rows, group_columns, n, acc);
      for (int i = 0; i < kRowsPerGroup && first_row + i < rows; ++i)
        for (int j = 0; j < kColumnsPerGroup && first_column + j < width; ++j)
          out[(first_row + i) * width + first_column + j] = acc[i][j] / spidal::kMatrixScale;
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
