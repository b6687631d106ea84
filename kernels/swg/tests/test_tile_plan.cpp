// The checkerboard of tiles: every pair computed exactly once over all ranks.
#include <gtest/gtest.h>

#include <set>

#include "all_pairs.hpp"

namespace {

// Counts, over all ranks' batches, how often each cell of the rows × cols matrix is
// written (tiles and, for the symmetric matrix, their transposes).
std::vector<int> coverage(std::int64_t rows, std::int64_t cols, bool symmetric, int block, int ranks,
                          std::size_t tiles_per_batch) {
  std::vector<int> covered(rows * cols, 0);
  std::size_t batch_count = 0;
  const std::int64_t tile_bytes = (symmetric ? 4 : 2) * block * block;
  for (int rank = 0; rank < ranks; ++rank) {
    const auto budget = static_cast<std::int64_t>(tile_bytes * tiles_per_batch);
    const auto plan = symmetric ? swg::TilePlan::symmetric(rows, block, ranks, rank, budget)
                                : swg::TilePlan::rectangular(rows, cols, block, ranks, rank, budget);
    if (rank == 0) batch_count = plan.batches().size();
    EXPECT_EQ(plan.batches().size(), batch_count) << "ranks must agree on the number of collective writes";
    EXPECT_EQ(plan.is_symmetric(), symmetric);
    EXPECT_EQ(plan.rows().end(plan.rows().blocks() - 1), rows);
    EXPECT_EQ(plan.cols().end(plan.cols().blocks() - 1), cols);
    for (const auto& batch : plan.batches()) {
      EXPECT_LE(batch.size(), tiles_per_batch);  // the memory budget
      for (const auto& tile : batch) {
        if (symmetric) {
          EXPECT_LE(tile.row_block, tile.col_block);
        }
        for (auto i = plan.rows().begin(tile.row_block); i < plan.rows().end(tile.row_block); ++i) {
          for (auto j = plan.cols().begin(tile.col_block); j < plan.cols().end(tile.col_block); ++j) {
            ++covered[i * cols + j];
            if (symmetric && tile.row_block != tile.col_block) ++covered[j * cols + i];
          }
        }
      }
    }
  }
  return covered;
}

TEST(TilePlan, CoversTheUpperTriangleOnceWithEqualBatchCounts) {
  const auto covered = coverage(1000, 1000, true, 64, 3, 5);
  for (std::size_t k = 0; k < covered.size(); ++k) ASSERT_EQ(covered[k], 1) << "cell " << k / 1000 << "," << k % 1000;
  EXPECT_EQ(swg::TilePlan::symmetric(1000, 64, 1, 0, 1 << 20).rows().blocks(), 16);
}

// Out-of-sample rows × in-sample columns: every cell of the block once.
TEST(TilePlan, CoversARectangularBlockOnce) {
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{130, 1000}, {1000, 70}, {5, 5}}) {
    const auto covered = coverage(rows, cols, false, 64, 3, 4);
    for (std::size_t k = 0; k < covered.size(); ++k) {
      ASSERT_EQ(covered[k], 1) << rows << "×" << cols << " cell " << k / cols << "," << k % cols;
    }
  }
}

}  // namespace
