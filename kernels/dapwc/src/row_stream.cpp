#include "row_stream.hpp"

#include <memory>

#include "spidal/row_stream.hpp"

namespace dapwc {
namespace {

// Blocks hold whole tiles of the pass (kRowTile in distance_rows.cpp); the results do not
// depend on it (each row is summed alike wherever it falls).
constexpr std::int64_t kBlockRowMultiple = 16;

}  // namespace

RowStream::RowStream(const std::string& path, std::int64_t n, spidal::ByteOrder order, std::int64_t block_rows)
    : file_(path, n, order), block_rows_(block_rows) {}

void RowStream::read(const DistanceRows& rows, std::int64_t first, std::int64_t last, DistanceRows& into) const {
  const std::int64_t n = rows.n;
  into.n = n;
  into.block = {rows.block.begin + first, rows.block.begin + last};
  into.stored.resize(static_cast<std::size_t>(into.block.rows() * n));
  file_.read(into.block.begin, 0, into.block.rows() * n, into.stored.data());
  file_.forget(into.block.begin, into.block.rows());
  clean_rows(into, fill_);
}

DistanceRows load_distance_rows(const std::string& path, std::int64_t n, spidal::ByteOrder order,
                                spidal::RowBlock block, std::int64_t memory_limit, MPI_Comm comm) {
  DistanceRows rows{n, block, {}, nullptr};
  const std::int64_t row_bytes = n * static_cast<std::int64_t>(sizeof(std::int16_t));
  const std::int64_t budget = spidal::memory_budget(memory_limit, comm);
  if (spidal::must_stream(block.rows() * row_bytes, budget, comm)) {
    rows.stream = std::make_shared<RowStream>(
        path, n, order, spidal::stream_block_rows(budget, row_bytes, kBlockRowMultiple, block.rows()));
  } else {
    rows.stored = spidal::read_row_block(path, n, block, order);
  }
  return rows;
}

void RowStream::visit_blocks(const DistanceRows& rows, const std::function<void(const DistanceRows&)>& visit) const {
  spidal::for_each_streamed_block(
      rows.block.rows(), block_rows_, blocks_,
      [&](std::int64_t first, std::int64_t last, DistanceRows& into) { read(rows, first, last, into); }, visit);
}

void for_each_block(const DistanceRows& distances, const std::function<void(const DistanceRows&)>& visit) {
  if (distances.stream) {
    distances.stream->visit_blocks(distances, visit);
  } else {
    visit(distances);
  }
}

}  // namespace dapwc
