#include "local_rows.hpp"

#include <algorithm>
#include <cmath>

#include "spidal/errors.hpp"

namespace damds {
namespace {

constexpr std::int16_t kUnitWeight = 32767;

std::int16_t to_stored(double value) { return static_cast<std::int16_t>(std::lround(value * spidal::kMatrixScale)); }

}  // namespace

LocalRows load_local_rows(const Config& config, const spidal::MpiEnv& mpi) {
  LocalRows rows;
  rows.n = config.points;
  rows.block = spidal::row_block(rows.n, mpi.size(), mpi.rank());
  // Validate both files on every rank before reading so all ranks fail alike.
  spidal::validate_matrix_file(config.distances_path, rows.n);
  if (config.weights_path) spidal::validate_matrix_file(*config.weights_path, rows.n);
  rows.distances = spidal::read_row_block(config.distances_path, rows.n, rows.block, config.byte_order);
  if (config.weights_path) {
    rows.weights = spidal::read_row_block(*config.weights_path, rows.n, rows.block, config.byte_order);
    // A negative weight can only mean "no weight": such pairs do not count.
    for (auto& weight : rows.weights) weight = std::max<std::int16_t>(weight, 0);
  }

  const auto local = spidal::block_stats(rows.distances.data(), rows.weighted() ? rows.weights.data() : nullptr,
                                         rows.distances.size());
  rows.stats = spidal::reduce_stats(local, mpi.comm());
  if (!(rows.stats.sum_squares > 0.0)) {
    throw spidal::InputError(config.distances_path + ": no positive distance with non-zero weight");
  }
  rows.closed_form = !rows.weighted() && rows.stats.missing_pairs == 0;
  if (!rows.weighted() && !rows.closed_form) rows.weights.assign(rows.distances.size(), kUnitWeight);

  // Distances in [0, smallest positive) are raised to the smallest positive one
  // (as in the original); the diagonal stays 0 and never counts.
  const std::int16_t smallest = to_stored(rows.stats.min_positive);
#pragma omp parallel for schedule(static)
  for (std::int64_t local_row = 0; local_row < rows.block.rows(); ++local_row) {
    const std::int64_t diagonal = rows.block.begin + local_row;
    std::int16_t* distance = rows.distances.data() + local_row * rows.n;
    std::int16_t* weight = rows.weighted() ? rows.weights.data() + local_row * rows.n : nullptr;
    for (std::int64_t column = 0; column < rows.n; ++column) {
      if (column == diagonal) {
        distance[column] = 0;
        if (weight) weight[column] = 0;
        continue;
      }
      if (distance[column] >= 0 && distance[column] < smallest) distance[column] = smallest;
      if (weight && distance[column] < 0) weight[column] = 0;
    }
  }
  return rows;
}

}  // namespace damds
