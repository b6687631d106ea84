#include "splitting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "symmetric_eigen.hpp"

namespace dapwc {
namespace {

// A reproducible start vector component in [−1, 1] (splitmix64 of index and
// cluster), the same on every rank.
double start_component(std::int64_t point, int cluster) {
  std::uint64_t x = static_cast<std::uint64_t>(point) * 0x9E3779B97F4A7C15ull +
                    static_cast<std::uint64_t>(cluster + 1) * 0xD1B54A32D192ED03ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// H·v for tested clusters, with one shared pass over the distances.
class Hessians {
 public:
  Hessians(const DistanceRows& distances, RowExchange& exchange, const ClusterState& state,
           std::vector<int> clusters)
      : distances_(distances), exchange_(exchange), state_(state), clusters_(std::move(clusters)) {}

  // hv[c] = H_c·v[c] for each c in `which` (indexes into the tested clusters).
  void apply(const std::vector<int>& which, const std::vector<const std::vector<double>*>& v,
             std::vector<std::vector<double>>& hv) const {
    const std::int64_t n = state_.n;
    const int width = static_cast<int>(which.size());
    const int k = state_.clusters;
    std::vector<double> u(width * n);  // u_β = M_β v_β
    for (int c = 0; c < width; ++c) {
      const int j = clusters_[which[c]];
      for (std::int64_t p = 0; p < n; ++p) u[c * n + p] = state_.m(p, j) * (*v[c])[p];
    }
    std::vector<double> local(exchange_.local_block().rows() * width);
    multiply_rows(distances_, u.data(), width, local.data());
    std::vector<double> du(n * width);  // (d·u)_α
    exchange_.allgather(local.data(), du.data(), width);

    for (int c = 0; c < width; ++c) {
      const int j = clusters_[which[c]];
      const double* uc = u.data() + c * n;
      double sum_u = 0.0, sum_bu = 0.0;
      for (std::int64_t p = 0; p < n; ++p) {
        sum_u += uc[p];
        sum_bu += state_.b[p * k + j] * uc[p];
      }
      const double scale = 1.0 / (state_.temperature * state_.size[j]);
      std::vector<double>& out = hv[c];
      out.resize(n);
      for (std::int64_t p = 0; p < n; ++p) {
        const double m = state_.m(p, j);
        const double coupled =
            du[p * width + c] - (state_.b[p * k + j] + 2.0 * state_.a[j]) * sum_u - sum_bu;
        out[p] = m * (*v[c])[p] + m * scale * coupled;
      }
    }
  }

 private:
  const DistanceRows& distances_;
  RowExchange& exchange_;
  const ClusterState& state_;
  std::vector<int> clusters_;
};

double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double sum = 0.0;
  for (std::size_t p = 0; p < x.size(); ++p) sum += x[p] * y[p];
  return sum;
}

// Scales x to unit length (a zero vector stays zero).
void normalise(std::vector<double>& x) {
  const double norm = std::sqrt(dot(x, x));
  if (norm > 0.0)
    for (double& value : x) value /= norm;
}

// Lanczos on one cluster's Hessian: an orthonormal Krylov basis q_0, q_1, … and
// the tridiagonal T = Qᵀ H Q, whose extreme eigenvalues (Ritz values) approach
// λmin and λmax from inside, both from the same products. A full basis restarts
// from the sum of the two extreme Ritz vectors. Each step: extend() with H·current(),
// read the Ritz values, then advance().
class Lanczos {
 public:
  Lanczos(std::vector<double> start, int max_dimension) : max_dimension_(max_dimension) {
    restart(std::move(start));
  }

  // The vector to multiply next.
  const std::vector<double>& current() const { return basis_.back(); }

  // Takes hq = H·current() and updates the Ritz values and their residual bounds
  // (an eigenvalue of H lies within `residual` of each).
  void extend(std::vector<double> hq) {
    alpha_.push_back(dot(basis_.back(), hq));
    // Orthogonalise against the whole basis, again when that removed most of hq
    // (Daniel–Gragg–Kaufman–Stewart), so no converged Ritz value comes back as a copy.
    for (int pass = 0; pass < 2; ++pass) {
      const double before = std::sqrt(dot(hq, hq));
      for (const auto& q : basis_) {
        const double c = dot(q, hq);
        for (std::size_t p = 0; p < hq.size(); ++p) hq[p] -= c * q[p];
      }
      if (std::sqrt(dot(hq, hq)) > 0.7 * before) break;
    }
    const double beta = std::sqrt(dot(hq, hq));
    const int m = static_cast<int>(alpha_.size());
    std::vector<double> t(m * m, 0.0);
    for (int i = 0; i < m; ++i) {
      t[i * m + i] = alpha_[i];
      if (i + 1 < m) t[i * m + i + 1] = t[(i + 1) * m + i] = beta_[i];
    }
    ritz_ = symmetric_eigen(std::move(t), m);
    min_.value = ritz_.values.front();
    max_.value = ritz_.values.back();
    min_.residual = beta * std::abs(ritz_.vectors[(m - 1) * m]);
    max_.residual = beta * std::abs(ritz_.vectors[(m - 1) * m + m - 1]);
    // An invariant subspace: the Ritz values are eigenvalues.
    exhausted_ = beta <= 1e-14 * std::max(std::abs(min_.value), std::abs(max_.value));
    normalise(hq);
    beta_.push_back(beta);
    next_ = std::move(hq);
  }

  // Adds the next basis vector, or restarts from the two extreme Ritz vectors once
  // the basis is full. Not after exhausted().
  void advance() {
    if (static_cast<int>(alpha_.size()) < max_dimension_) {
      basis_.push_back(std::move(next_));
      return;
    }
    std::vector<double> start = ritz_vector(0);
    const std::vector<double> top = ritz_vector(static_cast<int>(alpha_.size()) - 1);
    for (std::size_t p = 0; p < start.size(); ++p) start[p] += top[p];
    restart(std::move(start));
  }

  struct Ritz {
    double value = 0.0, residual = 0.0;
  };
  const Ritz& smallest() const { return min_; }
  const Ritz& largest() const { return max_; }
  bool exhausted() const { return exhausted_; }

  // The unit Ritz vector of the smallest Ritz value.
  std::vector<double> smallest_vector() const { return ritz_vector(0); }

 private:
  void restart(std::vector<double> start) {
    normalise(start);
    basis_.assign(1, std::move(start));
    alpha_.clear();
    beta_.clear();
  }

  // Q·s for T's eigenvector `index`, over the basis T was built from.
  std::vector<double> ritz_vector(int index) const {
    const int m = static_cast<int>(alpha_.size());
    std::vector<double> y(basis_.front().size(), 0.0);
    for (int i = 0; i < m; ++i) {
      const double s = ritz_.vectors[i * m + index];
      for (std::size_t p = 0; p < y.size(); ++p) y[p] += s * basis_[i][p];
    }
    normalise(y);
    return y;
  }

  const int max_dimension_;
  std::vector<std::vector<double>> basis_;
  std::vector<double> alpha_, beta_;  // T's diagonal and off-diagonal
  std::vector<double> next_;           // the next basis vector
  SymmetricEigen ritz_;
  Ritz min_, max_;
  bool exhausted_ = false;
};

}  // namespace

StabilityTest test_stability(const DistanceRows& distances, RowExchange& exchange,
                             const ClusterState& state, double too_small_to_split,
                             double min_eig_test, const EigenSettings& settings) {
  StabilityTest test;
  for (int j = 0; j < state.clusters; ++j)
    if (state.size[j] > too_small_to_split) test.tested.push_back(j);
  if (test.tested.empty()) return test;

  const std::int64_t n = state.n;
  const int count = static_cast<int>(test.tested.size());
  const Hessians hessians(distances, exchange, state, test.tested);
  // Start inside each cluster: random components weighted by membership.
  std::vector<Lanczos> runs;
  for (int c = 0; c < count; ++c) {
    std::vector<double> start(n);
    for (std::int64_t p = 0; p < n; ++p)
      start[p] = start_component(p, test.tested[c]) * state.m(p, test.tested[c]);
    runs.emplace_back(std::move(start), settings.max_dimension);
  }

  // A cluster is done once λmax is known roughly (it only sets the threshold
  // min_eig_test·λmax) and λmin is either converged or on one side of the threshold:
  // below it when the smallest Ritz value (an upper bound on λmin) is, since
  // λmax ≤ largest Ritz value + its residual; above it when the eigenvalue that the
  // smallest Ritz value approximates is (Lanczos finds the extremes first).
  auto done = [&](const Lanczos& run) {
    if (run.exhausted()) return true;
    const auto& low = run.smallest();
    const auto& high = run.largest();
    const double size = std::max(std::abs(low.value), std::abs(high.value));
    if (high.residual > settings.lambda_max_tolerance * size) return false;
    if (low.residual <= settings.tolerance * size) return true;
    return settings.stop_when_decided && (low.value <= min_eig_test * (high.value + high.residual) ||
                                          low.value - low.residual > min_eig_test * high.value);
  };
  std::vector<int> active(count);
  std::iota(active.begin(), active.end(), 0);
  std::vector<std::vector<double>> products(count);
  while (!active.empty() && test.passes < settings.max_passes) {
    std::vector<const std::vector<double>*> vectors;
    for (int c : active) vectors.push_back(&runs[c].current());
    hessians.apply(active, vectors, products);
    ++test.passes;
    std::vector<int> still;
    for (std::size_t a = 0; a < active.size(); ++a) {
      Lanczos& run = runs[active[a]];
      run.extend(std::move(products[a]));
      if (done(run) || test.passes == settings.max_passes) continue;  // keeps its Ritz vectors
      run.advance();
      still.push_back(active[a]);
    }
    active.swap(still);
  }

  for (const Lanczos& run : runs) {
    test.lambda_max.push_back(run.largest().value);
    test.lambda_min.push_back(run.smallest().value);
    test.direction.push_back(run.smallest_vector());
  }
  return test;
}

int choose_split(const StabilityTest& test, double min_eig_test) {
  int chosen = -1;
  for (int c = 0; c < static_cast<int>(test.tested.size()); ++c) {
    if (!(test.lambda_min[c] <= min_eig_test * test.lambda_max[c])) continue;
    if (chosen < 0 || test.lambda_min[c] < test.lambda_min[chosen]) chosen = c;
  }
  return chosen;
}

void split_cluster(ClusterState& state, int cluster, const std::vector<double>& direction,
                   double amplitude) {
  const std::int64_t n = state.n;
  const int old_k = state.clusters;
  const int new_k = old_k + 1;
  double largest = 0.0;
  for (double x : direction) largest = std::max(largest, std::abs(x));
  const double step = largest > 0.0 ? amplitude * state.temperature / largest : 0.0;

  auto widen = [&](const std::vector<double>& table) {
    std::vector<double> out(n * new_k);
    for (std::int64_t p = 0; p < n; ++p) {
      std::copy(table.begin() + p * old_k, table.begin() + (p + 1) * old_k, out.begin() + p * new_k);
      out[p * new_k + old_k] = table[p * old_k + cluster];
    }
    return out;
  };
  state.b = widen(state.b);
  state.epsilon = widen(state.epsilon);
  for (std::int64_t p = 0; p < n; ++p) {
    state.epsilon[p * new_k + cluster] += step * direction[p];
    state.epsilon[p * new_k + old_k] -= step * direction[p];
  }
  state.a.push_back(state.a[cluster]);
  state.size[cluster] /= 2.0;
  state.size.push_back(state.size[cluster]);
  state.clusters = new_k;
  state.membership.assign(n * new_k, 0.0);
  memberships_from_epsilon(state);
}

}  // namespace dapwc
