// What SWG computes for one pair of sequences, and the scalar reference aligner.
//
// Definition (see also README.md): among all local alignments with the optimal
// affine-gap Smith-Waterman-Gotoh score, take the shortest, and among those the
// one with the most identical columns. Because score, length and identical
// columns all add up column by column, this lexicographic optimum obeys the same
// recurrences as the score (a DP over (score, −length, identical) triples), is a
// unique triple, does not depend on the order in which cells are visited and is
// the same for (a, b) and (b, a): that is the deterministic tie-break. Preferring
// the shortest keeps zero-score stretches off the ends, as a classic traceback
// that stops where the score drops to zero does.
#pragma once

#include <cstdint>
#include <span>

#include "scoring.hpp"

namespace swg {

struct AlignmentStats {
  int score = 0;
  int identical = 0;  // columns with equal residues
  int length = 0;     // all columns, internal gaps included

  bool operator==(const AlignmentStats&) const = default;
};

// The SPIDAL stored distance trunc((1 − identical/length) · 32767), computed exactly
// in integers; an empty alignment (no positive-scoring local alignment) is distance 1.
std::int16_t stored_distance(const AlignmentStats& stats);

// Exact scalar aligner: rolling rows of (score, identical, length) triples. Used by
// the tests as the reference and by the program for pairs too long for the SIMD kernel.
AlignmentStats align_reference(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme);

}  // namespace swg
