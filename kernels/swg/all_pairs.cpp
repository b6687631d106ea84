#include "all_pairs.hpp"

#include <omp.h>

#include <algorithm>
#include <numeric>

namespace swg {

TilePlan::TilePlan(std::int64_t sequences, int block_size, int ranks, int rank, std::int64_t memory_budget_bytes)
    : sequences_(sequences), block_size_(block_size), blocks_((sequences + block_size - 1) / block_size) {
  std::vector<Tile> mine;
  std::int64_t index = 0;
  for (std::int64_t i = 0; i < blocks_; ++i) {
    for (std::int64_t j = i; j < blocks_; ++j, ++index) {
      if (index % ranks == rank) mine.push_back({i, j});
    }
  }
  const std::int64_t tiles = index;
  const std::int64_t most_per_rank = (tiles + ranks - 1) / ranks;
  // A tile and its transpose take 2·block²·2 bytes. Several batches also give
  // regular progress lines.
  const std::int64_t tile_bytes = 4 * block_size_ * block_size_;
  const std::int64_t by_memory = std::max<std::int64_t>(1, memory_budget_bytes / tile_bytes);
  const std::int64_t for_progress = std::max<std::int64_t>(1, (most_per_rank + 9) / 10);
  const std::int64_t per_batch = std::min(by_memory, for_progress);
  const std::int64_t batch_count = std::max<std::int64_t>(1, (most_per_rank + per_batch - 1) / per_batch);
  batches_.resize(batch_count);
  for (std::size_t t = 0; t < mine.size(); ++t) batches_[t / per_batch].push_back(mine[t]);
}

std::int64_t TilePlan::block_end(std::int64_t block) const {
  return std::min(sequences_, (block + 1) * block_size_);
}

TileAligner::TileAligner(const std::vector<std::vector<Residue>>& sequences, const ScoringScheme& scheme,
                         const LaneKernel& kernel, const TilePlan& plan)
    : sequences_(sequences), scheme_(scheme), kernel_(kernel), plan_(plan) {
  lane_groups_.resize(plan.blocks());
  for (std::int64_t block = 0; block < plan.blocks(); ++block) {
    std::vector<std::int64_t> order(plan.block_end(block) - plan.block_begin(block));
    std::iota(order.begin(), order.end(), plan.block_begin(block));
    std::stable_sort(order.begin(), order.end(),
                     [&](auto x, auto y) { return sequences[x].size() < sequences[y].size(); });
    for (std::size_t start = 0; start < order.size(); start += kernel.lanes) {
      const auto end = std::min(order.size(), start + kernel.lanes);
      lane_groups_[block].emplace_back(order.begin() + start, order.begin() + end);
    }
  }
  std::vector<bool> used(scheme.alphabet_size, false);
  for (const auto& sequence : sequences) {
    for (const Residue r : sequence) used[r] = true;
  }
  for (int code = 0; code < scheme.alphabet_size; ++code) {
    if (used[code]) codes_in_use_.push_back(static_cast<Residue>(code));
  }
}

std::vector<TileDistances> TileAligner::compute(std::span<const Tile> tiles) const {
  std::vector<TileDistances> results(tiles.size());
  struct WorkItem {
    std::size_t tile;
    std::size_t group;
  };
  std::vector<WorkItem> items;
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    const Tile& tile = tiles[t];
    const auto rows = plan_.block_end(tile.row_block) - plan_.block_begin(tile.row_block);
    const auto cols = plan_.block_end(tile.col_block) - plan_.block_begin(tile.col_block);
    results[t].tile = tile;
    results[t].values.assign(rows * cols, 0);
    if (tile.row_block != tile.col_block) results[t].transposed.assign(rows * cols, 0);
    for (std::size_t g = 0; g < lane_groups_[tile.col_block].size(); ++g) items.push_back({t, g});
  }
  const std::int32_t open_key = key::gap(scheme_.gap_open), extend_key = key::gap(scheme_.gap_extend);

#pragma omp parallel
  {
    LaneProfile profile;
    AlignedVector<std::int32_t> workspace;
    std::vector<std::int32_t> best_keys;
    std::vector<std::span<const Residue>> packed_rows, lane_sequences;
    std::vector<std::int64_t> packed_row_index;

#pragma omp for schedule(dynamic, 1)
    for (std::size_t w = 0; w < items.size(); ++w) {
      const Tile& tile = tiles[items[w].tile];
      TileDistances& out = results[items[w].tile];
      const auto& group = lane_groups_[tile.col_block][items[w].group];
      const std::int64_t row0 = plan_.block_begin(tile.row_block), row_end = plan_.block_end(tile.row_block);
      const std::int64_t col0 = plan_.block_begin(tile.col_block);
      const std::int64_t rows = row_end - row0, cols = plan_.block_end(tile.col_block) - col0;
      const auto store = [&](std::int64_t i, std::int64_t j, const AlignmentStats& stats) {
        const std::int16_t value = i == j ? 0 : stored_distance(stats);
        out.values[(i - row0) * cols + (j - col0)] = value;
        if (!out.transposed.empty()) out.transposed[(j - col0) * rows + (i - row0)] = value;
      };

      lane_sequences.clear();
      for (const auto j : group) lane_sequences.emplace_back(sequences_[j]);
      profile.build(scheme_, lane_sequences, kernel_.lanes, codes_in_use_);
      workspace.resize(2 * static_cast<std::size_t>(profile.columns()) * kernel_.lanes);

      // Rows short enough for the packed keys go through the SIMD kernel together;
      // the rest are aligned lane by lane with the scalar reference.
      packed_rows.clear();
      packed_row_index.clear();
      for (std::int64_t i = row0; i < row_end; ++i) {
        if (static_cast<int>(sequences_[i].size()) + profile.columns() <= kMaxPackedPairLength) {
          packed_rows.emplace_back(sequences_[i]);
          packed_row_index.push_back(i);
        } else {
          for (const auto j : group) store(i, j, align_reference(sequences_[i], sequences_[j], scheme_));
        }
      }
      best_keys.resize(packed_rows.size() * kernel_.lanes);
      kernel_.run({&profile, packed_rows, open_key, extend_key, best_keys.data(), workspace.data()});
      for (std::size_t r = 0; r < packed_rows.size(); ++r) {
        for (std::size_t lane = 0; lane < group.size(); ++lane) {
          store(packed_row_index[r], group[lane], key::decode(best_keys[r * kernel_.lanes + lane]));
        }
      }
    }
  }
  return results;
}

std::int64_t TileAligner::cells(std::span<const Tile> tiles) const {
  std::int64_t total = 0;
  for (const Tile& tile : tiles) {
    std::int64_t row_residues = 0, col_residues = 0;
    for (auto i = plan_.block_begin(tile.row_block); i < plan_.block_end(tile.row_block); ++i) {
      row_residues += static_cast<std::int64_t>(sequences_[i].size());
    }
    for (auto j = plan_.block_begin(tile.col_block); j < plan_.block_end(tile.col_block); ++j) {
      col_residues += static_cast<std::int64_t>(sequences_[j].size());
    }
    if (tile.row_block != tile.col_block) {
      total += row_residues * col_residues;
    } else {  // distinct unordered pairs only: (Σ² − Σ squares) / 2
      std::int64_t squares = 0;
      for (auto i = plan_.block_begin(tile.row_block); i < plan_.block_end(tile.row_block); ++i) {
        squares += static_cast<std::int64_t>(sequences_[i].size() * sequences_[i].size());
      }
      total += (row_residues * row_residues - squares) / 2;
    }
  }
  return total;
}

std::vector<spidal::MatrixBlock> matrix_blocks(const std::vector<TileDistances>& tiles, const TilePlan& plan) {
  std::vector<spidal::MatrixBlock> blocks;
  for (const auto& t : tiles) {
    const auto row0 = plan.block_begin(t.tile.row_block), rows = plan.block_end(t.tile.row_block) - row0;
    const auto col0 = plan.block_begin(t.tile.col_block), cols = plan.block_end(t.tile.col_block) - col0;
    blocks.push_back({row0, col0, rows, cols, t.values.data()});
    if (!t.transposed.empty()) blocks.push_back({col0, row0, cols, rows, t.transposed.data()});
  }
  return blocks;
}

}  // namespace swg
