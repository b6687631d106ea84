// This rank's rows of the N×N distance matrix, kept as the stored int16 values
// (2 bytes per pair) or streamed from the file (row_stream.hpp), and the one pass over
// them that every step needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "row_exchange.hpp"
#include "spidal/mpi_env.hpp"

namespace dapwc {

class RowStream;  // row_stream.hpp

struct DistanceRows {
  std::int64_t n = 0;                 // points in the whole matrix
  spidal::RowBlock block;             // which rows are held here
  std::vector<std::int16_t> stored;   // block.rows() × n, value s means s/32767
  // Set when the rows do not fit in the memory given (--memory-limit): `stored` stays
  // empty and every pass reads the rows from the file block by block (for_each_block).
  std::shared_ptr<RowStream> stream = nullptr;

  const std::int16_t* row(std::int64_t local_row) const { return stored.data() + local_row * n; }
};

// The distance pass is compiled twice: for any x86-64 (SSE2) and for AVX2 + FMA.
// Their results differ in rounding (fused multiply-adds), so a job whose ranks run on
// CPUs of both kinds is no longer bit-identical to a single-rank run.
enum class PassVariant { portable, avx2 };

// AVX2 when this CPU has AVX2 and FMA, else portable.
PassVariant fastest_pass_variant();

// out[r·width + j] = Σ_β d(block.begin + r, β) · columns[j·n + β] for every local
// row r; `columns` holds `width` vectors of length n one after another.
// Each row is summed by the same instruction sequence wherever it falls in the
// block, so results are bit-identical for any row decomposition or thread count.
// `variant` must be one this CPU runs (tests pass each in turn).
void multiply_rows(const DistanceRows& distances, const double* columns, int width, double* out,
                   PassVariant variant = fastest_pass_variant());

// Sets the diagonal of rows in memory to 0 and, given a fill, missing (negative) values
// to it.
void clean_rows(DistanceRows& rows, std::optional<std::int16_t> fill);

// What preparing the matrix for clustering found.
struct MatrixSummary {
  double mean_distance = 0.0;     // over valid off-diagonal pairs
  std::int64_t missing_pairs = 0; // negative stored values, replaced by the mean
};

// Zeroes the diagonal, replaces missing (negative) values by the mean of the
// valid off-diagonal distances and returns that mean (streamed rows: in every later
// read, after one scan of the file). Throws spidal::InputError
// when no valid off-diagonal distance exists or all of them are zero.
MatrixSummary prepare_distances(DistanceRows& distances, RowExchange& exchange);

}  // namespace dapwc
