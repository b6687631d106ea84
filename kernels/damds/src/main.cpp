// damds: deterministic-annealing weighted SMACOF (SPIDAL DA-MDS) over MPI row blocks.
#include <omp.h>

#include <chrono>

#include "config.hpp"
#include "local_rows.hpp"
#include "points_io.hpp"
#include "smacof.hpp"
#include "spidal/errors.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_damds(spidal::MpiEnv& mpi, int argc, char** argv) {
  const damds::Config config = damds::parse_config(argc, argv);
  spidal::check_output_writable(config.output_path);
  spidal::ProgressReporter progress("damds", mpi.is_root());

  auto start = std::chrono::steady_clock::now();
  const damds::LocalRows rows = damds::load_local_rows(config, mpi.comm());
  std::vector<double> initial = config.initial_points_path
                                    ? damds::read_points(*config.initial_points_path, config.points, config.dimension)
                                    : damds::random_points(config.points, config.dimension, config.seed);
  const double load_seconds = seconds_since(start);
  progress.report("loaded", spidal::JsonFields()
                                .add("points", config.points)
                                .add("dim", config.dimension)
                                .add("weighted", rows.weighted())
                                .add("closed_form", rows.closed_form)
                                .add("max_distance", rows.stats.max)
                                .add("min_positive_distance", rows.stats.min_positive)
                                .add("missing_pairs", rows.stats.missing_pairs)
                                .add("streamed", rows.stream != nullptr)
                                .add("kernel", spidal::isa_name(damds::select_pass_isa(config.kernel)))
                                .add("ranks", mpi.size())
                                .add("threads", omp_get_max_threads()));

  start = std::chrono::steady_clock::now();
  damds::Smacof smacof(config, rows, mpi.comm(), std::move(initial));
  const damds::AnnealResult result = smacof.run(progress);
  const double anneal_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  if (mpi.is_root()) damds::write_points(config.output_path, result.points, config.points, config.dimension);
  const double output_seconds = seconds_since(start);

  const double per_iteration = result.iterations > 0 ? anneal_seconds / result.iterations : 0.0;
  progress.done(spidal::JsonFields()
                    .add("output", config.output_path)
                    .add("points", config.points)
                    .add("stress", result.stress)
                    .add("iterations", result.iterations)
                    .add("cg_iterations", result.cg_iterations)
                    .add("temperatures", result.temperatures)
                    .add("pass_count", result.passes)
                    .add("ranks", mpi.size())
                    .add("threads", omp_get_max_threads()),
                spidal::JsonFields()
                    .add("load", load_seconds)
                    .add("anneal", anneal_seconds)
                    .add("passes", result.pass_seconds)
                    .add("solves", result.solve_seconds)
                    .add("per_iteration", per_iteration)
                    .add("output", output_seconds));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_damds); }
