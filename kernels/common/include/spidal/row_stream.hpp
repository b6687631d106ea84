// Out-of-core row blocks (the BDMPI idea), shared by damds, dapwc and interp: when a
// rank's rows do not fit in the memory given (--memory-limit, or the machine's available
// memory), a pass reads them from the SPIDAL file itself, block by block with explicit
// preads (MatrixReader::read), a second thread reading the next block while the pass
// runs on the current one; each block leaves the page cache once read
// (MatrixReader::forget), so a matrix larger than RAM streams without swap, mapped files
// or a converted copy.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <utility>

namespace spidal {

// "1048576", "512K", "300M", "24G" (powers of 1024) → bytes; throws UsageError naming
// --memory-limit.
std::int64_t parse_memory_limit(const std::string& text);

// The --memory-limit help text's common part, for the programs' option lists.
inline constexpr const char* kMemoryLimitHelp =
    "memory per rank (suffix K, M or G); rows that need more than 3/4 of it are streamed from disk on every "
    "pass; default: the machine's available memory shared by the node's ranks";

// The memory this rank may use: `limit` when positive, else the machine's available
// memory (MemAvailable) shared by the ranks on this node. Collective.
std::int64_t memory_budget(std::int64_t limit, MPI_Comm comm);

// Whether rows of `bytes` (this rank's) are to be streamed under `budget`: more than ¾
// of it (the rest holds the program's other arrays and MPI's buffers), on any rank, so
// every rank takes the same (collective) path. Collective.
bool must_stream(std::int64_t bytes, std::int64_t budget, MPI_Comm comm);

// Rows per streamed block: as many rows of `row_bytes` as fit in a quarter of `budget`
// (two blocks in memory at once, plus a load's scratch) and 256 MiB (larger blocks are
// read no faster), rounded down to a multiple of `multiple` but at least `multiple`, and
// at most `rows` (but at least 1).
std::int64_t stream_block_rows(std::int64_t budget, std::int64_t row_bytes, std::int64_t multiple, std::int64_t rows);

// The two blocks a stream alternates between. A program that streams on every pass keeps
// them from one pass to the next, so that a pass refills the pages of the pass before
// instead of faulting new ones in (zeroed by the kernel) and returning them.
template <typename Block>
struct StreamBlocks {
  Block current;
  Block next;
};

// Visits rows [0, total) in blocks of `step`: read(first, last, block) fills a block of
// `blocks` with rows [first, last), on a second thread for the next block while
// visit(block) runs on the current one. Either's exception is rethrown here once the
// other has finished.
template <typename Block, typename Read, typename Visit>
void for_each_streamed_block(std::int64_t total, std::int64_t step, StreamBlocks<Block>& blocks, Read read,
                             Visit visit) {
  if (total <= 0) return;
  Block& current = blocks.current;
  Block& next = blocks.next;
  read(0, std::min(step, total), current);
  for (std::int64_t first = 0; first < total; first += step) {
    const std::int64_t next_first = first + step;
    std::exception_ptr failure;
    std::thread reader;
    if (next_first < total) {
      reader = std::thread([&] {
        try {
          read(next_first, std::min(total, next_first + step), next);
        } catch (...) {
          failure = std::current_exception();
        }
      });
    }
    try {
      visit(static_cast<const Block&>(current));
    } catch (...) {
      if (reader.joinable()) reader.join();
      throw;
    }
    if (reader.joinable()) reader.join();
    if (failure) std::rethrow_exception(failure);
    std::swap(current, next);
  }
}

}  // namespace spidal
