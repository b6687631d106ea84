// The two passes over a rank's rows that dominate DA-MDS time. Both stream the
// int16 rows once and never build a dense B or V.
#pragma once

#include <cstdint>
#include <vector>

#include "local_rows.hpp"

namespace damds {

// Point coordinates as `dim` arrays of n (structure of arrays), so the inner loop
// over columns reads each axis contiguously.
struct Coordinates {
  int dim = 0;
  std::int64_t n = 0;
  std::vector<double> values;        // axis k at values[k * n]
  std::vector<float> single_values;  // the same in single precision, for the vectorised pass

  Coordinates(int dim, std::int64_t n)
      : dim(dim), n(n), values(static_cast<std::size_t>(dim) * n), single_values(values.size()) {}
  const double* axis(int k) const { return values.data() + static_cast<std::size_t>(k) * n; }
  const float* single_axis(int k) const { return single_values.data() + static_cast<std::size_t>(k) * n; }
  // From n × dim row-major points.
  void assign_rows(const std::vector<double>& points);
};

// Fused Guttman pass at temperature shift s = T·√(2L): for every local row i writes
// (B(X)·X)_i into bx (rows × dim, row-major) and the row's un-normalised stress
// Σ_j w_ij (δ̂_ij − d_ij)² into row_stress. Each row is computed by one thread, so
// the results do not depend on the thread count. Rows as load_local_rows makes
// them: without weights no distance is missing (weights are synthesised then),
// with weights the missing pairs have weight 0.
// Runs guttman_pass_avx2 when the CPU has AVX2 and FMA, the reference otherwise.
void guttman_pass(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx,
                  std::vector<double>& row_stress);
// Portable double precision (sqrt and division): the reference of the tests.
void guttman_pass_reference(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx,
                            std::vector<double>& row_stress);
// Single precision in AVX2 + FMA (kernels_avx2.cpp, sums in double per 1024 columns).
void guttman_pass_avx2(const LocalRows& rows, const Coordinates& x, double shift, std::vector<double>& bx,
                       std::vector<double>& row_stress);
bool avx2_supported();

// Σ_j w_ij of each local row (the diagonal of V).
std::vector<double> row_weight_sums(const LocalRows& rows);

// out = ((V + I)·p) for the local rows (rows × dim, row-major); needs weights.
void laplacian_product(const LocalRows& rows, const std::vector<double>& weight_sums, const Coordinates& p,
                       std::vector<double>& out);

}  // namespace damds
