#include "score_kernel.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace swg {

template <class Cell>
void ScoreProfile<Cell>::build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences,
                               int lanes, std::span<const Residue> codes_in_use) {
  lanes_ = lanes;
  columns_ = 0;
  for (const auto& sequence : lane_sequences) columns_ = std::max(columns_, static_cast<int>(sequence.size()));
  const std::size_t cells = static_cast<std::size_t>(columns_) * lanes;
  // The lanes' residues in the entries' order, past a sequence's end one code past
  // the alphabet; then each code's entries are one table lookup per cell, which
  // keeps a profile built for a single row (gathered lanes) cheap beside that row.
  const Residue past_end = static_cast<Residue>(scheme.alphabet_size);
  lane_residues_.assign(cells, past_end);
  Residue* const residues = lane_residues_.data();  // a local: the stores may alias the vector
  for (std::size_t lane = 0; lane < lane_sequences.size(); ++lane) {
    const auto b = lane_sequences[lane];
    for (std::size_t j = 0; j < b.size(); ++j) residues[j * lanes + lane] = b[j];
  }
  entries_.resize(static_cast<std::size_t>(scheme.alphabet_size) * cells);
  std::array<Cell, 256> table;  // by residue code, past_end included
  table[past_end] = static_cast<Cell>(*std::min_element(scheme.matrix.begin(), scheme.matrix.end()));
  for (const Residue code : codes_in_use) {
    for (Residue b = 0; b < past_end; ++b) table[b] = static_cast<Cell>(scheme.score(code, b));
    Cell* const block = entries_.data() + code * cells;
    for (std::size_t k = 0; k < cells; ++k) block[k] = table[residues[k]];
  }
}

bool scores_fit_bytes(const ScoringScheme& scheme) {
  const auto [lowest, highest] = std::minmax_element(scheme.matrix.begin(), scheme.matrix.end());
  constexpr int byte_min = std::numeric_limits<ScoreBytes>::min(), byte_max = std::numeric_limits<ScoreBytes>::max();
  return *lowest >= byte_min && *highest <= byte_max && scheme.gap_open <= byte_max && scheme.gap_extend <= byte_max;
}

template class ScoreProfile<ScoreBytes>;
template class ScoreProfile<ScoreWords>;

}  // namespace swg
