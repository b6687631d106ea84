#include "score_kernel.hpp"

#include <algorithm>

namespace swg {

template <class Cell>
void ScoreProfile<Cell>::build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences,
                               int lanes, std::span<const Residue> codes_in_use) {
  bias_ = static_cast<Cell>(score_bias<Cell>(scheme));
  const Cell padding = static_cast<Cell>(*std::min_element(scheme.matrix.begin(), scheme.matrix.end()) + bias_);
  lanes_ = lanes;
  columns_ = 0;
  for (const auto& sequence : lane_sequences) columns_ = std::max(columns_, static_cast<int>(sequence.size()));
  entries_.resize(static_cast<std::size_t>(scheme.alphabet_size) * columns_ * lanes);
  for (const Residue code : codes_in_use) {
    Cell* block = entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes;
    for (int lane = 0; lane < lanes; ++lane) {
      const std::span<const Residue> b =
          lane < static_cast<int>(lane_sequences.size()) ? lane_sequences[lane] : std::span<const Residue>{};
      for (int j = 0; j < columns_; ++j) {
        block[j * lanes + lane] = j < static_cast<int>(b.size()) ? static_cast<Cell>(scheme.score(code, b[j]) + bias_) : padding;
      }
    }
  }
}

template class ScoreProfile<ScoreBytes>;
template class ScoreProfile<ScoreWords>;

}  // namespace swg
