#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace damds {
namespace {

constexpr double kInverseScale = 1.0 / spidal::kMatrixScale;
// Pairs closer than this contribute nothing to B (the original's cut-off).
constexpr double kMinDistance = 1e-10;

// Per-row sums of the fused pass: Σ_j w(δ̂ − d)², Σ_j c_ij and Σ_j c_ij x_j per axis,
// with c_ij = w_ij δ̂_ij / d_ij.
struct RowTerms {
  double stress = 0.0;
  double coefficient_sum = 0.0;
  double weighted[kMaxDimension] = {};
};

// The reference terms of one row in double precision. The per-axis sums are
// named scalars because GCC vectorises `omp simd` reductions of scalars but not of
// arrays; L is a template parameter so that the per-axis loops unroll completely
// (GCC vectorises the column loop only then).
template <int L, bool Weighted>
RowTerms row_terms(const std::int16_t* distance, const std::int16_t* weight, const double* const* axes,
                   const double* xi, double shift, std::int64_t n) {
  double stress = 0.0;
  double coefficient_sum = 0.0;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma omp simd reduction(+ : stress, coefficient_sum, s0, s1, s2, s3)
  for (std::int64_t j = 0; j < n; ++j) {
    const double stored = distance[j];
    // Missing distances (negative) and, with weights, zero weights do not count.
    double w = Weighted ? weight[j] * kInverseScale : 1.0;
    w = stored >= 0.0 ? w : 0.0;
    double target = stored * kInverseScale - shift;
    target = target > 0.0 ? target : 0.0;
    double squared = 0.0;
#pragma GCC unroll 4
    for (int k = 0; k < L; ++k) {
      const double difference = xi[k] - axes[k][j];
      squared += difference * difference;
    }
    const double d = std::sqrt(squared);
    // Branch-free so the loop vectorises: divide by a safe value, then select.
    const bool separated = d > kMinDistance;
    const double inverse = separated ? 1.0 / (separated ? d : 1.0) : 0.0;
    const double error = target - d;
    stress += w * error * error;
    const double coefficient = w * target * inverse;
    coefficient_sum += coefficient;
    s0 += coefficient * axes[0][j];
    if constexpr (L > 1) s1 += coefficient * axes[1][j];
    if constexpr (L > 2) s2 += coefficient * axes[2][j];
    if constexpr (L > 3) s3 += coefficient * axes[3][j];
  }
  return {stress, coefficient_sum, {s0, s1, s2, s3}};
}

template <int L, bool Weighted>
void guttman_rows(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out) {
  const std::int64_t n = rows.n;
  const std::int64_t row_count = rows.block.rows();
  const double* axes[kMaxDimension] = {};
  for (int k = 0; k < L; ++k) axes[k] = x.axis(k);
  std::vector<double> row_stress(static_cast<std::size_t>(row_count));
  double* bx = out.bx();

#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t local_row = 0; local_row < row_count; ++local_row) {
    const std::int64_t i = rows.block.begin + local_row;
    const std::int16_t* distance = rows.distance_row(local_row);
    const std::int16_t* weight = Weighted ? rows.weight_row(local_row) : nullptr;
    double xi[kMaxDimension] = {};
    for (int k = 0; k < L; ++k) xi[k] = axes[k][i];
    const RowTerms terms = row_terms<L, Weighted>(distance, weight, axes, xi, shift, n);
    // (B X)_i = Σ_j c_ij (x_i − x_j).
    for (int k = 0; k < L; ++k) bx[i * L + k] = xi[k] * terms.coefficient_sum - terms.weighted[k];
    row_stress[local_row] = terms.stress;
  }
  for (const double value : row_stress) out.stress() += value;  // in row order
}

// Columns per single-precision accumulation block in the (V + I)·p product.
constexpr std::int64_t kProductBlock = 1024;

// The product streams the weights once per CG step; in single precision the
// compiler's omp simd loop handles eight columns per instruction. Block sums go to
// double every kProductBlock columns.
template <int L>
void laplacian_rows(const LocalRows& rows, const std::vector<double>& weight_sums, const Coordinates& p,
                    std::vector<double>& out) {
  const std::int64_t n = rows.n;
  const float* axes[kMaxDimension] = {};
  for (int k = 0; k < L; ++k) axes[k] = p.single_axis(k);

#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t local_row = 0; local_row < rows.block.rows(); ++local_row) {
    const std::int64_t i = rows.block.begin + local_row;
    const std::int16_t* weight = rows.weight_row(local_row);
    double sums[kMaxDimension] = {};
    for (std::int64_t block = 0; block < n; block += kProductBlock) {
      const std::int64_t block_end = std::min(n, block + kProductBlock);
      // Sums of stored weight × coordinate; the 1/32767 scale is applied once per row.
      float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
      for (std::int64_t j = block; j < block_end; ++j) {
        const float stored = weight[j];
        s0 += stored * axes[0][j];
        if constexpr (L > 1) s1 += stored * axes[1][j];
        if constexpr (L > 2) s2 += stored * axes[2][j];
        if constexpr (L > 3) s3 += stored * axes[3][j];
      }
      sums[0] += s0;
      sums[1] += s1;
      sums[2] += s2;
      sums[3] += s3;
    }
    // ((V + I) p)_i = (1 + Σ_j w_ij) p_i − Σ_j w_ij p_j  (the diagonal weight is 0).
    for (int k = 0; k < L; ++k) {
      out[local_row * L + k] = (1.0 + weight_sums[local_row]) * p.axis(k)[i] - sums[k] * kInverseScale;
    }
  }
}

// Calls kernel.template operator()<L>() for the run-time dimension.
template <typename Kernel>
auto with_dimension(int dim, Kernel&& kernel) {
  switch (dim) {
    case 1: return kernel.template operator()<1>();
    case 2: return kernel.template operator()<2>();
    case 3: return kernel.template operator()<3>();
    case 4: return kernel.template operator()<4>();
    default: throw std::invalid_argument("dimension must be 1.." + std::to_string(kMaxDimension));
  }
}

}  // namespace

void Coordinates::assign_rows(const std::vector<double>& points) {
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < dim; ++k) {
      values[static_cast<std::size_t>(k) * n + i] = points[i * dim + k];
      single_values[static_cast<std::size_t>(k) * n + i] = static_cast<float>(points[i * dim + k]);
    }
  }
}

bool avx2_supported() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

void guttman_pass(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out) {
  static const bool use_avx2 = avx2_supported();
  if (use_avx2) {
    guttman_pass_avx2(rows, x, shift, out);
  } else {
    guttman_pass_reference(rows, x, shift, out);
  }
}

void guttman_pass_reference(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out) {
  out.reset(rows.n, x.dim);
  with_dimension(x.dim, [&]<int L>() {
    if (rows.weighted()) {
      guttman_rows<L, true>(rows, x, shift, out);
    } else {
      guttman_rows<L, false>(rows, x, shift, out);
    }
  });
}

std::vector<double> row_weight_sums(const LocalRows& rows) {
  std::vector<double> sums(static_cast<std::size_t>(rows.block.rows()));
#pragma omp parallel for schedule(static)
  for (std::int64_t local_row = 0; local_row < rows.block.rows(); ++local_row) {
    const std::int16_t* weight = rows.weight_row(local_row);
    std::int64_t total = 0;  // exact: at most n × 32767
    for (std::int64_t j = 0; j < rows.n; ++j) total += weight[j];
    sums[local_row] = total * kInverseScale;
  }
  return sums;
}

void laplacian_product(const LocalRows& rows, const std::vector<double>& weight_sums, const Coordinates& p,
                       std::vector<double>& out) {
  if (!rows.weighted()) throw std::logic_error("laplacian_product needs weights");
  out.resize(static_cast<std::size_t>(rows.block.rows()) * p.dim);
  with_dimension(p.dim, [&]<int L>() { laplacian_rows<L>(rows, weight_sums, p, out); });
}

}  // namespace damds
