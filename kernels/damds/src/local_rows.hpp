// One rank's share of the distance and weight matrices, kept as stored int16, plus
// the global statistics of the matrix. The matrices are symmetric, so each unordered
// pair is kept once (1 byte per matrix entry, 2 with weights).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include <mpi.h>

#include "spidal/matrix.hpp"
#include "spidal/mpi_env.hpp"

namespace damds {

// A weight of 1 as stored (value/32767), and a distance or weight in [0, 1] as stored.
inline constexpr std::int16_t kUnitWeight = 32767;
inline std::int16_t stored_value(double value) {
  return static_cast<std::int16_t>(std::lround(value * spidal::kMatrixScale));
}

// The pairs each row keeps: its circular upper half, columns i+1 … i+length(i) mod n,
// with length(i) = ⌊(n−1)/2⌋, plus the column i + n/2 for i < n/2 when n is even.
// Every unordered pair {i, j}, i ≠ j, is in exactly one row's half, and every row has
// the same number of pairs give or take one, so row blocks balance.
struct CircularHalves {
  std::int64_t n = 0;

  std::int64_t half() const { return (n - 1) / 2; }
  std::int64_t length(std::int64_t i) const { return half() + (n % 2 == 0 && i < n / 2 ? 1 : 0); }
  // The pairs of rows [0, i): where row i starts when the halves follow each other.
  std::int64_t before(std::int64_t i) const { return i * half() + (n % 2 == 0 ? std::min(i, n / 2) : 0); }
};

class RowStream;  // row_stream.hpp

struct LocalRows {
  std::int64_t n = 0;
  spidal::RowBlock block;
  CircularHalves halves;
  // The local rows' halves one after another: entry t of row i is column (i + 1 + t) mod n.
  std::vector<std::int16_t> distances;
  // Laid out as distances, or empty for unit weights. Pairs that do not count (missing
  // distance) hold weight 0 so the solver needs no separate mask.
  std::vector<std::int16_t> weights;
  spidal::MatrixStats stats;  // global, over unordered pairs with distance >= 0 and weight != 0
  // Unit weights and no missing distances: V⁺BX has a closed form (BX/N).
  bool closed_form = false;
  // Empty, or n factors u (identical on every rank) with the pairs' weights w_ij = u_i·u_j
  // (as stored, to int16 rounding), set by a caller that builds such weights (mdsseries):
  // V is then diagonal minus rank one, and V⁺BX = D⁻¹BX (Smacof::solve_closed_form).
  std::vector<double> weight_factors;

  // Set when the halves do not fit in the memory given (Config::memory_limit):
  // `distances` and `weights` stay empty and the passes read the halves from the matrix
  // files block by block (for_each_block).
  std::shared_ptr<const RowStream> stream;

  bool weighted() const;
  std::int64_t row_length(std::int64_t local_row) const { return halves.length(block.begin + local_row); }
  std::int64_t row_start(std::int64_t local_row) const {
    return halves.before(block.begin + local_row) - halves.before(block.begin);
  }
  const std::int16_t* distance_row(std::int64_t local_row) const { return distances.data() + row_start(local_row); }
  const std::int16_t* weight_row(std::int64_t local_row) const { return weights.data() + row_start(local_row); }
};

// Reads the halves of rows.block's rows from `file` into `out` (laid out as rows.distances),
// whole file rows at a time through `scratch` (resized as needed).
void read_halves(const spidal::MatrixReader& file, const LocalRows& rows, std::vector<std::int16_t>& out,
                 std::vector<std::int16_t>& scratch);

// Calls visit(block) with the halves of the rank's rows in memory: `rows` itself, or
// when streamed, consecutive blocks of its rows read from the files (the next block is
// read while visit runs on the current one). A pass visits its rows in the same order
// either way, in row groups of the same size (kBlockRowMultiple).
void for_each_block(const LocalRows& rows, const std::function<void(const LocalRows&)>& visit);

// Reads this rank's rows' halves, computes the statistics over all ranks and prepares
// them for the solver (zero distances raised to the smallest positive one; weights
// synthesised as 0/1 when unit weights meet missing distances). Collective. When the
// halves need more than ¾ of the memory given (memory_budget) they are streamed
// (row_stream.hpp).
LocalRows load_local_rows(const Config& config, MPI_Comm comm);

// The part of load_local_rows after the rows' distances (and weights, if any) are in
// place, for programs that compute them (mdsseries): unit weights widened to all ranks
// when any rank has weights, the global statistics, the solver choice and distances in
// [0, smallest positive) raised to it. Throws InputError naming `source` when no pair
// has a positive distance and non-zero weight. Collective.
void prepare_local_rows(LocalRows& rows, MPI_Comm comm, const std::string& source);

}  // namespace damds
