// The checkerboard of tiles: every pair computed exactly once over all ranks.
#include <gtest/gtest.h>

#include <set>

#include "all_pairs.hpp"

namespace {

TEST(TilePlan, CoversTheUpperTriangleOnceWithEqualBatchCounts) {
  const std::int64_t n = 1000;
  const int block = 64, ranks = 3;
  std::vector<int> covered(n * n, 0);
  std::size_t batch_count = 0;
  for (int rank = 0; rank < ranks; ++rank) {
    const swg::TilePlan plan(n, block, ranks, rank, /*memory budget*/ 4 * block * block * 5);
    if (rank == 0) batch_count = plan.batches().size();
    EXPECT_EQ(plan.batches().size(), batch_count) << "ranks must agree on the number of collective writes";
    EXPECT_EQ(plan.blocks(), 16);
    EXPECT_EQ(plan.block_end(15), n);
    for (const auto& batch : plan.batches()) {
      EXPECT_LE(batch.size(), 5u);  // memory budget: five tiles
      for (const auto& tile : batch) {
        ASSERT_LE(tile.row_block, tile.col_block);
        for (auto i = plan.block_begin(tile.row_block); i < plan.block_end(tile.row_block); ++i) {
          for (auto j = plan.block_begin(tile.col_block); j < plan.block_end(tile.col_block); ++j) {
            ++covered[i * n + j];
            if (tile.row_block != tile.col_block) ++covered[j * n + i];
          }
        }
      }
    }
  }
  for (std::int64_t k = 0; k < n * n; ++k) ASSERT_EQ(covered[k], 1) << "cell " << k / n << "," << k % n;
}

}  // namespace
