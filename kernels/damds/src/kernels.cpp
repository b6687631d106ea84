#include "kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "point_sums.hpp"

namespace damds {
namespace {

constexpr double kInverseScale = 1.0 / spidal::kMatrixScale;
// Pairs closer than this contribute nothing to B (the original's cut-off).
constexpr double kMinDistance = 1e-10;

// The reference pass: the pairs of the local rows' halves one by one, in double.
template <int L, bool Weighted>
void guttman_pairs(const LocalRows& rows, const Coordinates& x, double shift, PairStress add_stress,
                   PassSums& out) {
  const std::int64_t n = rows.n;
  ThreadPointSums sums(n, L);
  for_each_block(rows, [&](const LocalRows& part) {
#pragma omp parallel num_threads(sums.threads())
    {
      const int thread = omp_get_thread_num();
      double* point[L];
      for (int k = 0; k < L; ++k) point[k] = sums.axis(thread, k);
      // Continues the thread's sum over the previous blocks (one block in memory).
      double stress = sums.scalar(thread);
#pragma omp for schedule(static)
      for (std::int64_t local_row = 0; local_row < part.block.rows(); ++local_row) {
        const std::int64_t i = part.block.begin + local_row;
        const std::int16_t* distance = part.distance_row(local_row);
        const std::int16_t* weight = Weighted ? part.weight_row(local_row) : nullptr;
        for (std::int64_t t = 0; t < part.row_length(local_row); ++t) {
          const std::int64_t v = i + 1 + t;  // the column, as an index of the sums
          const std::int64_t j = v < n ? v : v - n;
          // Missing distances (negative) and, with weights, zero weights do not count.
          const double stored = distance[t];
          const double w = stored < 0.0 ? 0.0 : (Weighted ? weight[t] * kInverseScale : 1.0);
          const double target = std::max(stored * kInverseScale - shift, 0.0);
          double difference[L];
          double squared = 0.0;
          for (int k = 0; k < L; ++k) {
            difference[k] = x.axis(k)[i] - x.axis(k)[j];
            squared += difference[k] * difference[k];
          }
          const double d = std::sqrt(squared);
          if (add_stress == PairStress::add) stress += w * (target - d) * (target - d);
          // c_ij (x_i − x_j) goes to i, its opposite to j.
          const double coefficient = d > kMinDistance ? w * target / d : 0.0;
          for (int k = 0; k < L; ++k) {
            point[k][i] += coefficient * difference[k];
            point[k][v] -= coefficient * difference[k];
          }
        }
      }
      sums.scalar(thread) = stress;
    }
  });
  out.reset(n, L);
  sums.write(out.bx(), 1.0);
  out.stress() = sums.scalar_total();
}

// Columns per single-precision accumulation block of a row in the V·p product.
constexpr std::int64_t kProductBlock = 1024;

// The portable V·p product (laplacian_product_avx2 and _avx512 are the fast ones):
// single precision in an omp simd loop the compiler vectorises for the baseline CPU. A row's sums go to
// double every kProductBlock columns, the columns' straight away.
template <int L>
void laplacian_pairs(const LocalRows& rows, const Coordinates& p, PassSums& out) {
  const std::int64_t n = rows.n;
  // p twice over: index v and v + n are point v mod n, so a row's half is one range.
  std::vector<float> doubled(static_cast<std::size_t>(L) * 2 * n);
  for (int k = 0; k < L; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      doubled[k * 2 * n + j] = doubled[k * 2 * n + n + j] = static_cast<float>(p.axis(k)[j]);
    }
  }
  const float* axis[kMaxDimension] = {};
  for (int k = 0; k < L; ++k) axis[k] = doubled.data() + k * 2 * n;
  ThreadPointSums sums(n, L);
  for_each_block(rows, [&](const LocalRows& part) {
#pragma omp parallel num_threads(sums.threads())
    {
      const int thread = omp_get_thread_num();
      double* point[kMaxDimension] = {};
      for (int k = 0; k < L; ++k) point[k] = sums.axis(thread, k);
#pragma omp for schedule(static)
      for (std::int64_t local_row = 0; local_row < part.block.rows(); ++local_row) {
        const std::int64_t i = part.block.begin + local_row;
        // Entry t of the row is the column v = i + 1 + t: shift the arrays so t indexes them.
        const std::int16_t* weight = part.weight_row(local_row);
        const float* a0 = axis[0] + i + 1;
        const float* a1 = L > 1 ? axis[1] + i + 1 : nullptr;
        const float* a2 = L > 2 ? axis[2] + i + 1 : nullptr;
        const float* a3 = L > 3 ? axis[3] + i + 1 : nullptr;
        double* c0 = point[0] + i + 1;
        double* c1 = L > 1 ? point[1] + i + 1 : nullptr;
        double* c2 = L > 2 ? point[2] + i + 1 : nullptr;
        double* c3 = L > 3 ? point[3] + i + 1 : nullptr;
        float pi[kMaxDimension] = {};
        for (int k = 0; k < L; ++k) pi[k] = axis[k][i];
        const std::int64_t length = part.row_length(local_row);
        for (std::int64_t block = 0; block < length; block += kProductBlock) {
          const std::int64_t block_end = std::min(length, block + kProductBlock);
          // w_ij (p_i − p_j) in stored weight units: to row i, its opposite to column j.
          float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
          for (std::int64_t t = block; t < block_end; ++t) {
            const float w = weight[t];
            const float t0 = w * (pi[0] - a0[t]);
            s0 += t0;
            c0[t] -= t0;
            if constexpr (L > 1) {
              const float t1 = w * (pi[1] - a1[t]);
              s1 += t1;
              c1[t] -= t1;
            }
            if constexpr (L > 2) {
              const float t2 = w * (pi[2] - a2[t]);
              s2 += t2;
              c2[t] -= t2;
            }
            if constexpr (L > 3) {
              const float t3 = w * (pi[3] - a3[t]);
              s3 += t3;
              c3[t] -= t3;
            }
          }
          point[0][i] += s0;
          if constexpr (L > 1) point[1][i] += s1;
          if constexpr (L > 2) point[2][i] += s2;
          if constexpr (L > 3) point[3][i] += s3;
        }
      }
    }
  });
  out.reset(n, L);
  sums.write(out.bx(), kInverseScale);
}

}  // namespace

void Coordinates::assign_rows(const std::vector<double>& points) {
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < dim; ++k) {
      values[static_cast<std::size_t>(k) * n + i] = points[i * dim + k];
    }
  }
}

spidal::Isa select_pass_isa(const std::string& requested) {
  static constexpr spidal::Isa kImplemented[] = {spidal::Isa::generic, spidal::Isa::avx2, spidal::Isa::avx512};
  return spidal::select_isa(requested, kImplemented);
}

void guttman_pass(spidal::Isa isa, const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                  PassSums& out) {
  switch (isa) {
    case spidal::Isa::avx512: return guttman_pass_avx512(rows, x, shift, stress, out);
    case spidal::Isa::avx2: return guttman_pass_avx2(rows, x, shift, stress, out);
    case spidal::Isa::generic: break;
  }
  guttman_pass_reference(rows, x, shift, stress, out);
}

void guttman_pass_reference(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                            PassSums& out) {
  out.reset(rows.n, x.dim);
  with_dimension(x.dim, [&]<int L>() {
    if (rows.weighted()) {
      guttman_pairs<L, true>(rows, x, shift, stress, out);
    } else {
      guttman_pairs<L, false>(rows, x, shift, stress, out);
    }
  });
}

void laplacian_product(spidal::Isa isa, const LocalRows& rows, const Coordinates& p, PassSums& out) {
  if (!rows.weighted()) throw std::logic_error("laplacian_product needs weights");
  switch (isa) {
    case spidal::Isa::avx512: return laplacian_product_avx512(rows, p, out);
    case spidal::Isa::avx2: return laplacian_product_avx2(rows, p, out);
    case spidal::Isa::generic: break;
  }
  laplacian_product_reference(rows, p, out);
}

void laplacian_product_reference(const LocalRows& rows, const Coordinates& p, PassSums& out) {
  with_dimension(p.dim, [&]<int L>() { laplacian_pairs<L>(rows, p, out); });
}

}  // namespace damds
