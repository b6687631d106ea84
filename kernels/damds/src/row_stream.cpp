#include "row_stream.hpp"

#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "spidal/errors.hpp"
#include "spidal/row_stream.hpp"

namespace damds {
namespace {

// Bytes of one row's half in memory.
std::int64_t half_row_bytes(const Config& config) {
  const std::int64_t files = config.weights_path ? 2 : 1;
  return std::max<std::int64_t>(1, (config.points - 1) / 2 + 1) * static_cast<std::int64_t>(sizeof(std::int16_t)) * files;
}

// Weights as load_local_rows leaves them: a weight file's clipped at 0, synthesised
// ones 1; either way 0 where the distance is missing.
void prepare_weights(LocalRows& block, bool from_file) {
  if (!from_file) block.weights.resize(block.distances.size());
  for (std::size_t k = 0; k < block.distances.size(); ++k) {
    const std::int16_t weight = from_file ? std::max<std::int16_t>(block.weights[k], 0) : kUnitWeight;
    block.weights[k] = block.distances[k] < 0 ? std::int16_t{0} : weight;
  }
}

// The halves of local rows [first, last) from full rows `full` (row after row).
void halves_from_full_rows(const std::vector<std::int16_t>& full, LocalRows& part, std::vector<std::int16_t>& out) {
  const std::int64_t n = part.n;
  out.resize(static_cast<std::size_t>(part.halves.before(part.block.end) - part.halves.before(part.block.begin)));
  for (std::int64_t r = 0; r < part.block.rows(); ++r) {
    const std::int64_t i = part.block.begin + r;
    const std::int16_t* row = full.data() + r * n;
    const std::int64_t length = part.row_length(r);
    const std::int64_t before_wrap = std::min(length, n - (i + 1));
    std::int16_t* into = out.data() + part.row_start(r);
    std::copy_n(row + i + 1, before_wrap, into);
    std::copy_n(row, length - before_wrap, into + before_wrap);
  }
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Symmetry fingerprints: row i's Σ_j v_ij·h(j) and column j's Σ_i v_ij·h(i) (mod 2⁶⁴,
// so any order of addition gives the same value), v the entry's distance and weight
// bits; a symmetric matrix has equal row and column prints. Columns in tiles, each a
// thread's, so no two threads add to one column.
class SymmetryPrints {
 public:
  SymmetryPrints(std::int64_t n, spidal::RowBlock block) : n_(n), block_(block), hashes_(n), columns_(n, 0), rows_(block.rows(), 0) {
    for (std::int64_t j = 0; j < n; ++j) hashes_[j] = mix(static_cast<std::uint64_t>(j) + 0x9e3779b97f4a7c15ULL) | 1;
  }

  // Full rows [first, first + count) of the rank's block; `weights` empty without a file.
  void add(std::int64_t first, std::int64_t count, const std::vector<std::int16_t>& distances,
           const std::vector<std::int16_t>& weights) {
    constexpr std::int64_t kTile = 2048;
#pragma omp parallel
    {
      std::vector<std::uint64_t> row_parts(count, 0);
#pragma omp for schedule(static)
      for (std::int64_t tile = 0; tile < n_; tile += kTile) {
        const std::int64_t end = std::min(n_, tile + kTile);
        for (std::int64_t r = 0; r < count; ++r) {
          const std::uint64_t hi = hashes_[block_.begin + first + r];
          const std::int16_t* d = distances.data() + r * n_;
          const std::int16_t* w = weights.empty() ? nullptr : weights.data() + r * n_;
          std::uint64_t row = 0;
          for (std::int64_t j = tile; j < end; ++j) {
            const std::uint64_t v = static_cast<std::uint16_t>(d[j]) |
                                    (w ? static_cast<std::uint64_t>(static_cast<std::uint16_t>(w[j])) << 16 : 0);
            row += v * hashes_[j];
            columns_[j] += v * hi;
          }
          row_parts[r] += row;
        }
      }
#pragma omp critical
      for (std::int64_t r = 0; r < count; ++r) rows_[first + r] += row_parts[r];
    }
  }

  // The first row (over all ranks) whose print differs from its column's, or n. Collective.
  std::int64_t first_asymmetric_row(MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, columns_.data(), static_cast<int>(n_), MPI_UINT64_T, MPI_SUM, comm);
    std::int64_t first = n_;
    for (std::int64_t r = 0; r < block_.rows(); ++r) {
      if (rows_[r] != columns_[block_.begin + r]) {
        first = block_.begin + r;
        break;
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, comm);
    return first;
  }

 private:
  std::int64_t n_;
  spidal::RowBlock block_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::uint64_t> columns_;
  std::vector<std::uint64_t> rows_;
};

}  // namespace

std::int64_t halves_bytes(const Config& config, spidal::RowBlock block) {
  return block.rows() * half_row_bytes(config);
}

RowStream::RowStream(const Config& config, std::int64_t block_rows, bool weighted,
                     std::int16_t smallest_positive)
    : distances_(config.distances_path, config.points, config.byte_order),
      block_rows_(block_rows),
      weighted_(weighted),
      smallest_positive_(smallest_positive) {
  if (config.weights_path) weights_.emplace(*config.weights_path, config.points, config.byte_order);
}

void RowStream::read(const LocalRows& rows, std::int64_t first, std::int64_t last, LocalRows& into) const {
  into.n = rows.n;
  into.halves = rows.halves;
  into.block = {rows.block.begin + first, rows.block.begin + last};
  into.stats = rows.stats;
  into.closed_form = rows.closed_form;
  read_halves(distances_, into, into.distances, window_);
  distances_.forget(into.block.begin, into.block.rows());
  if (weights_) {
    read_halves(*weights_, into, into.weights, window_);
    weights_->forget(into.block.begin, into.block.rows());
  }
  if (weighted_) prepare_weights(into, weights_.has_value());
  for (std::int16_t& distance : into.distances) {
    if (distance >= 0 && distance < smallest_positive_) distance = smallest_positive_;
  }
}

void load_streamed_rows(const Config& config, std::int64_t budget, LocalRows& rows, MPI_Comm comm) {
  const std::int64_t n = rows.n;
  const spidal::MatrixReader distance_file(config.distances_path, n, config.byte_order);
  std::optional<spidal::MatrixReader> weight_file;
  if (config.weights_path) weight_file.emplace(*config.weights_path, n, config.byte_order);

  const std::int64_t block_rows = spidal::stream_block_rows(budget, half_row_bytes(config), kBlockRowMultiple, rows.block.rows());
  std::vector<std::int16_t> full_distances;
  std::vector<std::int16_t> full_weights;
  SymmetryPrints prints(n, rows.block);
  spidal::MatrixStats local;
  LocalRows part;
  part.n = n;
  part.halves = rows.halves;
  for (std::int64_t first = 0; first < rows.block.rows(); first += block_rows) {
    const std::int64_t count = std::min(block_rows, rows.block.rows() - first);
    part.block = {rows.block.begin + first, rows.block.begin + first + count};
    full_distances.resize(static_cast<std::size_t>(count * n));
    distance_file.read(part.block.begin, 0, count * n, full_distances.data());
    distance_file.forget(part.block.begin, count);
    if (weight_file) {
      full_weights.resize(full_distances.size());
      weight_file->read(part.block.begin, 0, count * n, full_weights.data());
      weight_file->forget(part.block.begin, count);
    }
    prints.add(first, count, full_distances, full_weights);
    halves_from_full_rows(full_distances, part, part.distances);
    if (weight_file) {
      halves_from_full_rows(full_weights, part, part.weights);
      prepare_weights(part, true);
    }
    spidal::merge_stats(local, spidal::block_stats(part.distances.data(), weight_file ? part.weights.data() : nullptr,
                                                   part.distances.size()));
  }
  const std::int64_t asymmetric = prints.first_asymmetric_row(comm);
  if (asymmetric < n) {
    throw spidal::InputError(config.distances_path + (config.weights_path ? " (or its weights)" : "") + ": row " +
                             std::to_string(asymmetric) +
                             " differs from its column: a matrix streamed from disk (larger than --memory-limit) "
                             "must be symmetric; give more memory to load and symmetrise it");
  }
  rows.stats = spidal::reduce_stats(local, comm);
  if (!(rows.stats.sum_squares > 0.0)) {
    throw spidal::InputError(config.distances_path + ": no positive distance with non-zero weight");
  }
  // As in memory: weights from the file, or synthesised when any rank has a missing distance.
  const bool weighted = config.weights_path.has_value() || rows.stats.missing_pairs > 0;
  rows.closed_form = !weighted;
  rows.stream = std::make_shared<RowStream>(config, block_rows, weighted, stored_value(rows.stats.min_positive));
}

void RowStream::visit_blocks(const LocalRows& rows, const std::function<void(const LocalRows&)>& visit) const {
  spidal::for_each_streamed_block(
      rows.block.rows(), block_rows_, blocks_,
      [&](std::int64_t first, std::int64_t last, LocalRows& into) { read(rows, first, last, into); }, visit);
}

void for_each_block(const LocalRows& rows, const std::function<void(const LocalRows&)>& visit) {
  if (rows.stream) {
    rows.stream->visit_blocks(rows, visit);
  } else {
    visit(rows);
  }
}

}  // namespace damds
