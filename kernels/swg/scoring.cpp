#include "scoring.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "spidal/errors.hpp"

namespace swg {
namespace {

// Row/column order of the matrices below; the position is the residue code.
constexpr std::string_view kDnaLetters = "ATGCSWRYKMBVHDN";
constexpr std::string_view kProteinLetters = "ARNDCQEGHILKMFPSTWYVBZX*";

// EDNAFULL (NCBI NUC.4.4), in kDnaLetters order.
constexpr int kEdnaFull[15][15] = {
    {5, -4, -4, -4, -4, 1, 1, -4, -4, 1, -4, -1, -1, -1, -2},
    {-4, 5, -4, -4, -4, 1, -4, 1, 1, -4, -1, -4, -1, -1, -2},
    {-4, -4, 5, -4, 1, -4, 1, -4, 1, -4, -1, -1, -4, -1, -2},
    {-4, -4, -4, 5, 1, -4, -4, 1, -4, 1, -1, -1, -1, -4, -2},
    {-4, -4, 1, 1, -1, -4, -2, -2, -2, -2, -1, -1, -3, -3, -1},
    {1, 1, -4, -4, -4, -1, -2, -2, -2, -2, -3, -3, -1, -1, -1},
    {1, -4, 1, -4, -2, -2, -1, -4, -2, -2, -3, -1, -3, -1, -1},
    {-4, 1, -4, 1, -2, -2, -4, -1, -2, -2, -1, -3, -1, -3, -1},
    {-4, 1, 1, -4, -2, -2, -2, -2, -1, -4, -1, -3, -3, -1, -1},
    {1, -4, -4, 1, -2, -2, -2, -2, -4, -1, -3, -1, -1, -3, -1},
    {-4, -1, -1, -1, -1, -3, -3, -1, -1, -3, -1, -2, -2, -2, -1},
    {-1, -4, -1, -1, -1, -3, -1, -3, -3, -1, -2, -1, -2, -2, -1},
    {-1, -1, -4, -1, -3, -1, -3, -1, -3, -1, -2, -2, -1, -2, -1},
    {-1, -1, -1, -4, -3, -1, -1, -3, -1, -3, -2, -2, -2, -1, -1},
    {-2, -2, -2, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
};

// BLOSUM62, in kProteinLetters order.
constexpr int kBlosum62[24][24] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
    {-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
    {-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

template <std::size_t K>
std::vector<int> flatten(const int (&table)[K][K]) {
  std::vector<int> flat;
  flat.reserve(K * K);
  for (const auto& row : table) flat.insert(flat.end(), std::begin(row), std::end(row));
  return flat;
}

}  // namespace

std::string_view alphabet_letters(Alphabet alphabet) {
  return alphabet == Alphabet::dna ? kDnaLetters : kProteinLetters;
}

int ScoringScheme::max_score() const { return *std::max_element(matrix.begin(), matrix.end()); }

Alphabet parse_alphabet(const std::string& name) {
  if (name == "dna") return Alphabet::dna;
  if (name == "protein") return Alphabet::protein;
  throw spidal::UsageError("--alphabet must be dna or protein, got '" + name + "'");
}

std::string default_matrix(Alphabet alphabet) { return alphabet == Alphabet::dna ? "ednafull" : "blosum62"; }
int default_gap_open(Alphabet alphabet) { return alphabet == Alphabet::dna ? 16 : 9; }
int default_gap_extend(Alphabet alphabet) { return alphabet == Alphabet::dna ? 4 : 1; }

ScoringScheme make_scoring(Alphabet alphabet, const std::string& matrix_name, int gap_open, int gap_extend) {
  ScoringScheme scheme;
  scheme.alphabet = alphabet;
  scheme.matrix_name = matrix_name;
  if (matrix_name == "ednafull") {
    if (alphabet != Alphabet::dna) throw spidal::UsageError("--matrix ednafull needs --alphabet dna");
    scheme.matrix = flatten(kEdnaFull);
  } else if (matrix_name == "blosum62") {
    if (alphabet != Alphabet::protein) throw spidal::UsageError("--matrix blosum62 needs --alphabet protein");
    scheme.matrix = flatten(kBlosum62);
  } else {
    throw spidal::UsageError("--matrix must be ednafull or blosum62, got '" + matrix_name + "'");
  }
  scheme.alphabet_size = static_cast<int>(alphabet_letters(alphabet).size());
  if (gap_open < 1 || gap_open > kMaxGapCost) {
    throw spidal::UsageError("--gap-open must be between 1 and " + std::to_string(kMaxGapCost));
  }
  if (gap_extend < 0 || gap_extend > kMaxGapCost) {
    throw spidal::UsageError("--gap-extend must be between 0 and " + std::to_string(kMaxGapCost));
  }
  scheme.gap_open = gap_open;
  scheme.gap_extend = gap_extend;
  return scheme;
}

spidal::FastaAlphabet fasta_alphabet(Alphabet alphabet) {
  // DNA also accepts U (RNA), coded as T.
  return alphabet == Alphabet::dna ? spidal::FastaAlphabet{"dna", "ATGCSWRYKMBVHDNU"}
                                   : spidal::FastaAlphabet{"protein", kProteinLetters};
}

std::vector<Residue> encode(std::string_view residues, Alphabet alphabet) {
  const std::string_view letters = alphabet_letters(alphabet);
  std::array<int, 256> code_of;
  code_of.fill(-1);
  for (std::size_t code = 0; code < letters.size(); ++code) {
    const auto letter = static_cast<unsigned char>(letters[code]);
    code_of[letter] = code_of[std::tolower(letter)] = static_cast<int>(code);
  }
  if (alphabet == Alphabet::dna) code_of['U'] = code_of['u'] = code_of['T'];

  std::vector<Residue> codes(residues.size());
  for (std::size_t i = 0; i < residues.size(); ++i) {
    const int code = code_of[static_cast<unsigned char>(residues[i])];
    if (code < 0) throw std::invalid_argument("residue not in the alphabet: " + std::string(1, residues[i]));
    codes[i] = static_cast<Residue>(code);
  }
  return codes;
}

}  // namespace swg
