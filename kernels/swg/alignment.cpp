#include "alignment.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "spidal/errors.hpp"

namespace swg {
namespace {

// The best alignment ending in one DP state (H, E or F) of one cell.
struct Candidate {
  int score;
  int identical;
  int length;
};

constexpr Candidate kEmpty{0, 0, 0};                  // the empty alignment: local alignments may start anywhere
constexpr Candidate kImpossible{INT_MIN / 4, 0, 0};  // no alignment ends in this state

// Lexicographic order: higher score, then longer, then more identical columns.
bool better(const Candidate& x, const Candidate& y) {
  if (x.score != y.score) return x.score > y.score;
  if (x.length != y.length) return x.length > y.length;
  return x.identical > y.identical;
}

const Candidate& best_of(const Candidate& x, const Candidate& y) { return better(y, x) ? y : x; }

// Extends an alignment by one gap column costing `cost`.
Candidate gap_column(const Candidate& from, int cost) { return {from.score - cost, from.identical, from.length + 1}; }

}  // namespace

DistanceKind parse_distance(const std::string& name) {
  if (name == "spidal") return DistanceKind::spidal;
  if (name == "shorter") return DistanceKind::shorter;
  if (name == "global") return DistanceKind::global;
  if (name == "score") return DistanceKind::score;
  throw spidal::UsageError("--distance: unknown distance '" + name + "' (spidal, shorter, global or score)");
}

AlignmentMode alignment_mode(DistanceKind kind) {
  return kind == DistanceKind::global ? AlignmentMode::global : AlignmentMode::local;
}

std::int16_t stored_distance(const AlignmentStats& stats, std::size_t len_a, std::size_t len_b, DistanceKind kind) {
  const auto shorter = static_cast<std::int64_t>(std::min(len_a, len_b));
  const std::int64_t denominator = kind == DistanceKind::shorter ? shorter : stats.length;
  if (denominator == 0 || stats.length == 0) return 32767;
  if (stats.identical == stats.length && stats.length == shorter) return 0;
  const std::int64_t differing = denominator - stats.identical;
  return static_cast<std::int16_t>(std::max<std::int64_t>(1, differing * 32767 / denominator));
}

std::int16_t stored_score_distance(int score, int self_a, int self_b) {
  const std::int64_t total = std::int64_t{self_a} + self_b;
  if (score <= 0 || total <= 0) return 32767;
  const std::int64_t lost = std::max<std::int64_t>(0, total - 2 * std::int64_t{score});
  return static_cast<std::int16_t>(std::min<std::int64_t>(32767, lost * 32767 / total));
}

AlignmentStats align_reference(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                               AlignmentMode mode) {
  const bool global = mode == AlignmentMode::global;
  // H(k, 0) and H(0, k): local alignments start anywhere (the empty alignment);
  // a global one starts with an end gap of k columns.
  const auto edge = [&](std::size_t k) {
    return global && k > 0 ? Candidate{-scheme.gap_open - scheme.gap_extend * static_cast<int>(k - 1), 0,
                                       static_cast<int>(k)}
                           : kEmpty;
  };
  const std::size_t columns = b.size();
  // h[j], f[j]: best alignments ending at (previous row, j) in H and F (vertical gap).
  std::vector<Candidate> h(columns + 1);
  std::vector<Candidate> f(columns + 1, kImpossible);
  for (std::size_t j = 0; j <= columns; ++j) h[j] = edge(j);
  Candidate best = kEmpty;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    Candidate diagonal = edge(i - 1);  // H(i−1, 0)
    Candidate left = edge(i);          // H(i, 0)
    Candidate e = kImpossible;         // horizontal gap state E(i, 0)
    h[0] = left;
    for (std::size_t j = 1; j <= columns; ++j) {
      const Candidate up = h[j];
      f[j] = best_of(gap_column(up, scheme.gap_open), gap_column(f[j], scheme.gap_extend));
      e = best_of(gap_column(left, scheme.gap_open), gap_column(e, scheme.gap_extend));
      const bool same = a[i - 1] == b[j - 1];
      const Candidate match{diagonal.score + scheme.score(a[i - 1], b[j - 1]), diagonal.identical + (same ? 1 : 0),
                            diagonal.length + 1};
      Candidate here = best_of(match, best_of(e, f[j]));
      if (!global) {
        here = best_of(here, kEmpty);
        best = best_of(best, here);
      }
      diagonal = up;
      h[j] = left = here;
    }
  }
  const Candidate& result = global ? h[columns] : best;
  return {result.score, result.identical, result.length};
}

int self_score(std::span<const Residue> a, const ScoringScheme& scheme) {
  // When each residue of `a` scores positively against itself and at least as high as
  // against any residue, every alignment of a with itself scores at most the sum of
  // its rows' self scores, which the whole diagonal reaches. Otherwise (ambiguity
  // codes with negative self scores) the DP decides.
  int diagonal = 0;
  for (const Residue x : a) {
    const int self = scheme.score(x, x);
    for (int y = 0; y < scheme.alphabet_size; ++y) {
      if (self <= 0 || scheme.score(x, static_cast<Residue>(y)) > self) return align_reference(a, a, scheme).score;
    }
    diagonal += self;
  }
  return diagonal;
}

}  // namespace swg
