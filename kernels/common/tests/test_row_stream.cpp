#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "spidal/errors.hpp"
#include "spidal/row_stream.hpp"

namespace {

TEST(MemoryLimit, ParsesByteCountsWithSuffixes) {
  EXPECT_EQ(spidal::parse_memory_limit("1048576"), 1048576);
  EXPECT_EQ(spidal::parse_memory_limit("40K"), 40 << 10);
  EXPECT_EQ(spidal::parse_memory_limit("300m"), std::int64_t{300} << 20);
  EXPECT_EQ(spidal::parse_memory_limit("24G"), std::int64_t{24} << 30);
  for (const char* bad : {"", "0", "12T", "G", "-5M", "1.5G"}) {
    EXPECT_THROW(spidal::parse_memory_limit(bad), spidal::UsageError) << bad;
  }
}

TEST(MemoryLimit, AGivenLimitIsTheBudgetAndRowsOverThreeQuartersStream) {
  EXPECT_EQ(spidal::memory_budget(4096, MPI_COMM_WORLD), 4096);
  EXPECT_GT(spidal::memory_budget(0, MPI_COMM_WORLD), 0);  // MemAvailable shared by the node's ranks
  EXPECT_FALSE(spidal::must_stream(3072, 4096, MPI_COMM_WORLD));
  EXPECT_TRUE(spidal::must_stream(3073, 4096, MPI_COMM_WORLD));
}

TEST(StreamBlockRows, AQuarterOfTheBudgetInWholeMultiples) {
  EXPECT_EQ(spidal::stream_block_rows(40 << 10, 600, 16, 300), 16);     // 10 KiB hold 17 rows of 600 B
  EXPECT_EQ(spidal::stream_block_rows(1 << 20, 600, 1, 300), 300);     // all rows fit
  EXPECT_EQ(spidal::stream_block_rows(1024, 600, 16, 300), 16);        // never below the multiple
  EXPECT_EQ(spidal::stream_block_rows(std::int64_t{1} << 40, 2, 1, std::int64_t{1} << 30), std::int64_t{1} << 27);  // 256 MiB
  EXPECT_EQ(spidal::stream_block_rows(1 << 20, 600, 16, 0), 1);
}

struct Rows {
  std::int64_t first = -1, last = -1;
};

TEST(ForEachStreamedBlock, VisitsEveryBlockInOrderWhileTheNextIsRead) {
  std::vector<std::pair<std::int64_t, std::int64_t>> read, visited;
  std::atomic<int> reads{0};
  spidal::StreamBlocks<Rows> blocks;
  spidal::for_each_streamed_block(
      10, 4, blocks,
      [&](std::int64_t first, std::int64_t last, Rows& into) {
        read.emplace_back(first, last);
        into = {first, last};
        ++reads;
      },
      [&](const Rows& block) {
        // The next block is read while this one is visited: waiting here for its read
        // would never end if reads and visits took turns.
        visited.emplace_back(block.first, block.last);
        const int expected = std::min<int>(static_cast<int>(visited.size()) + 1, 3);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (reads.load() < expected && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        EXPECT_EQ(reads.load(), expected);
      });
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{0, 4}, {4, 8}, {8, 10}};
  EXPECT_EQ(read, expected);
  EXPECT_EQ(visited, expected);
}

TEST(ForEachStreamedBlock, RethrowsAFailedReadAfterTheVisit) {
  int visits = 0;
  spidal::StreamBlocks<Rows> blocks;
  EXPECT_THROW(spidal::for_each_streamed_block(
                   10, 4, blocks,
                   [&](std::int64_t first, std::int64_t last, Rows& into) {
                     if (first == 4) throw std::runtime_error("disk gone");
                     into = {first, last};
                   },
                   [&](const Rows&) { ++visits; }),
               std::runtime_error);
  EXPECT_EQ(visits, 1);
  EXPECT_THROW(spidal::for_each_streamed_block(
                   10, 4, blocks, [&](std::int64_t first, std::int64_t last, Rows& into) { into = {first, last}; },
                   [&](const Rows&) { throw std::logic_error("pass failed"); }),
               std::logic_error);
}

}  // namespace
