// What SWG computes for one pair of sequences, and the scalar reference aligner.
//
// Two alignment modes: local (Smith-Waterman-Gotoh) and global (Needleman-Wunsch-
// Gotoh, end gaps paid like internal ones). Tie-break (see also README.md): among
// all alignments with the optimal affine-gap score, take the longest, and among
// those the one with the most identical columns. Because score, length and
// identical columns all add up column by column, this lexicographic optimum obeys
// the same recurrences as the score (a DP over (score, length, identical) triples),
// is a unique triple, does not depend on the order in which cells are visited and
// is the same for (a, b) and (b, a). Preferring the longest never trades a long
// co-optimal alignment for a short exact piece of it (issue 15: 7 exact matches
// score 35, like the 25 columns with 15 matches around them).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "scoring.hpp"

namespace swg {

struct AlignmentStats {
  int score = 0;
  int identical = 0;  // columns with equal residues
  int length = 0;     // all columns, gaps included

  bool operator==(const AlignmentStats&) const = default;
};

enum class AlignmentMode { local, global };

// What `swg --distance` stores:
//   spidal:  1 − identical / length of the optimal local alignment (SPIDAL's);
//   shorter: 1 − identical / length of the shorter sequence, same local alignment;
//   global:  1 − identical / columns of the optimal global alignment;
//   score:   1 − S(a, b) / mean(S(a, a), S(b, b)), S the optimal local score
//            (Scoredist's normalisation). It needs no alignment statistics, so
//            swg computes it with the score-only kernels (score_kernel.hpp).
enum class DistanceKind { spidal, shorter, global, score };

DistanceKind parse_distance(const std::string& name);  // UsageError for an unknown name
AlignmentMode alignment_mode(DistanceKind kind);

// The stored distance trunc(distance · 32767), computed exactly in integers, for
// sequences of lengths len_a and len_b. 0 is stored only for an alignment without
// mismatch or gap that covers the whole shorter sequence; any other alignment is
// stored as at least 1, so that a short exact local hit never reads as identical.
// An empty alignment (no positive-scoring local alignment) is distance 1 (32767).
std::int16_t stored_distance(const AlignmentStats& stats, std::size_t len_a, std::size_t len_b, DistanceKind kind);

// The stored score distance trunc(distance · 32767), in integers: 0 when the pair
// scores as high as the mean of the two self scores, 32767 when nothing aligns (a
// local score of 0) or the self scores are not positive.
std::int16_t stored_score_distance(int score, int self_a, int self_b);

// Exact scalar aligner: rolling rows of (score, identical, length) triples. Used by
// the tests as the reference and by the program for pairs too long for the SIMD kernel.
AlignmentStats align_reference(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                               AlignmentMode mode = AlignmentMode::local);

// S(a, a), the optimal local score of a sequence against itself.
int self_score(std::span<const Residue> a, const ScoringScheme& scheme);

}  // namespace swg
