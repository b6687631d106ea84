// All-pairs distances as tiles of a checkerboard: the symmetric matrix of one
// set, or the rectangular block of a row set (out-of-sample sequences) against a
// column set (in-sample sequences).
//
// Rows and columns are cut into blocks of `block_size`; tile (I, J) holds the
// distances between row block I and column block J. For the symmetric matrix only
// the upper triangle of tiles (I ≤ J) is computed and each off-diagonal tile is
// also written transposed; for a rectangular block every tile is computed. Tiles
// are dealt round-robin to the MPI ranks; a rank computes its tiles a batch at a
// time, OpenMP threads taking (tile, lane group) work items dynamically, and
// writes them with one collective MPI-IO call per batch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "lane_kernel.hpp"
#include "spidal/matrix_writer.hpp"

namespace swg {

struct Tile {
  std::int64_t row_block = 0, col_block = 0;  // I ≤ J for the symmetric matrix
};

// One side of the checkerboard: `items` sequences in blocks of `block_size`.
struct BlockAxis {
  std::int64_t items = 0, block_size = 1;
  std::int64_t blocks() const { return (items + block_size - 1) / block_size; }
  std::int64_t begin(std::int64_t block) const { return block * block_size; }
  std::int64_t end(std::int64_t block) const { return std::min(items, (block + 1) * block_size); }
};

// Which tiles this rank computes, in which batches.
class TilePlan {
 public:
  // The symmetric N×N matrix of one set (upper-triangle tiles).
  static TilePlan symmetric(std::int64_t sequences, int block_size, int ranks, int rank,
                            std::int64_t memory_budget_bytes);
  // The rows × cols block of two sets (every tile).
  static TilePlan rectangular(std::int64_t rows, std::int64_t cols, int block_size, int ranks, int rank,
                              std::int64_t memory_budget_bytes);
  bool is_symmetric() const { return symmetric_; }
  const BlockAxis& rows() const { return rows_; }
  const BlockAxis& cols() const { return cols_; }
  // Batches of this rank's tiles; every rank has the same number of batches
  // (some possibly empty), since each batch ends in a collective write.
  const std::vector<std::vector<Tile>>& batches() const { return batches_; }

 private:
  // `memory_budget_bytes` bounds one batch's tile buffers on each rank.
  TilePlan(std::int64_t rows, std::int64_t cols, bool symmetric, int block_size, int ranks, int rank,
           std::int64_t memory_budget_bytes);
  bool symmetric_;
  BlockAxis rows_, cols_;
  std::vector<std::vector<Tile>> batches_;
};

// The int16 distances of one tile, row-major, plus the transpose for the
// symmetric matrix's off-diagonal tiles.
struct TileDistances {
  Tile tile;
  std::vector<std::int16_t> values;      // rows(I) × cols(J)
  std::vector<std::int16_t> transposed;  // cols(J) × rows(I); empty on the diagonal and for rectangular blocks
};

class TileAligner {
 public:
  // `row_sequences` and `col_sequences` are the plan's two sets (the same vector
  // for the symmetric matrix).
  TileAligner(const std::vector<std::vector<Residue>>& row_sequences,
              const std::vector<std::vector<Residue>>& col_sequences, const ScoringScheme& scheme,
              DistanceKind distance, const LaneKernel& kernel, const TilePlan& plan);
  // Computes the tiles of one batch using all OpenMP threads.
  std::vector<TileDistances> compute(std::span<const Tile> tiles) const;
  // DP cells (len(a)·len(b)) of the distinct pairs in `tiles`, for throughput figures.
  std::int64_t cells(std::span<const Tile> tiles) const;

 private:
  // A column block's sequences sorted by length and cut into kernel.lanes-wide
  // groups, so that lanes of one group need little padding.
  std::vector<std::vector<std::vector<std::int64_t>>> lane_groups_;
  const std::vector<std::vector<Residue>>& row_sequences_;
  const std::vector<std::vector<Residue>>& col_sequences_;
  const ScoringScheme& scheme_;
  DistanceKind distance_;
  LaneKernel kernel_;
  const TilePlan& plan_;
  std::vector<Residue> codes_in_use_;
};

// The matrix blocks (tile and transpose) to write for a batch of tiles.
std::vector<spidal::MatrixBlock> matrix_blocks(const std::vector<TileDistances>& tiles, const TilePlan& plan);

}  // namespace swg
