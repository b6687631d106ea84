// Random residue sequences for the tests: unrelated ones, and relatives made by
// substitutions, insertions and deletions so that alignments are long and gapped.
#pragma once

#include <random>
#include <vector>

#include "scoring.hpp"

namespace swg::testing {

class SequenceFactory {
 public:
  SequenceFactory(const ScoringScheme& scheme, unsigned seed);
  // Mostly the common residues (ACGT for DNA, the 20 amino acids), sometimes ambiguity codes.
  std::vector<Residue> random(int length);
  // A relative of `parent`: each position substituted, deleted or followed by an
  // insertion with the given probabilities; never empty, at most max_length long.
  std::vector<Residue> mutate(const std::vector<Residue>& parent, double substitution, double indel, int max_length);
  int uniform(int low, int high);  // inclusive

 private:
  Residue residue();
  int alphabet_size_;
  int common_;  // codes [0, common_) are the usual residues
  std::mt19937 engine_;
};

}  // namespace swg::testing
