#include "config.hpp"

#include "spidal/errors.hpp"
#include "spidal/options.hpp"
#include "spidal/row_stream.hpp"

namespace dapwc {

Config parse_config(int argc, const char* const* argv) {
  const AnnealingSettings defaults;
  auto text = [](auto value) { return std::to_string(value); };
  spidal::Options options(
      "dapwc",
      "Deterministic-annealing pairwise clustering of an N×N SPIDAL distance matrix.\n"
      "Writes `index label` per point (labels 1..K, numbered in order of each cluster's first point);\n"
      "progress as JSON lines on stdout.",
      {
          {"distances", "FILE", "N×N int16 distance matrix (value/32767, negative = missing)", std::nullopt,
           {"DistanceMatrixFile"}},
          {"points", "N", "number of points (matrix side)", std::nullopt, {"NumberDataPoints"}},
          {"output", "FILE", "output `index label` file", std::nullopt, {"ClusterFile"}},
          {"max-clusters", "K", "most clusters to split into (MaxNcent)", text(defaults.max_clusters),
           {"MaxNcent"}},
          {"big-endian", "", "the matrix is big-endian (Java SPIDAL writers)", std::nullopt, {"IsBigEndian"}},
          {"centers", "FILE", "write each cluster's medoid (point index) here, one line per cluster",
           std::nullopt, {}},
          {"points-3d", "FILE", "`index x y z` coordinates (e.g. from damds): --centers adds 3D centres",
           std::nullopt, {}},
          {"silhouettes", "FILE", "write `index silhouette` per point here (0 alone in its cluster or with one cluster)",
           std::nullopt, {}},
          {"memory-limit", "BYTES", spidal::kMemoryLimitHelp, std::nullopt, {"MemoryLimit"}},
          {"min-cluster-size", "P", "clusters with fewer points are dropped at the end (default N/40, 2..25)",
           std::nullopt, {}},
          {"freezing-limit", "F", "final phase ends once every Σ M(1−M)/C_k is below this",
           "0.002", {"FreezingLimit"}},
          {"epsi-max-change", "E", "an E/M loop converges when max_k Σ|Δε|/N is at most this", "0.001",
           {"EpsiMaxChange"}},
          {"min-eig-test", "R", "split when λmin ≤ R·λmax (R < 0)", "-0.01", {"MinEigTest"}},
          {"too-small-to-split", "C", "clusters with C_k at most this are not tested", "5",
           {"TooSmallToSplit"}},
          {"wait-iterations", "W", "temperature steps between split tests after a split",
           text(defaults.wait_iterations), {"WaitIterations"}},
          {"final-steps", "S", "most temperature steps of the final freezing phase", text(defaults.final_steps),
           {"IterationAtEnd"}},
          {"max-em-iterations", "I", "most E/M steps per temperature", text(defaults.max_em_iterations),
           {"ConvergenceLoopLimit"}},
      });
  options.parse(argc, argv);

  Config config;
  config.distances_path = options.get_string("distances");
  config.points = options.get_int("points", 2, 2'000'000'000LL);
  config.output_path = options.get_string("output");
  config.byte_order = options.get_flag("big-endian") ? spidal::ByteOrder::big : spidal::ByteOrder::little;
  if (options.has("memory-limit")) config.memory_limit = spidal::parse_memory_limit(options.get_string("memory-limit"));
  if (options.has("points-3d") && !options.has("centers"))
    throw spidal::UsageError("--points-3d is only read for --centers");
  if (options.has("centers")) config.centers_path = options.get_string("centers");
  if (options.has("points-3d")) config.points3d_path = options.get_string("points-3d");
  if (options.has("silhouettes")) config.silhouettes_path = options.get_string("silhouettes");
  AnnealingSettings& a = config.annealing;
  a.max_clusters = static_cast<int>(options.get_int("max-clusters", 1, 1000));
  a.min_cluster_points = options.has("min-cluster-size")
                             ? static_cast<int>(options.get_int("min-cluster-size", 1, 2'000'000'000LL))
                             : default_min_cluster_points(config.points);
  a.freezing_limit = options.get_double("freezing-limit", 0.0, 1.0);
  a.epsi_max_change = options.get_double("epsi-max-change", 0.0, 1.0);
  a.min_eig_test = options.get_double("min-eig-test", -1.0, 0.0);
  a.too_small_to_split = options.get_double("too-small-to-split", 0.0, 1e12);
  a.wait_iterations = static_cast<int>(options.get_int("wait-iterations", 1, 100000));
  a.final_steps = static_cast<int>(options.get_int("final-steps", 0, 1000000));
  a.max_em_iterations = static_cast<int>(options.get_int("max-em-iterations", 1, 1000000));
  return config;
}

}  // namespace dapwc
