// swg_pair_stats FASTA dna|protein spidal|shorter|global: aligns records 1 and 2, 3
// and 4, ... with the scalar reference (default gap costs) and prints one line per
// pair: score identical length stored_distance. Lets parasail_test.py compare swg's
// definition with parasail's statistics.
#include <iostream>

#include "alignment.hpp"
#include "spidal/fasta.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: swg_pair_stats FASTA dna|protein spidal|shorter|global\n";
    return 2;
  }
  const auto alphabet = swg::parse_alphabet(argv[2]);
  const auto kind = swg::parse_distance(argv[3]);
  const auto scheme = swg::make_scoring(alphabet, swg::default_matrix(alphabet), swg::default_gap_open(alphabet),
                                        swg::default_gap_extend(alphabet));
  const auto records = spidal::read_fasta(argv[1], swg::fasta_alphabet(alphabet));
  for (std::size_t k = 0; k + 1 < records.size(); k += 2) {
    const auto a = swg::encode(records[k].residues, alphabet), b = swg::encode(records[k + 1].residues, alphabet);
    const auto stats = swg::align_reference(a, b, scheme, swg::alignment_mode(kind));
    std::cout << stats.score << ' ' << stats.identical << ' ' << stats.length << ' '
              << swg::stored_distance(stats, a.size(), b.size(), kind) << '\n';
  }
  return 0;
}
