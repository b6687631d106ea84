#include "smacof.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "points_io.hpp"

namespace damds {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Smacof::Smacof(const Config& config, const LocalRows& rows, MPI_Comm comm, std::vector<double> start)
    : config_(config),
      rows_(rows),
      comm_(comm),
      isa_(select_pass_isa(config.kernel)),
      gatherer_(comm, rows.n, config.dimension),
      row_gatherer_(comm, rows.n, 1),
      dim_(config.dimension),
      points_(std::move(start)),
      coordinates_(config.dimension, rows.n) {
  coordinates_.assign_rows(points_);
  const auto first = points_.begin() + rows.block.begin * dim_;
  local_points_.assign(first, first + rows.block.rows() * dim_);
  find_unweighted_points();
}

// Points without a weighted pair (V's zero rows: a symbol outside a stock window, a
// point whose distances are all missing) have no place in the majorizer's minimum; the
// updates leave them where they are. Product weights name them (u_i = 0); otherwise one
// product V·p with seeded random p finds them: (V·p)_i = Σ_j w_ij (p_i − p_j) is 0 only
// when every w_ij is.
void Smacof::find_unweighted_points() {
  unweighted_.assign(rows_.n, 0);
  if (rows_.closed_form) return;
  if (!rows_.weight_factors.empty()) {
    for (std::int64_t i = 0; i < rows_.n; ++i) unweighted_[i] = rows_.weight_factors[i] > 0.0 ? 0 : 1;
    return;
  }
  Coordinates probe(dim_, rows_.n);
  probe.assign_rows(random_points(rows_.n, dim_, 17));
  laplacian_product(isa_, rows_, probe, product_sums_);
  add_over_ranks(product_sums_);
  for (std::int64_t i = 0; i < rows_.n; ++i) {
    bool zero = true;
    for (int k = 0; k < dim_; ++k) zero = zero && product_sums_.bx()[i * dim_ + k] == 0.0;
    unweighted_[i] = zero ? 1 : 0;
  }
}

double unit_weight_moving_stress(const std::vector<double>& points, const double* bx, std::int64_t n, int dim) {
  std::vector<double> centroid(dim, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < dim; ++k) centroid[k] += points[i * dim + k];
  }
  for (double& value : centroid) value /= static_cast<double>(n);
  double spread = 0.0;  // Σ_i |x_i − x̄|²
  double target_distance = 0.0;  // Σ_i x_i·(B(X)X)_i = Σ_{i<j} δ̂ d
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < dim; ++k) {
      const double offset = points[i * dim + k] - centroid[k];
      spread += offset * offset;
      target_distance += points[i * dim + k] * bx[i * dim + k];
    }
  }
  return static_cast<double>(n) * spread - 2.0 * target_distance;
}

// One Allreduce per pass adds the ranks' shares of B(X)X and the stress: the stress
// needs all pairs, and the closed-form solve all rows, which then needs no further
// communication. With unit weights only a temperature's first pass adds the stress
// pair by pair: it leaves the fixed part Σδ̂², and unit_weight_moving_stress gives the
// rest from B(X)X (every rank has all of it) at every pass.
double Smacof::pass(double shift, bool temperature_start) {
  const auto start = std::chrono::steady_clock::now();
  const bool derive_stress = rows_.closed_form;
  guttman_pass(isa_, rows_, coordinates_, shift,
               derive_stress && !temperature_start ? PairStress::skip : PairStress::add, sums_);
  add_over_ranks(sums_);
  const auto first = sums_.values.begin() + rows_.block.begin * dim_;
  bx_.assign(first, first + rows_.block.rows() * dim_);
  double stress = sums_.stress();
  if (derive_stress) {
    const double moving = unit_weight_moving_stress(points_, sums_.bx(), rows_.n, dim_);
    if (temperature_start) fixed_stress_ = stress - moving;
    // Rounding could take a near-perfect fit a hair below zero.
    stress = std::max(0.0, fixed_stress_ + moving);
  }
  result_.pass_seconds += seconds_since(start);
  ++result_.passes;
  return stress / rows_.stats.sum_squares;
}

void Smacof::add_over_ranks(PassSums& sums) const {
  MPI_Allreduce(MPI_IN_PLACE, sums.values.data(), static_cast<int>(sums.values.size()), MPI_DOUBLE, MPI_SUM, comm_);
}

double Smacof::ordered_sum(const std::vector<double>& local_row_values) {
  all_rows_.resize(static_cast<std::size_t>(rows_.n));
  row_gatherer_.allgather(local_row_values.data(), all_rows_.data());
  double total = 0.0;
  for (const double value : all_rows_) total += value;
  return total;
}

double Smacof::global_dot(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> row_values(a.size() / dim_, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) row_values[k / dim_] += a[k] * b[k];
  return ordered_sum(row_values);
}

void Smacof::gather(const std::vector<double>& local, std::vector<double>& full, Coordinates& coordinates) const {
  gatherer_.allgather(local.data(), full.data());
  coordinates.assign_rows(full);
}

void Smacof::update() {
  const auto start = std::chrono::steady_clock::now();
  if (rows_.closed_form || !rows_.weight_factors.empty()) {
    solve_closed_form();
  } else {
    solve_conjugate_gradient();
    gather(local_points_, points_, coordinates_);
  }
  ++result_.iterations;
  result_.solve_seconds += seconds_since(start);
}

// The SMACOF update X = V⁺BX in closed form when the weights are products w_ij = u_i·u_j
// (unit weights: u = 1). V = D − u·uᵀ with D = diag(u_i·S), S = Σu; BX sums to zero over
// the points (B's rows do), so uᵀD⁻¹BX = 0 and X = D⁻¹BX solves V X = BX: for u = 1, the
// Guttman transform BX/N. (Solving (V + I)X = BX, as this did, shrank each point by
// u_i·S/(u_i·S + 1): two points ended 2/3 of their distance apart.) Then centred, as the
// conjugate gradients' solution is (points of weight 0 stay put). Every rank has all rows
// of BX from the pass and computes all of X.
void Smacof::solve_closed_form() {
  const double* bx = sums_.bx();
  const std::vector<double>& factors = rows_.weight_factors;
  const auto factor = [&](std::int64_t i) { return factors.empty() ? 1.0 : factors[i]; };
  double total = 0.0;  // S
  for (std::int64_t i = 0; i < rows_.n; ++i) total += factor(i);
  for (std::int64_t i = 0; i < rows_.n; ++i) {
    if (unweighted_[i]) continue;
    for (int k = 0; k < dim_; ++k) points_[i * dim_ + k] = bx[i * dim_ + k] / (factor(i) * total);
  }
  centre_weighted_points();
  const auto first = points_.begin() + rows_.block.begin * dim_;
  std::copy(first, first + local_points_.size(), local_points_.begin());
  coordinates_.assign_rows(points_);
}

// Moves the weighted points together so that all points' centroid is at 0.
void Smacof::centre_weighted_points() {
  std::vector<double> offset(dim_, 0.0);
  std::int64_t moved = 0;
  for (std::int64_t i = 0; i < rows_.n; ++i) {
    moved += unweighted_[i] ? 0 : 1;
    for (int k = 0; k < dim_; ++k) offset[k] += points_[i * dim_ + k];
  }
  if (moved == 0) return;
  for (std::int64_t i = 0; i < rows_.n; ++i) {
    if (unweighted_[i]) continue;
    for (int k = 0; k < dim_; ++k) points_[i * dim_ + k] -= offset[k] / static_cast<double>(moved);
  }
}

// Conjugate gradients on (V + 11ᵀ/N) X = BX for all dim columns at once (Frobenius
// inner products) over the weighted points, started from the current X; stops when r'r
// falls below cg_threshold times its starting value, as the original does. V alone is
// singular (V·1 = 0): rounding in the products let X drift along 1 by 6e9 in 80
// iterations. As 1ᵀBX = 0, the solution is V⁺BX, centred (as in de Leeuw's smacof).
void Smacof::solve_conjugate_gradient() {
  std::vector<double> product;
  anchored_laplacian_product(coordinates_, product);
  std::vector<double> residual(bx_.size());
  for (std::size_t k = 0; k < residual.size(); ++k) residual[k] = bx_[k] - product[k];
  for (std::int64_t r = 0; r < rows_.block.rows(); ++r) {
    if (unweighted_[rows_.block.begin + r]) std::fill_n(residual.begin() + r * dim_, dim_, 0.0);
  }
  std::vector<double> direction = residual;
  std::vector<double> full_direction(points_.size());
  Coordinates direction_coordinates(dim_, rows_.n);
  double residual_norm = global_dot(residual, residual);
  const double stop_below = residual_norm * config_.cg_threshold;

  for (int step = 0; step < config_.cg_iterations && residual_norm > 0.0; ++step) {
    gather(direction, full_direction, direction_coordinates);
    anchored_laplacian_product(direction_coordinates, product);
    const double curvature = global_dot(direction, product);
    if (!(curvature > 0.0)) break;
    const double step_length = residual_norm / curvature;
    for (std::size_t k = 0; k < residual.size(); ++k) {
      local_points_[k] += step_length * direction[k];
      residual[k] -= step_length * product[k];
    }
    ++result_.cg_iterations;
    const double next_norm = global_dot(residual, residual);
    if (next_norm < stop_below) break;
    const double beta = next_norm / residual_norm;
    residual_norm = next_norm;
    for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = residual[k] + beta * direction[k];
  }
}

// The ranks' shares of V·p added up (one Allreduce), plus 11ᵀp/N, for this rank's rows
// (every rank holds all of p, and sums it in row order); 0 for an unweighted point, so
// that CG leaves it where it is.
void Smacof::anchored_laplacian_product(const Coordinates& p, std::vector<double>& out) {
  laplacian_product(isa_, rows_, p, product_sums_);
  add_over_ranks(product_sums_);
  std::vector<double> mean(dim_, 0.0);
  for (int k = 0; k < dim_; ++k) {
    for (std::int64_t i = 0; i < rows_.n; ++i) mean[k] += p.axis(k)[i];
    mean[k] /= static_cast<double>(rows_.n);
  }
  out.resize(static_cast<std::size_t>(rows_.block.rows()) * dim_);
  for (std::int64_t r = 0; r < rows_.block.rows(); ++r) {
    const std::int64_t i = rows_.block.begin + r;
    for (int k = 0; k < dim_; ++k) out[r * dim_ + k] = unweighted_[i] ? 0.0 : product_sums_.bx()[i * dim_ + k] + mean[k];
  }
}

AnnealResult Smacof::run(spidal::ProgressReporter& progress, const RunOptions& options) {
  const double spread = std::sqrt(2.0 * dim_);  // T·√(2L) is the distance shift at temperature T
  const double t_max = rows_.stats.max / spread;
  const double t_min = config_.tmin_factor * rows_.stats.min_positive / spread;
  double temperature = config_.alpha * options.start_fraction * t_max;
  bool final_loop = false;
  // Temperatures at or above t_min, plus the final loop: the steps the schedule will take.
  const double planned_steps =
      1.0 + (temperature >= t_min && t_min > 0.0 ? std::floor(std::log(t_min / temperature) / std::log(config_.alpha)) + 1.0 : 0.0);
  while (true) {
    if (temperature < t_min || temperature <= 0.0) {
      // The last loop is plain weighted SMACOF.
      temperature = 0.0;
      final_loop = true;
    }
    const double shift = temperature * spread;
    double stress = pass(shift, true);
    std::int64_t iterations_here = 0;
    while (true) {
      update();
      ++iterations_here;
      if (options.after_iteration) options.after_iteration();
      const double previous = stress;
      stress = pass(shift, false);
      if (previous - stress < config_.threshold) break;
      if (config_.max_iterations_per_temperature > 0 && iterations_here >= config_.max_iterations_per_temperature) {
        break;
      }
    }
    ++result_.temperatures;
    spidal::JsonFields step;
    if (options.report_fraction) step.add("fraction", std::min(1.0, static_cast<double>(result_.temperatures) / planned_steps));
    progress.report(final_loop ? "final" : "anneal",
                    step.add("temperature_index", result_.temperatures)
                        .add("temperature", temperature)
                        .add("iteration", result_.iterations)
                        .add("iterations_at_temperature", iterations_here)
                        .add("stress", stress));
    if (final_loop) {
      result_.stress = stress;
      break;
    }
    temperature *= config_.alpha;
  }
  result_.points = points_;
  return result_;
}

}  // namespace damds
