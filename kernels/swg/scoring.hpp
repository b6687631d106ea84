// Residue alphabets, substitution matrices and gap costs of the SWG program.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spidal/fasta.hpp"

namespace swg {

using Residue = std::uint8_t;  // a residue code, 0 .. alphabet_size-1

enum class Alphabet { dna, protein };

struct ScoringScheme {
  Alphabet alphabet = Alphabet::dna;
  std::string matrix_name;
  int alphabet_size = 0;
  std::vector<int> matrix;  // alphabet_size × alphabet_size, symmetric
  int gap_open = 0;         // a gap of length L costs gap_open + gap_extend·(L−1)
  int gap_extend = 0;

  int score(Residue a, Residue b) const { return matrix[a * alphabet_size + b]; }
  int max_score() const;
};

// Limits checked by make_scoring; they keep the SIMD kernel's packed keys exact.
inline constexpr int kMaxGapCost = 1000;

Alphabet parse_alphabet(const std::string& name);        // "dna" | "protein", UsageError otherwise
std::string default_matrix(Alphabet alphabet);            // ednafull | blosum62
// Throws UsageError for an unknown matrix, one that does not fit the alphabet, or
// gap costs outside 1..kMaxGapCost (open) and 0..kMaxGapCost (extend).
ScoringScheme make_scoring(Alphabet alphabet, const std::string& matrix_name, int gap_open, int gap_extend);
int default_gap_open(Alphabet alphabet);    // 16 for DNA, 9 for proteins (SPIDAL's choices)
int default_gap_extend(Alphabet alphabet);  // 4 for DNA, 1 for proteins

// The letter of each residue code (upper case), e.g. "ATGC…" for DNA.
std::string_view alphabet_letters(Alphabet alphabet);

// The letters a FASTA file may use for `alphabet` (case-insensitive).
spidal::FastaAlphabet fasta_alphabet(Alphabet alphabet);

// Residue codes of `residues`; letters must be in the alphabet (read_fasta checks).
// Case is ignored; for DNA, U is coded as T.
std::vector<Residue> encode(std::string_view residues, Alphabet alphabet);

}  // namespace swg
