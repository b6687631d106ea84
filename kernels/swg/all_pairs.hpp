// All-pairs distances over the symmetric matrix, as tiles of a checkerboard.
//
// The sequences are cut into blocks of `block_size`; tile (I, J) with I ≤ J holds
// the distances between block I (rows) and block J (columns). Only the upper
// triangle of tiles is computed, each exactly once, dealt round-robin to the MPI
// ranks; a rank computes its tiles a batch at a time, OpenMP threads taking
// (tile, lane group) work items dynamically, and writes each tile and its
// transpose with one collective MPI-IO call per batch.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lane_kernel.hpp"
#include "spidal/matrix_writer.hpp"

namespace swg {

struct Tile {
  std::int64_t row_block = 0, col_block = 0;  // I ≤ J
};

// Which tiles this rank computes, in which batches.
class TilePlan {
 public:
  // `memory_budget_bytes` bounds one batch's tile buffers on each rank.
  TilePlan(std::int64_t sequences, int block_size, int ranks, int rank, std::int64_t memory_budget_bytes);
  std::int64_t blocks() const { return blocks_; }
  std::int64_t block_begin(std::int64_t block) const { return block * block_size_; }
  std::int64_t block_end(std::int64_t block) const;
  // Batches of this rank's tiles; every rank has the same number of batches
  // (some possibly empty), since each batch ends in a collective write.
  const std::vector<std::vector<Tile>>& batches() const { return batches_; }

 private:
  std::int64_t sequences_;
  std::int64_t block_size_;
  std::int64_t blocks_;
  std::vector<std::vector<Tile>> batches_;
};

// The int16 distances of one tile, row-major, plus the transpose for off-diagonal tiles.
struct TileDistances {
  Tile tile;
  std::vector<std::int16_t> values;      // rows(I) × cols(J)
  std::vector<std::int16_t> transposed;  // cols(J) × rows(I); empty on the diagonal
};

class TileAligner {
 public:
  TileAligner(const std::vector<std::vector<Residue>>& sequences, const ScoringScheme& scheme, DistanceKind distance,
              const LaneKernel& kernel, const TilePlan& plan);
  // Computes the tiles of one batch using all OpenMP threads.
  std::vector<TileDistances> compute(std::span<const Tile> tiles) const;
  // DP cells (len(a)·len(b)) of the distinct pairs in `tiles`, for throughput figures.
  std::int64_t cells(std::span<const Tile> tiles) const;

 private:
  // A block's sequences sorted by length and cut into kernel.lanes-wide groups,
  // so that lanes of one group need little padding.
  std::vector<std::vector<std::vector<std::int64_t>>> lane_groups_;
  const std::vector<std::vector<Residue>>& sequences_;
  const ScoringScheme& scheme_;
  DistanceKind distance_;
  LaneKernel kernel_;
  const TilePlan& plan_;
  std::vector<Residue> codes_in_use_;
};

// The matrix blocks (tile and transpose) to write for a batch of tiles.
std::vector<spidal::MatrixBlock> matrix_blocks(const std::vector<TileDistances>& tiles, const TilePlan& plan);

}  // namespace swg
