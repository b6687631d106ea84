#include "gotoh_traceback.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace swg::testing {
namespace {

constexpr int kMinusInfinity = INT_MIN / 4;

struct Triple {
  int score = kMinusInfinity, identical = 0, length = 0;
  auto order() const { return std::make_tuple(score, length, identical); }
  bool operator==(const Triple&) const = default;
};

Triple max_of(std::initializer_list<Triple> candidates) {
  return *std::max_element(candidates.begin(), candidates.end(),
                           [](const Triple& x, const Triple& y) { return x.order() < y.order(); });
}

template <class T>
struct Grid {
  Grid(std::size_t rows, std::size_t columns, T fill) : columns(columns), cells(rows * columns, fill) {}
  T& operator()(std::size_t i, std::size_t j) { return cells[i * columns + j]; }
  std::size_t columns;
  std::vector<T> cells;
};

// Score of an end gap of k columns (global mode's first row and column).
int end_gap(std::size_t k, const ScoringScheme& scheme) {
  return k == 0 ? 0 : -scheme.gap_open - scheme.gap_extend * static_cast<int>(k - 1);
}

}  // namespace

int gotoh_score(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                AlignmentMode mode) {
  const bool global = mode == AlignmentMode::global;
  const std::size_t m = a.size(), n = b.size();
  Grid<int> h(m + 1, n + 1, 0), e(m + 1, n + 1, kMinusInfinity), f(m + 1, n + 1, kMinusInfinity);
  if (global) {
    for (std::size_t i = 0; i <= m; ++i) h(i, 0) = end_gap(i, scheme);
    for (std::size_t j = 0; j <= n; ++j) h(0, j) = end_gap(j, scheme);
  }
  int best = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t j = 1; j <= n; ++j) {
      e(i, j) = std::max(e(i, j - 1) - scheme.gap_extend, h(i, j - 1) - scheme.gap_open);
      f(i, j) = std::max(f(i - 1, j) - scheme.gap_extend, h(i - 1, j) - scheme.gap_open);
      h(i, j) = std::max({h(i - 1, j - 1) + scheme.score(a[i - 1], b[j - 1]), e(i, j), f(i, j)});
      if (!global) h(i, j) = std::max(h(i, j), 0);
      best = std::max(best, h(i, j));
    }
  }
  return global ? h(m, n) : best;
}

TracedAlignment align_traced(std::span<const Residue> a, std::span<const Residue> b, const ScoringScheme& scheme,
                             AlignmentMode mode) {
  const bool global = mode == AlignmentMode::global;
  const std::size_t m = a.size(), n = b.size();
  const Triple empty{0, 0, 0};
  Grid<Triple> h(m + 1, n + 1, empty), e(m + 1, n + 1, Triple{}), f(m + 1, n + 1, Triple{});
  if (global) {
    for (std::size_t i = 1; i <= m; ++i) h(i, 0) = Triple{end_gap(i, scheme), 0, static_cast<int>(i)};
    for (std::size_t j = 1; j <= n; ++j) h(0, j) = Triple{end_gap(j, scheme), 0, static_cast<int>(j)};
  }
  const auto gap = [](const Triple& t, int cost) { return Triple{t.score - cost, t.identical, t.length + 1}; };
  const auto match = [&](std::size_t i, std::size_t j) {
    const Triple& d = h(i - 1, j - 1);
    return Triple{d.score + scheme.score(a[i - 1], b[j - 1]), d.identical + (a[i - 1] == b[j - 1]), d.length + 1};
  };
  Triple best = empty;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t j = 1; j <= n; ++j) {
      e(i, j) = max_of({gap(h(i, j - 1), scheme.gap_open), gap(e(i, j - 1), scheme.gap_extend)});
      f(i, j) = max_of({gap(h(i - 1, j), scheme.gap_open), gap(f(i - 1, j), scheme.gap_extend)});
      h(i, j) = global ? max_of({match(i, j), e(i, j), f(i, j)}) : max_of({empty, match(i, j), e(i, j), f(i, j)});
      if (best.order() < h(i, j).order()) best = h(i, j), best_i = i, best_j = j;
    }
  }
  if (global) best = h(m, n), best_i = m, best_j = n;

  // Walk back through whichever predecessor produced each state's value; a local
  // alignment starts where H is the empty alignment, a global one at (0, 0).
  TracedAlignment traced{{best.score, best.identical, best.length}, {}, {}, 0, 0};
  enum class State { h, e, f } state = State::h;
  std::size_t i = best_i, j = best_j;
  while (true) {
    if (state == State::h) {
      if (global && (i == 0 || j == 0)) {  // the leading end gap
        for (; i > 0; --i) traced.row_a.push_back(a[i - 1]), traced.row_b.push_back(-1);
        for (; j > 0; --j) traced.row_a.push_back(-1), traced.row_b.push_back(b[j - 1]);
        break;
      }
      if (!global && h(i, j) == empty) break;
      if (h(i, j) == match(i, j)) {
        traced.row_a.push_back(a[i - 1]);
        traced.row_b.push_back(b[j - 1]);
        --i, --j;
      } else {
        state = h(i, j) == e(i, j) ? State::e : State::f;
      }
    } else if (state == State::e) {
      traced.row_a.push_back(-1);
      traced.row_b.push_back(b[j - 1]);
      state = e(i, j) == gap(h(i, j - 1), scheme.gap_open) ? State::h : State::e;
      --j;
    } else {
      traced.row_a.push_back(a[i - 1]);
      traced.row_b.push_back(-1);
      state = f(i, j) == gap(h(i - 1, j), scheme.gap_open) ? State::h : State::f;
      --i;
    }
  }
  std::reverse(traced.row_a.begin(), traced.row_a.end());
  std::reverse(traced.row_b.begin(), traced.row_b.end());
  traced.a_begin = static_cast<int>(i);
  traced.b_begin = static_cast<int>(j);
  return traced;
}

AlignmentStats rescore(const TracedAlignment& alignment, const ScoringScheme& scheme) {
  AlignmentStats stats;
  bool in_gap_a = false, in_gap_b = false;
  for (std::size_t c = 0; c < alignment.row_a.size(); ++c) {
    const int x = alignment.row_a[c], y = alignment.row_b[c];
    if (x < 0 && y < 0) throw std::logic_error("column with two gaps");
    if (x < 0) {
      stats.score -= in_gap_a ? scheme.gap_extend : scheme.gap_open;
    } else if (y < 0) {
      stats.score -= in_gap_b ? scheme.gap_extend : scheme.gap_open;
    } else {
      stats.score += scheme.score(static_cast<Residue>(x), static_cast<Residue>(y));
      stats.identical += x == y;
    }
    in_gap_a = x < 0;
    in_gap_b = y < 0;
    ++stats.length;
  }
  return stats;
}

}  // namespace swg::testing
