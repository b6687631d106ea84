// Collective MPI-IO writing of an N×N int16 SPIDAL matrix (or a rows × cols block
// of one, e.g. out-of-sample × in-sample distances) in rectangular blocks, so no
// rank ever holds more than the blocks it is writing (e.g. SWG tiles and their
// transposes).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>

#include "spidal/matrix.hpp"

namespace spidal {

// rows × cols values, row-major (stride cols), placed at (row, col) of the matrix.
struct MatrixBlock {
  std::int64_t row = 0, col = 0, rows = 0, cols = 0;
  const std::int16_t* values = nullptr;  // native byte order
};

class Int16MatrixWriter {
 public:
  // Collective over `comm`: creates (or truncates) `path` and sizes it to n·n values.
  // Throws std::runtime_error when the file cannot be opened.
  Int16MatrixWriter(MPI_Comm comm, const std::string& path, std::int64_t n, ByteOrder order);
  // The same for a rows × cols matrix (row-major, no header).
  Int16MatrixWriter(MPI_Comm comm, const std::string& path, std::int64_t rows, std::int64_t cols, ByteOrder order);
  ~Int16MatrixWriter();
  Int16MatrixWriter(const Int16MatrixWriter&) = delete;
  Int16MatrixWriter& operator=(const Int16MatrixWriter&) = delete;

  // Collective: every rank calls it the same number of times, with its own blocks
  // (possibly none). Blocks must lie inside the matrix and not overlap, also across ranks.
  void write(std::span<const MatrixBlock> blocks);
  // Collective: flushes and closes the file; throws std::runtime_error on failure.
  void close();

 private:
  std::string path_;
  MPI_File file_ = MPI_FILE_NULL;
  std::int64_t rows_, cols_;
  ByteOrder order_;
};

}  // namespace spidal
