#include "splitting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

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

// H·v for every tested cluster (vectors one after another, length n each),
// with one shared pass over the distances.
class Hessians {
 public:
  Hessians(const DistanceRows& distances, RowExchange& exchange, const ClusterState& state,
           std::vector<int> clusters)
      : distances_(distances), exchange_(exchange), state_(state), clusters_(std::move(clusters)) {}

  int count() const { return static_cast<int>(clusters_.size()); }

  void apply(const std::vector<double>& v, std::vector<double>& hv) const {
    const std::int64_t n = state_.n;
    const int width = count();
    const int k = state_.clusters;
    std::vector<double> u(width * n);  // u_β = M_β v_β
    for (int c = 0; c < width; ++c)
      for (std::int64_t p = 0; p < n; ++p) u[c * n + p] = state_.m(p, clusters_[c]) * v[c * n + p];
    std::vector<double> local(exchange_.local_block().rows() * width);
    multiply_rows(distances_, u.data(), width, local.data());
    std::vector<double> du(n * width);  // (d·u)_α
    exchange_.allgather(local.data(), du.data(), width);

    for (int c = 0; c < width; ++c) {
      const int j = clusters_[c];
      const double* uc = u.data() + c * n;
      double sum_u = 0.0, sum_bu = 0.0;
      for (std::int64_t p = 0; p < n; ++p) {
        sum_u += uc[p];
        sum_bu += state_.b[p * k + j] * uc[p];
      }
      const double scale = 1.0 / (state_.temperature * state_.size[j]);
      for (std::int64_t p = 0; p < n; ++p) {
        const double m = state_.m(p, j);
        const double coupled =
            du[p * width + c] - (state_.b[p * k + j] + 2.0 * state_.a[j]) * sum_u - sum_bu;
        hv[c * n + p] = m * v[c * n + p] + m * scale * coupled;
      }
    }
  }

 private:
  const DistanceRows& distances_;
  RowExchange& exchange_;
  const ClusterState& state_;
  std::vector<int> clusters_;
};

// Normalises each length-n vector to unit length.
void normalise(std::vector<double>& v, std::int64_t n, int count) {
  for (int c = 0; c < count; ++c) {
    double norm = 0.0;
    for (std::int64_t p = 0; p < n; ++p) norm += v[c * n + p] * v[c * n + p];
    norm = std::sqrt(norm);
    if (norm > 0.0)
      for (std::int64_t p = 0; p < n; ++p) v[c * n + p] /= norm;
  }
}

// Dominant eigenvalue of sign·(H − shift·I) for each cluster by power
// iteration from `v`, which returns holding the eigenvectors. The estimate
// (a Rayleigh quotient) never exceeds the true value. A cluster is done when
// its estimate settles or `enough(cluster, estimate)` says so.
template <typename Enough>
std::vector<double> power_iteration(const Hessians& hessians, const std::vector<double>& sign,
                                    const std::vector<double>& shift,
                                    std::vector<double>& v, std::int64_t n,
                                    const PowerIterationSettings& settings, int& passes, Enough enough) {
  const int count = hessians.count();
  std::vector<double> eigenvalue(count, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> w(v.size());
  normalise(v, n, count);
  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    hessians.apply(v, w);
    ++passes;
    bool all_settled = true;
    for (int c = 0; c < count; ++c) {
      double rayleigh = 0.0;
      for (std::int64_t p = 0; p < n; ++p) {
        double& wp = w[c * n + p];
        wp = sign[c] * (wp - shift[c] * v[c * n + p]);
        rayleigh += v[c * n + p] * wp;
      }
      const double previous = eigenvalue[c];
      eigenvalue[c] = rayleigh;
      if (!(std::abs(rayleigh - previous) <= settings.tolerance * std::abs(rayleigh)) && !enough(c, rayleigh))
        all_settled = false;
    }
    v.swap(w);
    normalise(v, n, count);
    if (all_settled) break;
  }
  return eigenvalue;
}

}  // namespace

StabilityTest test_stability(const DistanceRows& distances, RowExchange& exchange,
                             const ClusterState& state, double too_small_to_split,
                             double min_eig_test, const PowerIterationSettings& settings) {
  StabilityTest test;
  for (int j = 0; j < state.clusters; ++j)
    if (state.size[j] > too_small_to_split) test.tested.push_back(j);
  if (test.tested.empty()) return test;

  const std::int64_t n = state.n;
  const int count = static_cast<int>(test.tested.size());
  const Hessians hessians(distances, exchange, state, test.tested);
  // Start inside each cluster: random components weighted by membership.
  std::vector<double> start(count * n);
  for (int c = 0; c < count; ++c)
    for (std::int64_t p = 0; p < n; ++p)
      start[c * n + p] = start_component(p, test.tested[c]) * state.m(p, test.tested[c]);

  // First the eigenvalue of largest magnitude, λ₁. Usually that is λmax, and
  // λmin = λ₁ − (dominant eigenvalue of λ₁·I − H). A cluster well below its
  // critical temperature can have λmin dominant instead; then
  // λmax = λ₁ + (dominant eigenvalue of H − λ₁·I).
  std::vector<double> first_direction = start;
  PowerIterationSettings shift_settings = settings;
  shift_settings.tolerance = settings.shift_tolerance;
  const std::vector<double> first = power_iteration(
      hessians, std::vector<double>(count, 1.0), std::vector<double>(count, 0.0), first_direction, n,
      shift_settings, test.passes, [](int, double) { return false; });
  std::vector<double> sign(count);
  for (int c = 0; c < count; ++c) sign[c] = first[c] >= 0.0 ? -1.0 : 1.0;
  std::vector<double> second_direction = start;
  // With λmax first, λmin ≤ λ₁ − spread: unstable as soon as λ₁ − spread ≤ min_eig_test·λ₁.
  const std::vector<double> spread = power_iteration(
      hessians, sign, first, second_direction, n, settings, test.passes, [&](int c, double estimate) {
        return first[c] >= 0.0 && first[c] - estimate <= min_eig_test * first[c];
      });

  for (int c = 0; c < count; ++c) {
    const bool max_first = first[c] >= 0.0;
    test.lambda_max.push_back(max_first ? first[c] : first[c] + spread[c]);
    test.lambda_min.push_back(max_first ? first[c] - spread[c] : first[c]);
    const std::vector<double>& direction = max_first ? second_direction : first_direction;
    test.direction.emplace_back(direction.begin() + c * n, direction.begin() + (c + 1) * n);
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
