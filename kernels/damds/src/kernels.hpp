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

// What the fused Guttman pass adds up over the pairs it is given: (B(X)·X)_j for
// every point j and the un-normalised stress Σ w_ij (δ̂_ij − d_ij)² over ordered
// pairs. Each rank's pass covers a share of the pairs; the element-wise sum over
// all ranks (one Allreduce) is the whole matrix's B(X)X and stress.
struct PassSums {
  std::vector<double> values;  // n × dim of B(X)X (row-major), then the stress

  void reset(std::int64_t n, int dim) { values.assign(static_cast<std::size_t>(n) * dim + 1, 0.0); }
  double* bx() { return values.data(); }
  const double* bx() const { return values.data(); }
  double& stress() { return values.back(); }
  double stress() const { return values.back(); }
};

// Fused Guttman pass at temperature shift s = T·√(2L) over this rank's rows,
// never building a dense B: (B X)_i = Σ_j c_ij (x_i − x_j) with c_ij = w_ij δ̂_ij / d_ij.
// Rows as load_local_rows makes them: without weights no distance is missing
// (weights are synthesised then), with weights the missing pairs have weight 0.
// Runs guttman_pass_avx2 when the CPU has AVX2 and FMA, the reference otherwise.
void guttman_pass(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out);
// Portable double precision (sqrt and division), row by row over the whole of every
// local row: the definition the tests hold the fast pass to.
void guttman_pass_reference(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out);
// Single precision in AVX2 + FMA (kernels_avx2.cpp). The matrix is symmetric, so it
// visits each unordered pair once, from the row whose circular upper half holds it
// (row i: columns i+1 … i+⌊(n−1)/2⌋ mod n, and i + n/2 for i < n/2 when n is even),
// and adds the pair's term to both points: half the reads and arithmetic of a
// row-by-row pass. Sums go to double per 512 columns and, per thread, per point;
// the result depends on the thread and rank count only through rounding.
void guttman_pass_avx2(const LocalRows& rows, const Coordinates& x, double shift, PassSums& out);
bool avx2_supported();

// Σ_j w_ij of each local row (the diagonal of V).
std::vector<double> row_weight_sums(const LocalRows& rows);

// out = ((V + I)·p) for the local rows (rows × dim, row-major); needs weights.
void laplacian_product(const LocalRows& rows, const std::vector<double>& weight_sums, const Coordinates& p,
                       std::vector<double>& out);

}  // namespace damds
