// dapwc: deterministic-annealing pairwise clustering (SPIDAL DA-PWC) over MPI row blocks.
#include <omp.h>

#include <chrono>

#include "annealing.hpp"
#include "centers.hpp"
#include "config.hpp"
#include "mpi_exchange.hpp"
#include "points3d.hpp"
#include "row_stream.hpp"
#include "spidal/errors.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int run_dapwc(spidal::MpiEnv& mpi, int argc, char** argv) {
  const dapwc::Config config = dapwc::parse_config(argc, argv);
  spidal::check_output_writable(config.output_path);
  if (config.centers_path) spidal::check_output_writable(*config.centers_path);
  if (config.silhouettes_path) spidal::check_output_writable(*config.silhouettes_path);
  spidal::ProgressReporter progress("dapwc", mpi.is_root());

  auto start = Clock::now();
  dapwc::MpiRowExchange exchange(mpi.comm(), config.points);
  dapwc::DistanceRows distances = dapwc::load_distance_rows(config.distances_path, config.points, config.byte_order,
                                                            exchange.local_block(), config.memory_limit, mpi.comm());
  // Read before the long run so that a bad file fails early.
  const std::vector<dapwc::Point3> points3d =
      config.points3d_path ? dapwc::read_points3d(*config.points3d_path, config.points) : std::vector<dapwc::Point3>{};
  const dapwc::MatrixSummary summary = dapwc::prepare_distances(distances, exchange);
  const double load_seconds = seconds_since(start);
  progress.report("loaded", spidal::JsonFields()
                                .add("points", config.points)
                                .add("mean_distance", summary.mean_distance)
                                .add("missing_pairs", summary.missing_pairs)
                                .add("max_clusters", config.annealing.max_clusters)
                                .add("min_cluster_size", config.annealing.min_cluster_points)
                                .add("streamed", distances.stream != nullptr)
                                .add("ranks", mpi.size())
                                .add("threads", omp_get_max_threads()));

  start = Clock::now();
  const dapwc::AnnealingResult result = dapwc::anneal(
      distances, exchange, summary.mean_distance, config.annealing, [&](const dapwc::AnnealingEvent& e) {
        progress.report(e.phase, spidal::JsonFields()
                                     .add("iteration", e.em_iterations)
                                     .add("step", e.step)
                                     .add("temperature", e.temperature)
                                     .add("clusters", e.clusters)
                                     .add("fraction", e.fraction));
      });
  const double anneal_seconds = seconds_since(start);

  start = Clock::now();
  // One more pass: the medoids and the silhouettes say how well each cluster stands apart.
  const dapwc::PointDistances point_distances =
      dapwc::distances_to_clusters(distances, exchange, result.labels, result.clusters);
  const std::vector<dapwc::ClusterCenters> centers =
      dapwc::cluster_centers(result.labels, result.clusters, point_distances, points3d);
  if (mpi.is_root()) {
    spidal::AtomicTextOutput clusters_file(config.output_path);
    for (std::int64_t p = 0; p < config.points; ++p) clusters_file.stream() << p << ' ' << result.labels[p] << '\n';
    if (config.centers_path) {
      spidal::AtomicTextOutput centers_file(*config.centers_path);
      dapwc::write_centers(centers_file.stream(), centers);
      centers_file.commit();
    }
    if (config.silhouettes_path) {
      spidal::AtomicTextOutput silhouettes_file(*config.silhouettes_path);
      dapwc::write_silhouettes(silhouettes_file.stream(), point_distances);
      silhouettes_file.commit();
    }
    clusters_file.commit();
  }
  const double output_seconds = seconds_since(start);

  const double per_iteration = result.em_iterations > 0 ? result.em_seconds / result.em_iterations : 0.0;
  spidal::JsonFields separation;  // silhouettes are defined from two clusters on
  if (result.clusters > 1) {
    std::vector<double> silhouette, within;
    for (const dapwc::ClusterCenters& c : centers) {
      silhouette.push_back(c.silhouette);
      within.push_back(c.within_distance);
    }
    double sum = 0.0;
    for (double s : point_distances.silhouette) sum += s;
    separation.add("mean_silhouette", sum / static_cast<double>(config.points))
        .add("silhouette", silhouette)
        .add("within_distance", within);
  }
  progress.done(spidal::JsonFields()
                    .add("output", config.output_path)
                    .add("points", config.points)
                    .add("clusters", result.clusters)
                    .add("temperature", result.state.temperature)
                    .add("initial_temperature", result.initial_temperature)
                    .add("temperature_steps", result.temperature_steps)
                    .add("em_iterations", result.em_iterations)
                    .add("eigen_passes", result.eigen_passes)
                    .add("splits", result.splits)
                    .add("merged", result.merged_clusters)
                    .add("removed", result.removed_clusters)
                    .add("frozen", result.frozen)
                    .add("warnings", result.warnings)
                    .append(separation)
                    .add("ranks", mpi.size())
                    .add("threads", omp_get_max_threads()),
                spidal::JsonFields()
                    .add("load", load_seconds)
                    .add("anneal", anneal_seconds)
                    .add("em", result.em_seconds)
                    .add("split_tests", result.split_seconds)
                    .add("per_em_iteration", per_iteration)
                    .add("output", output_seconds));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_dapwc); }
