// FASTA reading with the validation the SPIDAL programs need: every record has a
// unique id and a non-empty sequence made only of the letters of one alphabet.
// Problems are reported as InputError naming the file and line.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spidal {

struct FastaRecord {
  std::string id;        // header text up to the first whitespace
  std::string residues;  // sequence lines joined, as written (case preserved)
  int header_line = 0;   // 1-based line of the '>' header
};

// Which letters a sequence may contain; matching ignores case.
struct FastaAlphabet {
  std::string name;              // used in messages, e.g. "dna"
  std::string_view letters;      // e.g. "ACGTN"
};

// Reads the records of `path` one at a time. Blank lines and trailing whitespace/CR
// are ignored. Throws InputError for an unreadable file, text before the first
// header, a header without an id, an empty sequence or a letter outside the alphabet
// (the message names the line and column). Ids are not compared: DuplicateIds does.
class FastaReader {
 public:
  FastaReader(const std::string& path, const FastaAlphabet& alphabet);
  // The next record into `record`; false after the last one.
  bool next(FastaRecord& record);

 private:
  std::string where(int line) const;
  std::string path_;
  std::string alphabet_name_;
  std::array<bool, 256> allowed_{};
  std::ifstream file_;
  std::string line_;
  int line_number_ = 0;
  bool at_header_ = false;  // line_ is the next record's header, already read
};

// Finds a repeated id among the records of one file, keeping 16 bytes per record (a
// hash of its id and its header line) instead of the ids: add() every record in order,
// then check().
class DuplicateIds {
 public:
  void add(const FastaRecord& record);
  // Throws the InputError for the first id that repeats (naming its line and the
  // first's); records whose id hashes collide are read again from `path` to compare.
  void check(const std::string& path, const FastaAlphabet& alphabet);

 private:
  std::vector<std::pair<std::uint64_t, int>> seen_;  // (id hash, header line)
};

// Reads all records of `path` (FastaReader's checks and unique ids). Throws InputError
// also for a file without any record.
std::vector<FastaRecord> read_fasta(const std::string& path, const FastaAlphabet& alphabet);

}  // namespace spidal
