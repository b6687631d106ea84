#include "kernels.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace damds {
namespace {

constexpr double kInverseScale = 1.0 / spidal::kMatrixScale;
// Pairs closer than this contribute nothing to B (the original's cut-off).
constexpr double kMinDistance = 1e-10;

// The per-axis sums are named scalars because GCC vectorises `omp simd`
// reductions of scalars but not of arrays; L is a template parameter so that the
// per-axis loops unroll completely (GCC vectorises the column loop only then).
template <int L, bool Weighted>
double guttman_rows(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx) {
  const std::int64_t n = rows.n;
  const std::int64_t row_count = rows.block.rows();
  const double* axes[kMaxDimension] = {};
  for (int k = 0; k < L; ++k) axes[k] = x.axis(k);
  std::vector<double> row_stress(static_cast<std::size_t>(row_count));

#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t local_row = 0; local_row < row_count; ++local_row) {
    const std::int64_t i = rows.block.begin + local_row;
    const std::int16_t* distance = rows.distance_row(local_row);
    const std::int16_t* weight = Weighted ? rows.weight_row(local_row) : nullptr;
    double xi[kMaxDimension] = {};
    for (int k = 0; k < L; ++k) xi[k] = axes[k][i];
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
    // (B X)_i = Σ_j c_ij (x_i − x_j) with c_ij = w_ij δ̂_ij / d_ij.
    const double sums[kMaxDimension] = {s0, s1, s2, s3};
    for (int k = 0; k < L; ++k) bx[local_row * L + k] = xi[k] * coefficient_sum - sums[k];
    row_stress[local_row] = stress;
  }
  // Summed in row order so the result does not depend on the thread count.
  return std::accumulate(row_stress.begin(), row_stress.end(), 0.0);
}

template <int L>
void laplacian_rows(const LocalRows& rows, const std::vector<double>& weight_sums, const Coordinates& p,
                    std::vector<double>& out) {
  const std::int64_t n = rows.n;
  const double* axes[kMaxDimension] = {};
  for (int k = 0; k < L; ++k) axes[k] = p.axis(k);

#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t local_row = 0; local_row < rows.block.rows(); ++local_row) {
    const std::int64_t i = rows.block.begin + local_row;
    const std::int16_t* weight = rows.weight_row(local_row);
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (std::int64_t j = 0; j < n; ++j) {
      const double w = weight[j] * kInverseScale;
      s0 += w * axes[0][j];
      if constexpr (L > 1) s1 += w * axes[1][j];
      if constexpr (L > 2) s2 += w * axes[2][j];
      if constexpr (L > 3) s3 += w * axes[3][j];
    }
    // ((V + I) p)_i = (1 + Σ_j w_ij) p_i − Σ_j w_ij p_j  (the diagonal weight is 0).
    const double sums[kMaxDimension] = {s0, s1, s2, s3};
    for (int k = 0; k < L; ++k) out[local_row * L + k] = (1.0 + weight_sums[local_row]) * axes[k][i] - sums[k];
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
    for (int k = 0; k < dim; ++k) values[static_cast<std::size_t>(k) * n + i] = points[i * dim + k];
  }
}

double guttman_pass(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx) {
  bx.resize(static_cast<std::size_t>(rows.block.rows()) * x.dim);
  return with_dimension(x.dim, [&]<int L>() {
    return rows.weighted() ? guttman_rows<L, true>(rows, x, shift, bx) : guttman_rows<L, false>(rows, x, shift, bx);
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
