// SPIDAL binary matrices: N×N int16, row-major, no header; value s means s/32767,
// a negative value means "missing". Byte order depends on the producer.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "spidal/mpi_env.hpp"

namespace spidal {

enum class ByteOrder { little, big };

inline constexpr double kMatrixScale = 32767.0;

// Converts a stored value to the distance/weight it encodes.
inline double matrix_value(std::int16_t stored) { return stored * (1.0 / kMatrixScale); }

// Positioned reads of an n×n matrix file into native-order int16, no whole-file
// buffering. Opening throws InputError unless `path` is readable and holds exactly
// n*n int16 values; the message names the expected and actual byte counts.
class MatrixReader {
 public:
  MatrixReader(const std::string& path, std::int64_t n, ByteOrder order);
  // A rows × columns block file in the same format (swg's out-of-sample × in-sample
  // distances); the size check names both dimensions.
  MatrixReader(const std::string& path, std::int64_t rows, std::int64_t columns, ByteOrder order);
  ~MatrixReader();
  MatrixReader(const MatrixReader&) = delete;
  MatrixReader& operator=(const MatrixReader&) = delete;

  // `count` consecutive values from (row, column) on, row after row.
  void read(std::int64_t row, std::int64_t column, std::int64_t count, std::int16_t* out) const;
  // Drops rows [row, row + count) from the page cache: a matrix streamed pass after
  // pass (larger than RAM) then takes no memory beyond its reader's buffers, and
  // pushes nothing else out of the cache.
  void forget(std::int64_t row, std::int64_t count) const;

 private:
  std::string path_;
  std::int64_t n_;  // values per row
  ByteOrder order_;
  int fd_;
};

// Reads rows [block.begin, block.end) × n of the matrix into native-order int16.
std::vector<std::int16_t> read_row_block(const std::string& path, std::int64_t n,
                                         const RowBlock& block, ByteOrder order);

// Statistics over the pairs that count: stored value >= 0 (not missing) and, when
// weights are given, weight != 0.
struct MatrixStats {
  double max = 0.0;
  double min_positive = 0.0;     // 0 when no positive value exists
  double sum_squares = 0.0;
  // Σ stored² as an exact integer, so sum_squares does not depend on how the
  // matrix is split over ranks and threads.
  std::int64_t sum_squares_stored = 0;
  std::int64_t counted_pairs = 0;
  std::int64_t missing_pairs = 0;  // pairs with a negative (missing) distance
};

// Stats of a local block (`weights` may be null: unit weights); OpenMP-parallel.
MatrixStats block_stats(const std::int16_t* values, const std::int16_t* weights, std::size_t count);

// Adds the stats of another part of the same rank's pairs (a block read later).
void merge_stats(MatrixStats& into, const MatrixStats& part);

// Combines per-rank stats into the global ones on every rank.
MatrixStats reduce_stats(const MatrixStats& local, MPI_Comm comm);

}  // namespace spidal
