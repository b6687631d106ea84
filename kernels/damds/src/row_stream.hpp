// Out-of-core rows (the BDMPI idea, spidal/row_stream.hpp): when a rank's halves do not
// fit in the memory given, every pass reads them again from the SPIDAL matrix files
// themselves, block by block, the next block on a second thread.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "config.hpp"
#include "local_rows.hpp"
#include "spidal/matrix.hpp"
#include "spidal/row_stream.hpp"

namespace damds {

// Streamed blocks hold a multiple of this many rows (but the last), so that the
// passes' row groups (kRowGroup in kernels_avx2.cpp) and their order are those of the
// in-memory run.
inline constexpr std::int64_t kBlockRowMultiple = 64;

// The bytes a rank's rows' halves take in memory (weights included when a weight file
// is given).
std::int64_t halves_bytes(const Config& config, spidal::RowBlock block);

class RowStream {
 public:
  // Streams blocks of `block_rows` rows, weighted or not and with distances raised to
  // the smallest positive one as the scan over all ranks (load_streamed_rows) found.
  RowStream(const Config& config, std::int64_t block_rows, bool weighted, std::int16_t smallest_positive);

  bool weighted() const { return weighted_; }
  // Fills `into` with the halves of local rows [first, last), prepared as
  // load_local_rows prepares rows in memory, and drops them from the page cache.
  void read(const LocalRows& rows, std::int64_t first, std::int64_t last, LocalRows& into) const;
  // Calls visit(block) with consecutive blocks of `rows` (for_each_block).
  void visit_blocks(const LocalRows& rows, const std::function<void(const LocalRows&)>& visit) const;

 private:
  spidal::MatrixReader distances_;
  std::optional<spidal::MatrixReader> weights_;
  std::int64_t block_rows_;
  bool weighted_;
  std::int16_t smallest_positive_;
  // Kept from pass to pass (spidal::StreamBlocks), with read_halves' window of whole file
  // rows; a stream is visited by one pass at a time, and its reads never overlap.
  mutable spidal::StreamBlocks<LocalRows> blocks_;
  mutable std::vector<std::int16_t> window_;
};

// Sets `rows` (n, block, halves) up for streaming: one sequential scan over the rank's
// full rows computes the global statistics, decides the weighting as load_local_rows
// does, and checks that the matrices are symmetric (the in-memory load averages the
// two entries of a pair; a stream reads only one, so it refuses an asymmetric matrix
// and names the row). Collective.
// Blocks hold a quarter of `budget` (two blocks in memory at once, the scan's full rows
// taking twice a block's halves).
void load_streamed_rows(const Config& config, std::int64_t budget, LocalRows& rows, MPI_Comm comm);

}  // namespace damds
