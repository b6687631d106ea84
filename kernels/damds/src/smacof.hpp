// Deterministic-annealing SMACOF over row blocks: the temperature schedule, the
// Guttman iterations and the solve of V X = B(X) X, X = V⁺B(X)X as in SMACOF (closed
// form for unit weights without missing distances and for product weights,
// LocalRows::weight_factors; conjugate gradients otherwise).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "config.hpp"
#include "kernels.hpp"
#include "local_rows.hpp"
#include <mpi.h>

#include "spidal/mpi_env.hpp"
#include "spidal/progress.hpp"

namespace damds {

struct AnnealResult {
  std::vector<double> points;  // n × dim, row-major, identical on every rank
  double stress = 0.0;         // normalised stress at T = 0 of `points`
  std::int64_t iterations = 0;     // Guttman updates
  std::int64_t cg_iterations = 0;  // conjugate-gradient steps over all updates
  int temperatures = 0;            // annealing loops, the final T = 0 one included
  std::int64_t passes = 0;         // fused passes (one per iteration plus one per temperature)
  double pass_seconds = 0.0;       // fused B(X)X + stress passes
  double solve_seconds = 0.0;      // closed-form or CG solves, gathers included
};

// With unit weights on every pair, the part of the raw stress Σ_{i<j} (δ̂ − d)² that
// moves with X: Σd² − 2Σδ̂d = n·Σ_i |x_i − x̄|² − 2·Σ_i x_i·(B(X)X)_i, from the points
// (n × dim, x̄ their centroid) and B(X)X of every row. The rest, Σδ̂², is fixed at a
// temperature.
double unit_weight_moving_stress(const std::vector<double>& points, const double* bx, std::int64_t n, int dim);

// Where the schedule starts and what runs between Guttman iterations. mdsseries
// warm-starts its later windows at a low temperature (or at T = 0) and checks for
// cancellation after each iteration.
struct RunOptions {
  // The first temperature is alpha · start_fraction · T_max; 0 runs only the final
  // T = 0 loop (plain weighted SMACOF from the start points).
  double start_fraction = 1.0;
  std::function<void()> after_iteration;  // may throw to stop the run
  // Progress lines carry "fraction", the share of the schedule's temperature steps done (off
  // when the run is one part of a longer program that reports its own).
  bool report_fraction = true;
};

class Smacof {
 public:
  // `comm` holds the ranks that share the rows (each with its own block).
  Smacof(const Config& config, const LocalRows& rows, MPI_Comm comm, std::vector<double> start);
  // Runs the whole schedule, reporting one progress line per temperature.
  AnnealResult run(spidal::ProgressReporter& progress, const RunOptions& options = {});

 private:
  // Computes B(X)X into bx_ and returns the normalised stress of X at `shift`; the
  // first pass at a temperature is `temperature_start`.
  double pass(double shift, bool temperature_start);
  // X ← V⁺ B(X) X, then gathers X on every rank.
  void update();
  void solve_closed_form();
  void solve_conjugate_gradient();
  void find_unweighted_points();
  void centre_weighted_points();
  // Every rank's shares of a pass, added up on every rank (one Allreduce).
  void add_over_ranks(PassSums& sums) const;
  // out = (V + 11ᵀ/N)·p for this rank's rows (rows × dim, row-major). Collective.
  void anchored_laplacian_product(const Coordinates& p, std::vector<double>& out);
  // Global reductions add per-row values in global row order after gathering them
  // (O(N) per reduction), so they do not depend on the number of ranks.
  double ordered_sum(const std::vector<double>& local_row_values);
  double global_dot(const std::vector<double>& a, const std::vector<double>& b);
  void gather(const std::vector<double>& local, std::vector<double>& full, Coordinates& coordinates) const;

  const Config& config_;
  const LocalRows& rows_;
  MPI_Comm comm_;
  const spidal::Isa isa_;  // the passes' variant
  spidal::RowBlockGather gatherer_;      // rows of dim doubles
  spidal::RowBlockGather row_gatherer_;  // one double per row
  int dim_;
  std::vector<double> points_;      // n × dim, all ranks
  Coordinates coordinates_;         // the same points, structure of arrays
  std::vector<double> local_points_;  // this rank's rows × dim
  PassSums sums_;                   // the last pass over all ranks: B(X)X of every row, stress
  std::vector<double> bx_;          // this rank's rows of B(X)X
  std::vector<double> all_rows_;    // scratch: per-row values of every rank
  PassSums product_sums_;            // scratch: the ranks' shares of V·p
  std::vector<char> unweighted_;     // per point: 1 without any weighted pair (left where it is)
  double fixed_stress_ = 0.0;        // unit weights: Σδ̂² at the current temperature
  AnnealResult result_;
};

}  // namespace damds
