#include "spidal/row_stream.hpp"

#include <fstream>
#include <limits>

#include "spidal/errors.hpp"

namespace spidal {

std::int64_t parse_memory_limit(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string suffix = text.substr(digits);
  const int shift = suffix.empty() ? 0 : suffix == "K" || suffix == "k" ? 10 : suffix == "M" || suffix == "m" ? 20
                                                        : suffix == "G" || suffix == "g" ? 30 : -1;
  if (digits == 0 || digits > 12 || shift < 0 || std::stoll(text.substr(0, digits)) == 0) {
    throw UsageError("--memory-limit must be a positive byte count with an optional K, M or G suffix, got '" + text +
                     "'");
  }
  return std::stoll(text.substr(0, digits)) << shift;
}

std::int64_t memory_budget(std::int64_t limit, MPI_Comm comm) {
  if (limit > 0) return limit;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes >> unit) {
    if (key == "MemAvailable:") return kilobytes * 1024 / node_ranks;
  }
  // No /proc/meminfo (not Linux): never stream unless asked to.
  return std::numeric_limits<std::int64_t>::max();
}

bool must_stream(std::int64_t bytes, std::int64_t budget, MPI_Comm comm) {
  int stream = bytes > budget / 4 * 3 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &stream, 1, MPI_INT, MPI_MAX, comm);
  return stream != 0;
}

std::int64_t stream_block_rows(std::int64_t budget, std::int64_t row_bytes, std::int64_t multiple, std::int64_t rows) {
  constexpr std::int64_t kMaxBlockBytes = std::int64_t{256} << 20;
  const std::int64_t fitting = std::min(budget / 4, kMaxBlockBytes) / std::max<std::int64_t>(row_bytes, 1);
  const std::int64_t rounded = std::max(multiple, fitting / multiple * multiple);
  return std::min(rounded, std::max<std::int64_t>(rows, 1));
}

}  // namespace spidal
