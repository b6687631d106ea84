// Score-only inter-sequence SIMD alignment (SWIPE's): the optimal local score of one
// row sequence against a group of column sequences, one per lane, in saturating
// 8-bit (unsigned) or 16-bit (signed) lanes. It serves `--distance score`, which needs no
// alignment statistics, so its lanes are 4× (bytes) or 2× (words) as many as the
// exact (score, length, identical) keys of lane_kernel.hpp get.
//
// Bytes are unsigned (scores to 255 − bias): each profile entry is score + bias
// (bias = −the matrix's lowest score), so a saturating add then subtract gives
// H(diagonal) + score floored at 0. Words are signed (scores to 32,767) and need no
// bias: H(diagonal) + score enters a signed max with E and F, which are never
// negative. Gap states floor at 0 (unsigned saturating subtraction) in both; for a
// local alignment these floors change no H (H ≥ 0). A lane whose best reaches the
// ceiling (the cell's maximum − bias) may have saturated, and is recomputed wider;
// every best below it is exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "aligned_buffer.hpp"
#include "scoring.hpp"

namespace swg {

// The bias of a cell type's profile entries, and the score from which a best may
// have saturated.
template <class Cell>
int score_bias(const ScoringScheme& scheme) {
  if constexpr (std::is_signed_v<Cell>) return 0;
  return std::max(0, -*std::min_element(scheme.matrix.begin(), scheme.matrix.end()));
}
template <class Cell>
int score_ceiling(const ScoringScheme& scheme) {
  return std::numeric_limits<Cell>::max() - score_bias<Cell>(scheme);
}

// A lane group's profile: score(c, lane's b[j]) + bias at [(c·columns + j)·lanes + lane]
// for every residue code c in use; the lowest score past a lane's sequence, which
// never raises a best: such a cell is below the H it extends.
template <class Cell>
class ScoreProfile {
 public:
  void build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences, int lanes,
             std::span<const Residue> codes_in_use);
  const Cell* row(int code) const { return entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes_; }
  int columns() const { return columns_; }
  Cell bias() const { return bias_; }
  // Bests below this are exact; at it, the lane may have saturated.
  int ceiling() const { return std::numeric_limits<Cell>::max() - bias_; }

 private:
  AlignedVector<Cell> entries_;
  std::vector<Residue> lane_residues_;  // columns × lanes, reused by each build
  int columns_ = 0;
  int lanes_ = 0;
  Cell bias_ = 0;
};

template <class Cell>
struct ScoreGroupJob {
  const ScoreProfile<Cell>* profile = nullptr;
  std::span<const std::span<const Residue>> rows;
  int gap_open = 0, gap_extend = 0;
  Cell* best_scores = nullptr;  // out: rows.size() × lanes best local scores
  Cell* workspace = nullptr;    // 2 × columns × lanes cells, vector-aligned
};

using ScoreBytes = std::uint8_t;
using ScoreWords = std::int16_t;

// Per-ISA entry points: bytes and words take the same number of lanes (words use
// two registers), so one lane group serves both.
void run_score_bytes_generic(const ScoreGroupJob<ScoreBytes>& job);
void run_score_words_generic(const ScoreGroupJob<ScoreWords>& job);
void run_score_bytes_avx2(const ScoreGroupJob<ScoreBytes>& job);
void run_score_words_avx2(const ScoreGroupJob<ScoreWords>& job);
void run_score_bytes_avx512(const ScoreGroupJob<ScoreBytes>& job);
void run_score_words_avx512(const ScoreGroupJob<ScoreWords>& job);
inline constexpr int kGenericScoreLanes = 32;
inline constexpr int kAvx2ScoreLanes = 32;
inline constexpr int kAvx512ScoreLanes = 64;

}  // namespace swg
