#include "random_sequences.hpp"

namespace swg::testing {

SequenceFactory::SequenceFactory(const ScoringScheme& scheme, unsigned seed)
    : alphabet_size_(scheme.alphabet_size), common_(scheme.alphabet == Alphabet::dna ? 4 : 20), engine_(seed) {}

int SequenceFactory::uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(engine_); }

Residue SequenceFactory::residue() {
  const bool rare = std::uniform_real_distribution<double>(0, 1)(engine_) < 0.03;
  return static_cast<Residue>(rare ? uniform(common_, alphabet_size_ - 1) : uniform(0, common_ - 1));
}

std::vector<Residue> SequenceFactory::random(int length) {
  std::vector<Residue> sequence(length);
  for (auto& r : sequence) r = residue();
  return sequence;
}

std::vector<Residue> SequenceFactory::mutate(const std::vector<Residue>& parent, double substitution, double indel,
                                             int max_length) {
  std::uniform_real_distribution<double> chance(0, 1);
  std::vector<Residue> child;
  for (const Residue r : parent) {
    const double roll = chance(engine_);
    if (roll < indel / 2) continue;  // deletion (of a run, sometimes)
    child.push_back(roll < indel / 2 + substitution ? residue() : r);
    if (chance(engine_) < indel / 2) {  // insertion of 1..4 residues
      for (int k = uniform(1, 4); k > 0; --k) child.push_back(residue());
    }
  }
  if (static_cast<int>(child.size()) > max_length) child.resize(max_length);
  if (child.empty()) child.push_back(residue());
  return child;
}

}  // namespace swg::testing
