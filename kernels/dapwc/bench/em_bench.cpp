// Times the DA-PWC E/M step on its own (for bench/dapwc/run.py):
//   dapwc_em_bench --distances FILE --points N --clusters K --iterations I [--memory-limit BYTES]
// loads this rank's rows, starts from K soft clusters (reproducible pseudo-random
// memberships) at a temperature where they stay soft, runs I E/M steps and prints
// one JSON line: seconds per step (mean and best), whether the rows were streamed from
// disk (--memory-limit below them, bench/dapwc/stream.py), ranks, threads.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "cluster_state.hpp"
#include "mpi_exchange.hpp"
#include "row_stream.hpp"
#include "spidal/errors.hpp"
#include "spidal/matrix.hpp"
#include "spidal/options.hpp"
#include "spidal/progress.hpp"
#include "spidal/row_stream.hpp"

namespace {

int run_bench(spidal::MpiEnv& mpi, int argc, char** argv) {
  spidal::Options options("dapwc_em_bench", "Times DA-PWC E/M steps.",
                          {{"distances", "FILE", "N×N int16 little-endian matrix", std::nullopt, {}},
                           {"points", "N", "matrix side", std::nullopt, {}},
                           {"clusters", "K", "clusters", "8", {}},
                           {"iterations", "I", "E/M steps to time", "10", {}},
                           {"memory-limit", "BYTES", spidal::kMemoryLimitHelp, std::nullopt, {}}});
  options.parse(argc, argv);
  const std::int64_t n = options.get_int("points", 2, 1'000'000'000LL);
  const int k = static_cast<int>(options.get_int("clusters", 1, 1000));
  const int iterations = static_cast<int>(options.get_int("iterations", 1, 100000));

  dapwc::MpiRowExchange exchange(mpi.comm(), n);
  const std::int64_t memory_limit =
      options.has("memory-limit") ? spidal::parse_memory_limit(options.get_string("memory-limit")) : 0;
  dapwc::DistanceRows distances = dapwc::load_distance_rows(options.get_string("distances"), n, spidal::ByteOrder::little,
                                                            exchange.local_block(), memory_limit, mpi.comm());
  const dapwc::MatrixSummary summary = dapwc::prepare_distances(distances, exchange);

  dapwc::ClusterState state = dapwc::single_cluster(n, summary.mean_distance);
  state.clusters = k;
  state.membership.assign(n * k, 0.0);
  for (std::int64_t p = 0; p < n; ++p) {
    double total = 0.0;
    for (int j = 0; j < k; ++j) total += state.membership[p * k + j] = 1.0 + ((p * 7919 + j * 104729) % 97);
    for (int j = 0; j < k; ++j) state.membership[p * k + j] /= total;
  }
  state.b.assign(n * k, 0.0);
  state.epsilon.assign(n * k, 0.0);
  state.a.assign(k, 0.0);
  state.size.assign(k, 0.0);

  dapwc::em_step(distances, exchange, state);  // warm-up
  double total = 0.0, best = 1e300;
  for (int i = 0; i < iterations; ++i) {
    MPI_Request barrier = MPI_REQUEST_NULL;  // start together, without spinning while waiting
    MPI_Ibarrier(mpi.comm(), &barrier);
    spidal::wait_yielding(barrier);
    const auto start = std::chrono::steady_clock::now();
    dapwc::em_step(distances, exchange, state);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total += seconds;
    best = std::min(best, seconds);
  }
  if (mpi.is_root())
    std::cout << spidal::JsonFields()
                     .add("points", n)
                     .add("clusters", k)
                     .add("iterations", iterations)
                     .add("seconds_per_iteration", total / iterations)
                     .add("best_seconds", best)
                     .add("streamed", distances.stream != nullptr)
                     .add("ranks", mpi.size())
                     .add("threads", omp_get_max_threads())
                     .object()
              << std::endl;
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_bench); }
