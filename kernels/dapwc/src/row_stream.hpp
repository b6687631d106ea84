// Out-of-core rows (the BDMPI idea, spidal/row_stream.hpp): when a rank's rows need more
// than ¾ of the memory given, every pass reads them again from the SPIDAL matrix file
// itself, block by block, the next block on a second thread while the pass runs.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "distance_rows.hpp"
#include "spidal/matrix.hpp"
#include "spidal/row_stream.hpp"

namespace dapwc {

class RowStream {
 public:
  RowStream(const std::string& path, std::int64_t n, spidal::ByteOrder order, std::int64_t block_rows);

  // Fills `into` with local rows [first, last) of `rows` as prepare_distances leaves rows
  // in memory (diagonal 0; missing values replaced once set_fill was called), and drops
  // them from the page cache.
  void read(const DistanceRows& rows, std::int64_t first, std::int64_t last, DistanceRows& into) const;
  // The value later reads put in place of missing (negative) distances.
  void set_fill(std::int16_t fill) { fill_ = fill; }
  // Calls visit(part) with consecutive blocks of `rows` read from the file (for_each_block).
  void visit_blocks(const DistanceRows& rows, const std::function<void(const DistanceRows&)>& visit) const;

 private:
  spidal::MatrixReader file_;
  std::int64_t block_rows_;
  std::optional<std::int16_t> fill_;
  // Kept from pass to pass (spidal::StreamBlocks); a stream is visited by one pass at a time.
  mutable spidal::StreamBlocks<DistanceRows> blocks_;
};

// This rank's rows of the n×n matrix at `path`: read into memory, or, when they need
// more than ¾ of spidal::memory_budget(memory_limit) on any rank, left on disk as a
// stream of blocks of a quarter of the budget. Collective over `comm`.
DistanceRows load_distance_rows(const std::string& path, std::int64_t n, spidal::ByteOrder order,
                                spidal::RowBlock block, std::int64_t memory_limit, MPI_Comm comm);

// Calls visit(part) with the rank's rows in memory: `distances` itself, or when streamed,
// consecutive blocks of its rows (part.block a sub-range of distances.block) read from
// the file while visit runs on the block before.
void for_each_block(const DistanceRows& distances, const std::function<void(const DistanceRows&)>& visit);

}  // namespace dapwc
