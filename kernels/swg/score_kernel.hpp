// Score-only inter-sequence SIMD alignment (SWIPE's): the optimal local score of one
// row sequence against a group of column sequences, one per lane, in saturating
// 8-bit or 16-bit lanes. It serves `--distance score`, which needs no alignment
// statistics, so its lanes are 4× (bytes) or 2× (words) as many as the exact
// (score, length, identical) keys of lane_kernel.hpp get.
//
// Every cell holds H (or E, F) less the cell type's floor, and profile entries are
// plain scores. Bytes hold H − 128 as signed bytes (H to 255): a signed saturating
// add of a score gives H(diagonal) + score floored at 0 and capped at 255 in one
// operation, and gap states floor at 0 by signed saturating subtraction: 9 vector
// operations per cell, 4 of them saturating, where unsigned bytes with a biased
// profile (SWIPE's, scores to 255 − bias) need 10 and 5 (Zen 3 issues saturating
// adds and subtractions at half the rate of maxes). Words hold H itself (to 32,767):
// H(diagonal) + score enters a signed max with E and F, which unsigned saturating
// subtraction keeps at 0 or above, so the max is also the local floor. For a local
// alignment these floors change no H (H ≥ 0). A lane whose best reaches the ceiling
// (the cell's maximum − its floor) may have saturated, and is recomputed wider; every
// best below it is exact.
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

// A cell holds H + its floor (bytes: H − 128; words: H); a best at the ceiling may
// have saturated.
template <class Cell>
constexpr int score_floor() {
  return std::is_same_v<Cell, std::int8_t> ? std::numeric_limits<Cell>::min() : 0;
}
template <class Cell>
constexpr int score_ceiling() {
  return std::numeric_limits<Cell>::max() - score_floor<Cell>();
}

// Whether a scheme's scores and gap costs fit signed bytes, as the byte kernels need
// (otherwise rows go to the words directly).
bool scores_fit_bytes(const ScoringScheme& scheme);

// A lane group's profile: score(c, lane's b[j]) at [(c·columns + j)·lanes + lane] for
// every residue code c in use; the lowest score past a lane's sequence, which never
// raises a best: such a cell is below the H it extends.
template <class Cell>
class ScoreProfile {
 public:
  void build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences, int lanes,
             std::span<const Residue> codes_in_use);
  const Cell* row(int code) const { return entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes_; }
  int columns() const { return columns_; }
  // Bests below this are exact; at it, the lane may have saturated.
  static constexpr int ceiling() { return score_ceiling<Cell>(); }

 private:
  AlignedVector<Cell> entries_;
  std::vector<Residue> lane_residues_;  // columns × lanes, reused by each build
  int columns_ = 0;
  int lanes_ = 0;
};

template <class Cell>
struct ScoreGroupJob {
  const ScoreProfile<Cell>* profile = nullptr;
  std::span<const std::span<const Residue>> rows;
  int gap_open = 0, gap_extend = 0;
  int* best_scores = nullptr;  // out: rows.size() × lanes best local scores (H, to the ceiling)
  Cell* workspace = nullptr;   // 2 × columns × lanes cells, vector-aligned
};

using ScoreBytes = std::int8_t;
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
