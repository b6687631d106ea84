#include "local_rows.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <omp.h>

#include "row_stream.hpp"
#include "spidal/errors.hpp"
#include "spidal/row_stream.hpp"

namespace damds {

// Bytes of whole file rows that read_halves reads at once.
constexpr std::int64_t kReadWindowBytes = 32 << 20;

bool LocalRows::weighted() const { return stream ? stream->weighted() : !weights.empty(); }

void read_halves(const spidal::MatrixReader& file, const LocalRows& rows, std::vector<std::int16_t>& out,
                 std::vector<std::int16_t>& scratch) {
  out.resize(static_cast<std::size_t>(rows.halves.before(rows.block.end) - rows.halves.before(rows.block.begin)));
  // A row's half is half of its file row, so reading halves row by row skips through the
  // file in small reads (about 380 MB/s of halves from a disk that reads 1.6 GB/s).
  // Whole rows are read a window at a time instead and the halves copied out: a streamed
  // pass took 0.89–0.95 s against 1.04–1.06 there (bench/RESULTS.md). The window is at
  // most half the block's rows, so its buffer is no larger than the block's halves.
  const std::int64_t row_bytes = rows.n * std::int64_t{sizeof(std::int16_t)};
  const std::int64_t largest = std::max<std::int64_t>(1, rows.block.rows() / 2);
  const std::int64_t window = std::clamp<std::int64_t>(kReadWindowBytes / row_bytes, 1, largest);
  scratch.resize(static_cast<std::size_t>(std::min(window, rows.block.rows()) * rows.n));
  for (std::int64_t first = 0; first < rows.block.rows(); first += window) {
    const std::int64_t count = std::min(window, rows.block.rows() - first);
    file.read(rows.block.begin + first, 0, count * rows.n, scratch.data());
    for (std::int64_t local_row = first; local_row < first + count; ++local_row) {
      const std::int64_t i = rows.block.begin + local_row;
      const std::int16_t* file_row = scratch.data() + (local_row - first) * rows.n;
      std::int16_t* row = out.data() + rows.row_start(local_row);
      const std::int64_t length = rows.row_length(local_row);
      const std::int64_t before_wrap = std::min(length, rows.n - (i + 1));
      std::copy_n(file_row + i + 1, before_wrap, row);
      std::copy_n(file_row, length - before_wrap, row + before_wrap);
    }
  }
}

namespace {

// File rows read at once by for_each_transposed, and local rows handled together.
constexpr std::int64_t kTransposeRows = 256;
constexpr std::int64_t kTransposeTile = 64;

// The other entries (j, i) of the pairs (i, j) that the local rows keep. Each file row j
// that holds some is read once, over the block's columns (a transposed block of the
// matrix), kTransposeRows rows at a time; then, in tiles of local rows (in parallel),
// visit(thread, position of the pair in the halves, distance_ji, weight_ji) is called:
// the positions of a tile's row are contiguous and the run of a file row is read in
// cache lines. weight_ji is kUnitWeight without a weight file.
template <typename Visit>
void for_each_transposed(const spidal::MatrixReader& distances, const spidal::MatrixReader* weights,
                         const LocalRows& rows, Visit visit) {
  const std::int64_t n = rows.n;
  const std::int64_t first = rows.block.begin;
  const std::int64_t width = rows.block.rows();
  if (width == 0) return;
  std::vector<std::int16_t> distance_runs(kTransposeRows * width);
  std::vector<std::int16_t> weight_runs(kTransposeRows * width, kUnitWeight);
  // Row i keeps columns i+1 … i+length(i) ≤ i+half+1, so the rows j holding the other
  // entries are first+1 … first+width+half (mod n).
  const std::int64_t steps = std::min(n, width + rows.halves.half() + 1);
  for (std::int64_t step = 0; step < steps; step += kTransposeRows) {
    const std::int64_t count = std::min(kTransposeRows, steps - step);
    for (std::int64_t r = 0; r < count; ++r) {
      const std::int64_t j = (first + 1 + step + r) % n;
      distances.read(j, first, width, distance_runs.data() + r * width);
      if (weights) weights->read(j, first, width, weight_runs.data() + r * width);
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t tile = 0; tile < width; tile += kTransposeTile) {
      const int thread = omp_get_thread_num();
      for (std::int64_t r = 0; r < count; ++r) {
        const std::int64_t j = (first + 1 + step + r) % n;
        for (std::int64_t local_row = tile; local_row < std::min(width, tile + kTransposeTile); ++local_row) {
          // Pair (i, j) is entry t = j − i − 1 (mod n) of row i's half, if that is short enough.
          const std::int64_t i = first + local_row;
          const std::int64_t t = j > i ? j - i - 1 : j - i - 1 + n;
          if (t >= rows.row_length(local_row)) continue;
          visit(thread, rows.row_start(local_row) + t, distance_runs[r * width + local_row],
                weight_runs[r * width + local_row]);
        }
      }
    }
  }
}

// The weighted mean of a pair's two distances, and the mean of its two weights (in
// stored units); a missing distance or a negative weight has weight 0. When neither
// entry counts, the distance stays missing (negative) unless one is present.
struct SymmetricPair {
  std::int16_t distance;
  std::int16_t weight;
};
SymmetricPair symmetric_pair(std::int16_t distance_ij, std::int16_t weight_ij, std::int16_t distance_ji,
                             std::int16_t weight_ji) {
  // The common case, a symmetric matrix, first.
  if (distance_ij == distance_ji && weight_ij == weight_ji && distance_ij >= 0) {
    return {distance_ij, std::max<std::int16_t>(weight_ij, 0)};
  }
  const std::int64_t w_ij = distance_ij < 0 ? 0 : std::max<std::int16_t>(weight_ij, 0);
  const std::int64_t w_ji = distance_ji < 0 ? 0 : std::max<std::int16_t>(weight_ji, 0);
  const std::int64_t total = w_ij + w_ji;
  const std::int16_t distance = total > 0
                                    ? static_cast<std::int16_t>((w_ij * distance_ij + w_ji * distance_ji + total / 2) / total)
                                    : std::max(distance_ij, distance_ji);
  return {distance, static_cast<std::int16_t>((total + 1) / 2)};
}

}  // namespace

LocalRows load_local_rows(const Config& config, MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  LocalRows rows;
  rows.n = config.points;
  rows.block = spidal::row_block(rows.n, size, rank);
  rows.halves = {rows.n};
  // Halves that take more than ¾ of the memory given (the rest holds the points, the
  // passes' sums and MPI's buffers) are streamed from the files.
  const std::int64_t budget = spidal::memory_budget(config.memory_limit, comm);
  if (spidal::must_stream(halves_bytes(config, rows.block), budget, comm)) {
    load_streamed_rows(config, budget, rows, comm);
    return rows;
  }
  // Open (and validate) both files on every rank before reading so all ranks fail alike.
  const spidal::MatrixReader distance_file(config.distances_path, rows.n, config.byte_order);
  std::optional<spidal::MatrixReader> weight_file;
  if (config.weights_path) weight_file.emplace(*config.weights_path, rows.n, config.byte_order);

  // The kept entries (i, j), then each pair made symmetric with its entry (j, i): weight
  // w = (w_ij + w_ji) / 2 and distance (w_ij δ_ij + w_ji δ_ji) / (w_ij + w_ji), a missing
  // distance or negative weight counting as weight 0. The stress over ordered pairs that
  // the original minimises is then 2 Σ_{i<j} w (δ − d)² plus a constant, so the result
  // is the same; a symmetric matrix is kept exactly as it is.
  std::vector<std::int16_t> scratch;
  read_halves(distance_file, rows, rows.distances, scratch);
  if (weight_file) read_halves(*weight_file, rows, rows.weights, scratch);
  // Without a weight file, weights are only needed where an entry is missing: a pair
  // missing one way keeps the other at half weight (listed here per thread), one missing
  // both ways does not count.
  std::vector<std::vector<std::int64_t>> half_weight(omp_get_max_threads());
  for_each_transposed(distance_file, weight_file ? &*weight_file : nullptr, rows,
                      [&](int thread, std::int64_t k, std::int16_t distance_ji, std::int16_t weight_ji) {
                        const std::int16_t weight_ij = weight_file ? rows.weights[k] : kUnitWeight;
                        const SymmetricPair pair = symmetric_pair(rows.distances[k], weight_ij, distance_ji, weight_ji);
                        rows.distances[k] = pair.distance;
                        if (weight_file) {
                          rows.weights[k] = pair.weight;
                        } else if (pair.weight != kUnitWeight && pair.distance >= 0) {
                          half_weight[thread].push_back(k);
                        }
                      });
  const bool needs_weights = std::any_of(half_weight.begin(), half_weight.end(), [](auto& list) { return !list.empty(); }) ||
                             std::any_of(rows.distances.begin(), rows.distances.end(), [](auto d) { return d < 0; });
  if (!weight_file && needs_weights) {
    rows.weights.assign(rows.distances.size(), kUnitWeight);
    for (const auto& list : half_weight) {
      for (const std::int64_t k : list) rows.weights[k] = (kUnitWeight + 1) / 2;
    }
    for (std::size_t k = 0; k < rows.distances.size(); ++k) {
      if (rows.distances[k] < 0) rows.weights[k] = 0;
    }
  }

  prepare_local_rows(rows, comm, config.distances_path);
  return rows;
}

void prepare_local_rows(LocalRows& rows, MPI_Comm comm, const std::string& source) {
  // Weights anywhere mean weights everywhere: every rank takes the same solver.
  const int local_weighted = rows.weighted() ? 1 : 0;
  int any_weighted = 0;
  MPI_Allreduce(&local_weighted, &any_weighted, 1, MPI_INT, MPI_MAX, comm);
  if (any_weighted && !rows.weighted()) rows.weights.assign(rows.distances.size(), kUnitWeight);

  const auto local = spidal::block_stats(rows.distances.data(), rows.weighted() ? rows.weights.data() : nullptr,
                                         rows.distances.size());
  rows.stats = spidal::reduce_stats(local, comm);
  if (!(rows.stats.sum_squares > 0.0)) {
    throw spidal::InputError(source + ": no positive distance with non-zero weight");
  }
  rows.closed_form = !rows.weighted();

  // Distances in [0, smallest positive) are raised to the smallest positive one (as in
  // the original); the diagonal is not kept and never counts.
  const std::int16_t smallest = stored_value(rows.stats.min_positive);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < rows.distances.size(); ++k) {
    std::int16_t& distance = rows.distances[k];
    if (distance >= 0 && distance < smallest) distance = smallest;
  }
}

}  // namespace damds
