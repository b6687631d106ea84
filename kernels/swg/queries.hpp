// The --query sequences, which may far outnumber the input sequences: read once to
// check and count them (and write their labels), then streamed batch by batch, so
// that a rank holds only the rows of its current batch. Beside those, 16 bytes per
// query stay for the duplicate-id check (spidal::DuplicateIds).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "all_pairs.hpp"
#include "scoring.hpp"

namespace swg {

struct QueryScan {
  std::int64_t count = 0;
  std::int64_t residues = 0;
  std::vector<bool> codes;  // the residue codes that occur
};

// Checks every record of `path` (spidal::read_fasta's checks), counts them and their
// residues, and writes each id on a line of `labels` if given.
QueryScan scan_queries(const std::string& path, Alphabet alphabet, int alphabet_size, std::ostream* labels);

class QueryStream {
 public:
  QueryStream(const std::string& path, Alphabet alphabet);
  // Rows [begin, end) encoded. `begin` never goes back from one call to the next
  // (TilePlan::batches), so rows before it are dropped and the file is read forward.
  RowWindow window(std::int64_t begin, std::int64_t end);

 private:
  spidal::FastaReader reader_;
  Alphabet alphabet_;
  std::int64_t first_ = 0;  // row of rows_[0]
  std::vector<std::vector<Residue>> rows_;
};

}  // namespace swg
