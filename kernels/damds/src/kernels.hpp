// The two passes over a rank's pairs that dominate DA-MDS time. Both stream the
// int16 halves once, add each pair's term to both of its points, and never build a
// dense B or V.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "local_rows.hpp"
#include "spidal/cpu.hpp"

namespace damds {

// Point coordinates as `dim` arrays of n (structure of arrays), so the inner loop
// over columns reads each axis contiguously.
struct Coordinates {
  int dim = 0;
  std::int64_t n = 0;
  std::vector<double> values;        // axis k at values[k * n]

  Coordinates(int dim, std::int64_t n)
      : dim(dim), n(n), values(static_cast<std::size_t>(dim) * n) {}
  const double* axis(int k) const { return values.data() + static_cast<std::size_t>(k) * n; }
  // From n × dim row-major points.
  void assign_rows(const std::vector<double>& points);
};

// What a pass adds up over the pairs it is given: a vector per point (n × dim,
// row-major: (B(X)·X)_j, or (V·p)_j) and, for the Guttman pass, the un-normalised
// stress Σ w_ij (δ̂_ij − d_ij)² over the unordered pairs. Each rank's pass covers its
// rows' pairs; the element-wise sum over all ranks (one Allreduce) is the whole
// matrix's result.
struct PassSums {
  std::vector<double> values;  // n × dim, then the stress

  void reset(std::int64_t n, int dim) { values.assign(static_cast<std::size_t>(n) * dim + 1, 0.0); }
  double* bx() { return values.data(); }
  const double* bx() const { return values.data(); }
  double& stress() { return values.back(); }
  double stress() const { return values.back(); }
};

// Whether a Guttman pass adds up the stress pair by pair, or leaves PassSums::stress()
// at 0 because the caller derives it (Smacof does with unit weights): two fewer vector
// operations per 8 pairs in the AVX2 pass.
enum class PairStress { add, skip };

// Fused Guttman pass at temperature shift s = T·√(2L) over this rank's pairs:
// (B X)_i = Σ_j c_ij (x_i − x_j) with c_ij = w_ij δ̂_ij / d_ij, and the stress. Rows
// as load_local_rows makes them: without weights no distance is missing (weights are
// synthesised then), with weights the missing pairs have weight 0.
// Runs `isa`'s variant (select_pass_isa).
void guttman_pass(spidal::Isa isa, const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                  PassSums& out);
// Portable double precision (sqrt and division), pair by pair: the definition the
// tests hold the fast passes to.
void guttman_pass_reference(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                            PassSums& out);
// Single precision in AVX2 + FMA and in AVX-512 (kernels_avx2.cpp, kernels_avx512.cpp,
// one source in simd_pass.hpp), sums to double per 512 columns.
void guttman_pass_avx2(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress, PassSums& out);
void guttman_pass_avx512(const LocalRows& rows, const Coordinates& x, double shift, PairStress stress,
                         PassSums& out);
// The variant of guttman_pass and laplacian_product that --kernel names among generic
// (the references), avx2 and avx512; "auto" is the widest this CPU has (spidal/cpu.hpp).
// Throws std::invalid_argument for a name this CPU or damds does not have.
spidal::Isa select_pass_isa(const std::string& requested);

// This rank's share of V·p (V the weighted Laplacian: (V·p)_i = Σ_j w_ij (p_i − p_j)) for
// every point, in out.bx(); needs weights. Single precision (CG stops at a relative r'r
// of 1e-5 anyway), in `isa`'s variant.
void laplacian_product(spidal::Isa isa, const LocalRows& rows, const Coordinates& p, PassSums& out);
void laplacian_product_reference(const LocalRows& rows, const Coordinates& p, PassSums& out);
void laplacian_product_avx2(const LocalRows& rows, const Coordinates& p, PassSums& out);
void laplacian_product_avx512(const LocalRows& rows, const Coordinates& p, PassSums& out);

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

}  // namespace damds
