#include "queries.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "spidal/errors.hpp"

namespace swg {

QueryScan scan_queries(const std::string& path, Alphabet alphabet, int alphabet_size, std::ostream* labels) {
  const auto letters = fasta_alphabet(alphabet);
  spidal::FastaReader reader(path, letters);
  spidal::DuplicateIds ids;
  QueryScan scan{0, 0, std::vector<bool>(alphabet_size, false)};
  spidal::FastaRecord record;
  while (reader.next(record)) {
    ids.add(record);
    const auto codes = encode(record.residues, alphabet);
    mark_codes({&codes, 1}, scan.codes);
    ++scan.count;
    scan.residues += static_cast<std::int64_t>(codes.size());
    if (labels) *labels << record.id << '\n';
  }
  if (scan.count == 0) throw spidal::InputError("FASTA file " + path + " contains no sequences");
  ids.check(path, letters);
  return scan;
}

QueryStream::QueryStream(const std::string& path, Alphabet alphabet)
    : reader_(path, fasta_alphabet(alphabet)), alphabet_(alphabet) {}

RowWindow QueryStream::window(std::int64_t begin, std::int64_t end) {
  if (begin < first_) throw std::logic_error("query rows requested out of order");
  const auto drop = std::min<std::int64_t>(begin - first_, static_cast<std::int64_t>(rows_.size()));
  rows_.erase(rows_.begin(), rows_.begin() + drop);
  first_ += drop;
  spidal::FastaRecord record;
  while (first_ + static_cast<std::int64_t>(rows_.size()) < end && reader_.next(record)) {
    if (first_ + static_cast<std::int64_t>(rows_.size()) < begin) {
      ++first_;  // a row of no batch of this rank
      continue;
    }
    rows_.push_back(encode(record.residues, alphabet_));
  }
  if (first_ + static_cast<std::int64_t>(rows_.size()) < end) throw std::logic_error("query file shorter than scanned");
  return {begin, std::span(rows_).first(static_cast<std::size_t>(end - begin))};
}

}  // namespace swg
