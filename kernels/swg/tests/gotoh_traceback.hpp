// Independent checks for the aligners: a textbook score-only Gotoh, and a
// full-matrix version of the (score, length, identical) DP with a traceback
// that returns the alignment itself; local or global (end gaps paid).
#pragma once

#include <span>
#include <string>

#include "alignment.hpp"

namespace swg::testing {

// Classic Smith-Waterman-Gotoh optimal local score, or Needleman-Wunsch-Gotoh
// global score (three integer matrices).
int gotoh_score(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                AlignmentMode mode);

struct TracedAlignment {
  AlignmentStats stats;  // as computed by the DP
  // The alignment's columns: residue codes, or -1 for a gap.
  std::vector<int> row_a, row_b;
  int a_begin = 0, b_begin = 0;  // first aligned residue of each sequence (0-based)
};

TracedAlignment align_traced(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                             AlignmentMode mode);

// Re-scores an alignment column by column (affine gaps); also counts identical
// columns and the length. Does not look at the DP at all.
AlignmentStats rescore(const TracedAlignment& alignment, const ScoringScheme& scheme);

}  // namespace swg::testing
