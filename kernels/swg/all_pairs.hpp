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
#include <utility>
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
  // (some possibly empty), since each batch ends in a collective write. A rank's
  // tiles go in row-major order, so its batches' rows never go back.
  const std::vector<std::vector<Tile>>& batches() const { return batches_; }
  // The rows [first, second) that the tiles of `batch` cover ({0, 0} if none).
  std::pair<std::int64_t, std::int64_t> row_span(std::span<const Tile> batch) const;

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

// Rows [first, first + sequences.size()) of the plan's row set: all of them (the
// symmetric matrix) or those of one batch (streamed queries).
struct RowWindow {
  std::int64_t first = 0;
  std::span<const std::vector<Residue>> sequences;
  const std::vector<Residue>& operator[](std::int64_t row) const { return sequences[row - first]; }
};

// The residue codes that occur in any of `sequences` (lane profiles are built for these).
void mark_codes(std::span<const std::vector<Residue>> sequences, std::vector<bool>& used);
std::vector<Residue> marked_codes(const std::vector<bool>& used);

class TileAligner {
 public:
  // `col_sequences` is the plan's column set (the rows come with each batch);
  // `codes_in_use` every residue code of either set.
  TileAligner(const std::vector<std::vector<Residue>>& col_sequences, std::vector<Residue> codes_in_use,
              const ScoringScheme& scheme, DistanceKind distance, const LaneKernel& kernel, const TilePlan& plan);
  // Computes the tiles of one batch into `results` using all OpenMP threads;
  // `row_sequences` covers the batch's row_span. Passing the same `results` for
  // every batch reuses its buffers.
  void compute(std::span<const Tile> tiles, const RowWindow& row_sequences, std::vector<TileDistances>& results) const;
  // DP cells (len(a)·len(b)) of the distinct pairs in `tiles`, for throughput figures.
  std::int64_t cells(std::span<const Tile> tiles, const RowWindow& row_sequences) const;

 private:
  // A column block's sequences sorted by length and cut into groups as wide as the
  // distance's kernel has lanes, so that lanes of one group need little padding.
  std::vector<std::vector<std::vector<std::int64_t>>> lane_groups_;
  // Each column's lane group within its block (index into lane_groups_[block]).
  std::vector<std::int32_t> group_of_;
  const std::vector<std::vector<Residue>>& col_sequences_;
  const ScoringScheme& scheme_;
  DistanceKind distance_;
  LaneKernel kernel_;
  const TilePlan& plan_;
  std::vector<Residue> codes_in_use_;
  std::vector<int> self_scores_;  // --distance score: S(b, b) of each column
};

// The matrix blocks (tile and transpose) to write for a batch of tiles.
std::vector<spidal::MatrixBlock> matrix_blocks(const std::vector<TileDistances>& tiles, const TilePlan& plan);

}  // namespace swg
