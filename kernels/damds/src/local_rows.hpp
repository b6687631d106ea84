// One rank's rows of the distance and weight matrices, kept as stored int16
// (2 bytes per pair, 4 with weights), plus the global statistics of the matrix.
#pragma once

#include <cstdint>
#include <vector>

#include "config.hpp"
#include "spidal/matrix.hpp"
#include "spidal/mpi_env.hpp"

namespace damds {

struct LocalRows {
  std::int64_t n = 0;
  spidal::RowBlock block;
  std::vector<std::int16_t> distances;  // block.rows() × n
  // block.rows() × n, or empty for unit weights. Pairs that do not count (missing
  // distance, diagonal) hold weight 0 so the solver needs no separate mask.
  std::vector<std::int16_t> weights;
  spidal::MatrixStats stats;  // global, over pairs with distance >= 0 and weight != 0
  // Unit weights and no missing distances: (V + I) has a closed-form inverse.
  bool closed_form = false;

  bool weighted() const { return !weights.empty(); }
  const std::int16_t* distance_row(std::int64_t local_row) const { return distances.data() + local_row * n; }
  const std::int16_t* weight_row(std::int64_t local_row) const { return weights.data() + local_row * n; }
};

// Reads this rank's rows, computes the statistics over all ranks and prepares the
// rows for the solver (zero distances raised to the smallest positive one; weights
// synthesised as 0/1 when unit weights meet missing distances). Collective.
LocalRows load_local_rows(const Config& config, const spidal::MpiEnv& mpi);

}  // namespace damds
