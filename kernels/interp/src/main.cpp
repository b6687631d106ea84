// interp: MI-MDS interpolation of out-of-sample points into a DA-MDS map and its DA-PWC
// clusters, MPI-parallel over the out-of-sample rows (OpenMP inside a rank).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "files.hpp"
#include "mimds.hpp"
#include "points_io.hpp"
#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"
#include "spidal/mpi_env.hpp"
#include "spidal/options.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"
#include "spidal/row_stream.hpp"

namespace {

// Rows of the block read and placed at a time (fewer when a quarter of --memory-limit
// holds fewer): memory stays two chunks of rows × n int16 per rank whatever the number
// of out-of-sample points.
constexpr std::int64_t kChunkRows = 2048;

// Out-of-sample rows [first, first + count) of the block file.
struct Chunk {
  std::int64_t first = 0, count = 0;
  std::vector<std::int16_t> rows;
};

struct Config {
  std::string points_path, clusters_path, distances_path, output_path, clusters_output_path;
  std::string sample_path, centres_path, centres_output_path, silhouettes_path, silhouettes_output_path;
  std::int64_t in_sample = 0, out_of_sample = 0;
  int k = 10;
  interp::PlaceOptions place;
  spidal::ByteOrder byte_order = spidal::ByteOrder::little;
  std::int64_t memory_limit = 0;  // bytes per rank; 0: the machine's available memory
};

Config parse_config(int argc, char** argv) {
  spidal::Options options(
      "interp",
      "MI-MDS: places M out-of-sample points into an n-point DA-MDS map from an M×n int16 distance block\n"
      "(row j: out-of-sample point j to every in-sample point), each by iterative majorization of its stress\n"
      "against its k nearest in-sample points, in the cluster most of them have. Writes the n + M points and\n"
      "clusters in input order; progress as JSON lines on stdout.",
      {
          {"points", "FILE", "in-sample points, `index x y ...` (damds output)", std::nullopt, {}},
          {"clusters", "FILE", "in-sample clusters, `index label` (dapwc output)", std::nullopt, {}},
          {"centers", "FILE", "in-sample cluster centres, `label count medoid` (dapwc --centers)", std::nullopt, {}},
          {"distances", "FILE", "M×n int16 out-of-sample × in-sample distances (value/32767, negative = missing)",
           std::nullopt, {}},
          {"in-sample", "n", "in-sample points (the block's columns)", std::nullopt, {}},
          {"out-of-sample", "M", "out-of-sample points (the block's rows)", std::nullopt, {}},
          {"sample", "FILE", "input rows of the in-sample points, one per line in their order (default: 0..n-1)",
           std::nullopt, {}},
          {"output", "FILE", "all n + M points, `index x y ...` in input order", std::nullopt, {}},
          {"clusters-output", "FILE", "all n + M clusters, `index label` in input order", std::nullopt, {}},
          {"centers-output", "FILE", "centres with counts over all points and medoids as input rows (needs --centers)",
           std::nullopt, {}},
          {"silhouettes", "FILE", "in-sample silhouettes, `index silhouette` (dapwc --silhouettes)", std::nullopt, {}},
          {"silhouettes-output", "FILE",
           "all n + M silhouettes in input order, an out-of-sample point's against the in-sample clusters (needs "
           "--silhouettes)",
           std::nullopt, {}},
          {"k", "K", "nearest in-sample points per out-of-sample point", "10", {}},
          {"dim", "L", "dimension of the points", "3", {}},
          {"max-iterations", "I", "majorization updates per point at most (few: see README)", "20", {}},
          {"threshold", "E", "stop when an update lowers the stress by less than this fraction", "1e-6", {}},
          {"big-endian", "", "the block is big-endian", std::nullopt, {}},
          {"memory-limit", "BYTES",
           "memory per rank (suffix K, M or G): the block is read in chunks of at most 2,048 rows that fit in a "
           "quarter of it; default: the machine's available memory shared by the node's ranks",
           std::nullopt, {}},
      });
  options.parse(argc, argv);
  Config config;
  config.points_path = options.get_string("points");
  config.clusters_path = options.get_string("clusters");
  config.distances_path = options.get_string("distances");
  config.output_path = options.get_string("output");
  config.clusters_output_path = options.get_string("clusters-output");
  if (options.has("sample")) config.sample_path = options.get_string("sample");
  if (options.has("centers")) config.centres_path = options.get_string("centers");
  if (options.has("centers-output")) config.centres_output_path = options.get_string("centers-output");
  if (config.centres_path.empty() != config.centres_output_path.empty()) {
    throw spidal::UsageError("--centers and --centers-output go together");
  }
  if (options.has("silhouettes")) config.silhouettes_path = options.get_string("silhouettes");
  if (options.has("silhouettes-output")) config.silhouettes_output_path = options.get_string("silhouettes-output");
  if (config.silhouettes_path.empty() != config.silhouettes_output_path.empty()) {
    throw spidal::UsageError("--silhouettes and --silhouettes-output go together");
  }
  config.in_sample = options.get_int("in-sample", 1, 1'000'000'000LL);
  config.out_of_sample = options.get_int("out-of-sample", 1, 1'000'000'000LL);
  config.k = static_cast<int>(options.get_int("k", 1, 10'000));
  config.place.dim = static_cast<int>(options.get_int("dim", 1, 4));
  config.place.max_iterations = static_cast<int>(options.get_int("max-iterations", 0, 1'000'000));
  config.place.threshold = options.get_double("threshold", 0.0, 1.0);
  config.byte_order = options.get_flag("big-endian") ? spidal::ByteOrder::big : spidal::ByteOrder::little;
  if (options.has("memory-limit")) config.memory_limit = spidal::parse_memory_limit(options.get_string("memory-limit"));
  return config;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A rank's placed rows: coordinates, labels, silhouettes (when asked for) and the stress sums.
struct LocalResult {
  std::vector<double> points;
  std::vector<int> labels;
  std::vector<double> silhouettes;
  double stress = 0.0, sum_squares = 0.0;
  std::int64_t iterations = 0, max_iterations = 0;
};

// Collective (the memory budget).
LocalResult place_rows(const Config& config, const spidal::RowBlock& block, const std::vector<double>& in_points,
                       const std::vector<int>& in_labels, spidal::ProgressReporter& progress, MPI_Comm comm) {
  const std::int64_t n = config.in_sample;
  const int dim = config.place.dim;
  const spidal::MatrixReader reader(config.distances_path, config.out_of_sample, n, config.byte_order);
  LocalResult local;
  local.points.resize(static_cast<std::size_t>(block.rows() * dim));
  local.labels.resize(static_cast<std::size_t>(block.rows()));
  const bool silhouettes = !config.silhouettes_path.empty();
  const int clusters = *std::max_element(in_labels.begin(), in_labels.end());
  if (silhouettes) local.silhouettes.resize(static_cast<std::size_t>(block.rows()));
  const std::int64_t row_bytes = n * static_cast<std::int64_t>(sizeof(std::int16_t));
  const std::int64_t chunk_rows = std::min(
      kChunkRows, spidal::stream_block_rows(spidal::memory_budget(config.memory_limit, comm), row_bytes, 1, block.rows()));
  // The next chunk is read (and dropped from the page cache) while this one is placed.
  const auto read = [&](std::int64_t begin, std::int64_t end, Chunk& chunk) {
    chunk.first = block.begin + begin;
    chunk.count = end - begin;
    chunk.rows.resize(static_cast<std::size_t>(chunk.count * n));
    reader.read(chunk.first, 0, chunk.count * n, chunk.rows.data());
    reader.forget(chunk.first, chunk.count);
  };
  spidal::StreamBlocks<Chunk> chunks;
  spidal::for_each_streamed_block(block.rows(), chunk_rows, chunks, read, [&](const Chunk& chunk) {
    const std::int64_t first = chunk.first, count = chunk.count;
    const std::vector<std::int16_t>& rows = chunk.rows;
    double stress = 0.0, sum_squares = 0.0;
    std::int64_t iterations = 0, max_iterations = local.max_iterations;
    std::int64_t empty_row = std::numeric_limits<std::int64_t>::max();  // an exception may not leave the region
#pragma omp parallel reduction(+ : stress, sum_squares, iterations) reduction(max : max_iterations) \
    reduction(min : empty_row)
    {
      std::vector<interp::Neighbour> scratch, neighbours;
      std::vector<double> label_sums;
      std::vector<std::int64_t> label_counts;
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t r = 0; r < count; ++r) {
        const std::int64_t j = first - block.begin + r;
        interp::nearest_neighbours(&rows[r * n], n, config.k, scratch, neighbours);
        if (neighbours.empty()) {
          empty_row = std::min(empty_row, first + r);
          continue;
        }
        const interp::Placement placed = interp::place(in_points, neighbours, config.place, &local.points[j * dim]);
        local.labels[j] = interp::majority_label(neighbours, in_labels);
        if (silhouettes) {
          local.silhouettes[j] =
              interp::silhouette(&rows[r * n], n, local.labels[j], in_labels, clusters, label_sums, label_counts);
        }
        stress += placed.stress;
        sum_squares += placed.sum_squares;
        iterations += placed.iterations;
        max_iterations = std::max<std::int64_t>(max_iterations, placed.iterations);
      }
    }
    if (empty_row != std::numeric_limits<std::int64_t>::max()) {
      throw spidal::InputError(config.distances_path + ": row " + std::to_string(empty_row) +
                               " has no distance to any in-sample point (all missing)");
    }
    local.stress += stress;
    local.sum_squares += sum_squares;
    local.iterations += iterations;
    local.max_iterations = max_iterations;
    // Blocks are balanced, so rank 0's share done is the whole job's.
    const std::int64_t done = first + count - block.begin;
    progress.report("placed", spidal::JsonFields()
                                  .add("rows", done)
                                  .add("of", block.rows())
                                  .add("fraction", static_cast<double>(done) / static_cast<double>(block.rows())));
  });
  return local;
}

// Rank 0 receives every rank's values, in rank order (= out-of-sample order).
template <typename T>
std::vector<T> gather(const std::vector<T>& local, MPI_Datatype type, const spidal::MpiEnv& mpi) {
  const int count = static_cast<int>(local.size());
  std::vector<int> counts(mpi.size()), displacements(mpi.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, mpi.comm());
  int total = 0;
  for (int r = 0; r < mpi.size(); ++r) {
    displacements[r] = total;
    total += counts[r];
  }
  std::vector<T> all(mpi.is_root() ? total : 0);
  MPI_Gatherv(local.data(), count, type, all.data(), counts.data(), displacements.data(), type, 0, mpi.comm());
  return all;
}

int run_interp(spidal::MpiEnv& mpi, int argc, char** argv) {
  const Config config = parse_config(argc, argv);
  spidal::check_output_writable(config.output_path);
  spidal::check_output_writable(config.clusters_output_path);
  if (!config.silhouettes_output_path.empty()) spidal::check_output_writable(config.silhouettes_output_path);
  spidal::ProgressReporter progress("interp", mpi.is_root());
  const std::int64_t n = config.in_sample, total = config.in_sample + config.out_of_sample;
  const int dim = config.place.dim;

  auto start = std::chrono::steady_clock::now();
  const std::vector<double> in_points = damds::read_points(config.points_path, n, dim);
  const std::vector<int> in_labels = interp::read_labels(config.clusters_path, n);
  const std::vector<std::int64_t> rows = interp::input_rows(config.sample_path, n, total);
  std::vector<interp::Centre> centres;
  if (!config.centres_path.empty()) centres = interp::read_centres(config.centres_path, n);
  std::vector<double> in_silhouettes;
  if (!config.silhouettes_path.empty()) in_silhouettes = interp::read_silhouettes(config.silhouettes_path, n);
  const double load_seconds = seconds_since(start);
  progress.report("loaded", spidal::JsonFields()
                                .add("in_sample", n)
                                .add("out_of_sample", config.out_of_sample)
                                .add("k", config.k)
                                .add("ranks", mpi.size())
                                .add("threads", omp_get_max_threads()));

  start = std::chrono::steady_clock::now();
  const spidal::RowBlock block = spidal::row_block(config.out_of_sample, mpi.size(), mpi.rank());
  const LocalResult local = place_rows(config, block, in_points, in_labels, progress, mpi.comm());
  const double place_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  const std::vector<double> out_points = gather(local.points, MPI_DOUBLE, mpi);
  const std::vector<int> out_labels = gather(local.labels, MPI_INT, mpi);
  const std::vector<double> out_silhouettes = gather(local.silhouettes, MPI_DOUBLE, mpi);
  double sums[2] = {local.stress, local.sum_squares};
  std::int64_t counts[2] = {local.iterations, local.max_iterations};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, mpi.comm());
  MPI_Allreduce(MPI_IN_PLACE, &counts[0], 1, MPI_INT64_T, MPI_SUM, mpi.comm());
  MPI_Allreduce(MPI_IN_PLACE, &counts[1], 1, MPI_INT64_T, MPI_MAX, mpi.comm());
  if (mpi.is_root()) {
    std::vector<double> points(static_cast<std::size_t>(total * dim));
    std::vector<int> labels(static_cast<std::size_t>(total));
    for (std::int64_t i = 0; i < total; ++i) {
      const double* from = i < n ? &in_points[i * dim] : &out_points[(i - n) * dim];
      std::copy(from, from + dim, &points[rows[i] * dim]);
      labels[rows[i]] = i < n ? in_labels[i] : out_labels[i - n];
    }
    damds::write_points(config.output_path, points, total, dim);
    interp::write_labels(config.clusters_output_path, labels);
    if (!in_silhouettes.empty()) {
      std::vector<double> silhouettes(static_cast<std::size_t>(total));
      for (std::int64_t i = 0; i < total; ++i) silhouettes[rows[i]] = i < n ? in_silhouettes[i] : out_silhouettes[i - n];
      interp::write_silhouettes(config.silhouettes_output_path, silhouettes);
    }
    if (!centres.empty()) {
      for (interp::Centre& centre : centres) {
        centre.count = std::count(labels.begin(), labels.end(), centre.label);
        centre.medoid = rows[centre.medoid];
      }
      interp::write_centres(config.centres_output_path, centres);
    }
  }
  const double output_seconds = seconds_since(start);

  progress.done(spidal::JsonFields()
                    .add("output", config.output_path)
                    .add("points", total)
                    .add("interpolated", config.out_of_sample)
                    // Σ(δ − d)² / Σδ² over every out-of-sample point's k neighbour pairs.
                    .add("stress", sums[1] > 0 ? sums[0] / sums[1] : 0.0)
                    .add("mean_iterations", static_cast<double>(counts[0]) / static_cast<double>(config.out_of_sample))
                    .add("max_iterations", counts[1])
                    .add("ranks", mpi.size())
                    .add("threads", omp_get_max_threads()),
                spidal::JsonFields().add("load", load_seconds).add("place", place_seconds).add("output", output_seconds));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_interp); }
