// FASTA reading with the validation the SPIDAL programs need: every record has a
// unique id and a non-empty sequence made only of the letters of one alphabet.
// Problems are reported as InputError naming the file and line.
#pragma once

#include <string>
#include <string_view>
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

// Reads all records of `path`. Blank lines and trailing whitespace/CR are ignored.
// Throws InputError for an unreadable or empty file, text before the first header,
// a header without an id, a duplicate id, an empty sequence or a letter outside
// `alphabet` (the message names the line and column).
std::vector<FastaRecord> read_fasta(const std::string& path, const FastaAlphabet& alphabet);

}  // namespace spidal
