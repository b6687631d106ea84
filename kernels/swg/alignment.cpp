#include "alignment.hpp"

#include <climits>
#include <vector>

namespace swg {
namespace {

// The best local alignment ending in one DP state (H, E or F) of one cell.
struct Candidate {
  int score;
  int identical;
  int length;
};

constexpr Candidate kEmpty{0, 0, 0};                  // the empty alignment: local alignments may start anywhere
constexpr Candidate kImpossible{INT_MIN / 4, 0, 0};  // no alignment ends in this state

// Lexicographic order: higher score, then shorter, then more identical columns.
bool better(const Candidate& x, const Candidate& y) {
  if (x.score != y.score) return x.score > y.score;
  if (x.length != y.length) return x.length < y.length;
  return x.identical > y.identical;
}

const Candidate& best_of(const Candidate& x, const Candidate& y) { return better(y, x) ? y : x; }

// Extends an alignment by one gap column costing `cost`.
Candidate gap_column(const Candidate& from, int cost) { return {from.score - cost, from.identical, from.length + 1}; }

}  // namespace

std::int16_t stored_distance(const AlignmentStats& stats) {
  if (stats.length == 0) return 32767;
  const std::int64_t differing = stats.length - stats.identical;
  return static_cast<std::int16_t>(differing * 32767 / stats.length);
}

AlignmentStats align_reference(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme) {
  const std::size_t columns = b.size();
  // h[j], f[j]: best alignments ending at (previous row, j) in H and F (vertical gap).
  std::vector<Candidate> h(columns + 1, kEmpty);
  std::vector<Candidate> f(columns + 1, kImpossible);
  Candidate best = kEmpty;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    Candidate diagonal = kEmpty;  // H(i−1, 0)
    Candidate left = kEmpty;      // H(i, 0)
    Candidate e = kImpossible;    // horizontal gap state E(i, 0)
    for (std::size_t j = 1; j <= columns; ++j) {
      const Candidate up = h[j];
      f[j] = best_of(gap_column(up, scheme.gap_open), gap_column(f[j], scheme.gap_extend));
      e = best_of(gap_column(left, scheme.gap_open), gap_column(e, scheme.gap_extend));
      const bool same = a[i - 1] == b[j - 1];
      const Candidate match{diagonal.score + scheme.score(a[i - 1], b[j - 1]), diagonal.identical + (same ? 1 : 0),
                            diagonal.length + 1};
      const Candidate here = best_of(best_of(match, kEmpty), best_of(e, f[j]));
      best = best_of(best, here);
      diagonal = up;
      h[j] = left = here;
    }
  }
  return {best.score, best.identical, best.length};
}

}  // namespace swg
