// Aligning a frame to the previous one: the weighted least-squares similarity
// transform (rotation or reflection, one scale, translation) that takes the frame's
// points onto the previous frame's, fitted on the symbols in both (Umeyama's closed
// form with reflections allowed; shared/docs/algorithms.md, "Aligning consecutive frames").
#pragma once

#include <array>
#include <cstdint>

namespace mdsseries {

struct Similarity {
  std::array<double, 9> rotation = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major, orthogonal (det ±1)
  double scale = 1.0;
  std::array<double, 3> translation = {0, 0, 0};

  // y = scale · rotation · x + translation, in place, for `count` points of 3 doubles.
  void apply(double* points, std::int64_t count) const;
};

// Minimises Σ wᵢ‖s·R·fᵢ + t − gᵢ‖² over R, s and t: `moving` are the fᵢ, `target` the
// gᵢ (count × 3 each), `weights` the wᵢ ≥ 0 (null: all 1). Points whose weights add up
// to zero, or that all coincide, give the translation between the centroids alone.
Similarity fit_similarity(const double* moving, const double* target, const double* weights, std::int64_t count);

// Singular value decomposition of a 3×3 matrix, a = u · diag(s) · vᵀ, by one-sided
// Jacobi rotations; u and v orthogonal (u completed to a basis where a is singular).
// Hand-written: it runs once per frame on a 3×3 matrix, which does not justify a
// LAPACK dependency in the kernels.
struct Svd3 {
  std::array<double, 9> u;
  std::array<double, 3> s;
  std::array<double, 9> v;
};
Svd3 svd3(const std::array<double, 9>& a);

}  // namespace mdsseries
