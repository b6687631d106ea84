#include "alignment.hpp"

#include <algorithm>
#include <cmath>

namespace mdsseries {
namespace {

using Matrix3 = std::array<double, 9>;

double dot_columns(const Matrix3& m, int p, int q) {
  return m[0 * 3 + p] * m[0 * 3 + q] + m[1 * 3 + p] * m[1 * 3 + q] + m[2 * 3 + p] * m[2 * 3 + q];
}

// Replaces columns p and q of m by c·m_p − s·m_q and s·m_p + c·m_q.
void rotate_columns(Matrix3& m, int p, int q, double c, double s) {
  for (int r = 0; r < 3; ++r) {
    const double a = m[r * 3 + p];
    const double b = m[r * 3 + q];
    m[r * 3 + p] = c * a - s * b;
    m[r * 3 + q] = s * a + c * b;
  }
}

std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

std::array<double, 3> normalised(std::array<double, 3> a) {
  const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (double& x : a) x /= norm;
  return a;
}

}  // namespace

Svd3 svd3(const Matrix3& a) {
  // Rotating a's columns until they are orthogonal gives a·v = u·diag(s), v the product
  // of the rotations; the columns' norms are s and their directions u.
  Matrix3 b = a;
  Matrix3 v = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  static constexpr int kPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (const auto& pair : kPairs) {
      const int p = pair[0], q = pair[1];
      const double alpha = dot_columns(b, p, p);
      const double beta = dot_columns(b, q, q);
      const double gamma = dot_columns(b, p, q);
      if (std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta) || gamma == 0.0) continue;
      rotated = true;
      const double zeta = (beta - alpha) / (2.0 * gamma);
      const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
      const double c = 1.0 / std::sqrt(1.0 + t * t);
      const double s = c * t;
      rotate_columns(b, p, q, c, s);
      rotate_columns(v, p, q, c, s);
    }
    if (!rotated) break;
  }
  Svd3 out;
  out.v = v;
  std::array<std::array<double, 3>, 3> columns;
  double largest = 0.0;
  for (int k = 0; k < 3; ++k) {
    out.s[k] = std::sqrt(dot_columns(b, k, k));
    largest = std::max(largest, out.s[k]);
  }
  // Columns with a (relatively) zero singular value get directions completing the others
  // to an orthonormal basis: any such choice is an exact SVD.
  std::array<bool, 3> kept{};
  for (int k = 0; k < 3; ++k) {
    kept[k] = out.s[k] > 1e-12 * largest;
    if (kept[k]) columns[k] = {b[0 * 3 + k] / out.s[k], b[1 * 3 + k] / out.s[k], b[2 * 3 + k] / out.s[k]};
  }
  const int rank = static_cast<int>(kept[0]) + kept[1] + kept[2];
  if (rank == 0) {
    columns = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  } else if (rank == 1) {
    const int k = kept[0] ? 0 : (kept[1] ? 1 : 2);
    const auto& u = columns[k];
    // A vector not parallel to u: the axis where u is smallest.
    std::array<double, 3> axis = {0, 0, 0};
    axis[std::fabs(u[0]) <= std::fabs(u[1]) && std::fabs(u[0]) <= std::fabs(u[2]) ? 0
         : std::fabs(u[1]) <= std::fabs(u[2])                                     ? 1
                                                                                   : 2] = 1.0;
    const auto second = normalised(cross(u, axis));
    const int m = (k + 1) % 3, l = (k + 2) % 3;
    columns[m] = second;
    columns[l] = cross(u, second);
  } else if (rank == 2) {
    const int missing = !kept[0] ? 0 : (!kept[1] ? 1 : 2);
    columns[missing] = normalised(cross(columns[(missing + 1) % 3], columns[(missing + 2) % 3]));
  }
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) out.u[r * 3 + k] = columns[k][r];
  }
  return out;
}

void Similarity::apply(double* points, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) {
    double* x = points + i * 3;
    const double p0 = x[0], p1 = x[1], p2 = x[2];
    for (int r = 0; r < 3; ++r) {
      x[r] = scale * (rotation[r * 3 + 0] * p0 + rotation[r * 3 + 1] * p1 + rotation[r * 3 + 2] * p2) + translation[r];
    }
  }
}

Similarity fit_similarity(const double* moving, const double* target, const double* weights, std::int64_t count) {
  double total = 0.0;
  std::array<double, 3> mean_f = {0, 0, 0}, mean_g = {0, 0, 0};
  for (std::int64_t i = 0; i < count; ++i) {
    const double w = weights ? weights[i] : 1.0;
    total += w;
    for (int k = 0; k < 3; ++k) {
      mean_f[k] += w * moving[i * 3 + k];
      mean_g[k] += w * target[i * 3 + k];
    }
  }
  Similarity out;
  if (!(total > 0.0)) return out;
  for (int k = 0; k < 3; ++k) {
    mean_f[k] /= total;
    mean_g[k] /= total;
  }
  // H = Σ wᵢ (fᵢ − f̄)(gᵢ − ḡ)ᵀ and Σ wᵢ‖fᵢ − f̄‖².
  Matrix3 h = {};
  double spread = 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double w = weights ? weights[i] : 1.0;
    double f[3], g[3];
    for (int k = 0; k < 3; ++k) {
      f[k] = moving[i * 3 + k] - mean_f[k];
      g[k] = target[i * 3 + k] - mean_g[k];
      spread += w * f[k] * f[k];
    }
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) h[r * 3 + c] += w * f[r] * g[c];
    }
  }
  if (spread > 0.0) {
    // H = U S Vᵀ: R = V Uᵀ, s = trace(S) / Σ wᵢ‖fᵢ − f̄‖².
    const Svd3 svd = svd3(h);
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        out.rotation[r * 3 + c] =
            svd.v[r * 3 + 0] * svd.u[c * 3 + 0] + svd.v[r * 3 + 1] * svd.u[c * 3 + 1] + svd.v[r * 3 + 2] * svd.u[c * 3 + 2];
      }
    }
    out.scale = (svd.s[0] + svd.s[1] + svd.s[2]) / spread;
  }
  for (int r = 0; r < 3; ++r) {
    out.translation[r] = mean_g[r] - out.scale * (out.rotation[r * 3 + 0] * mean_f[0] +
                                                  out.rotation[r * 3 + 1] * mean_f[1] +
                                                  out.rotation[r * 3 + 2] * mean_f[2]);
  }
  return out;
}

}  // namespace mdsseries
