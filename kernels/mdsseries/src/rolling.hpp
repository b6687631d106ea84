// Rolling sums for Pearson correlations of daily log returns over sliding windows.
// Consecutive windows share all but a step's days, so moving to the next window
// subtracts the days that left and adds those that came (Σx, Σx² per symbol, Σxy per
// pair) instead of recomputing every pair over the whole window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "local_rows.hpp"
#include "market.hpp"
#include "spidal/mpi_env.hpp"

namespace mdsseries {

class RollingSums {
 public:
  // Σxy for the pairs of `block`'s rows' circular halves over all symbols, laid out as
  // damds::LocalRows lays out its distances (so pair k here is distance k there).
  RollingSums(const Market& market, spidal::RowBlock block);

  // Brings the per-symbol sums to `window`'s returns (days first+1 … last; windows move
  // forward) and stages the days that left and came for the pair sums, which follow row
  // by row in update_row(): every row of the block once per stage. fill_window_rows does
  // that in the same pass as the row's distances, while the row's sums are in cache.
  void stage(const Window& window);
  // Adds the staged days to row i's pair sums (Σxy += Σ_d sign_d·x_d,i·x_d,j). Inline so
  // a caller compiled for a wider instruction set (fill_window_rows) gets it in that set.
  [[gnu::always_inline]] inline void update_row(std::int64_t i);
  // stage() and every row's update_row().
  void move_to(const Window& window);

  // The per-symbol terms of Pearson's r in the current window, so that
  // r_ij = (Σxy_ij − μ_i·m·μ_j)·s_i·s_j with μ the mean, m the number of returns and
  // s = 1/√(Σx² − m·μ²) (0 for steady returns, giving r = 0); clamped to [−1, 1].
  struct Terms {
    std::vector<double> mean;
    std::vector<double> scaled_mean;     // m·μ
    std::vector<double> inverse_spread;  // s
  };
  Terms terms() const;
  // Σxy of the pairs from `position` on (positions as in damds::LocalRows of the block).
  const double* pair_sums(std::int64_t position) const { return pair_sums_.data() + position; }

  // r of symbols i and j (the pair at `position`) with the window's terms().
  double correlation(const Terms& terms, std::int64_t i, std::int64_t j, std::int64_t position) const {
    return pearson(pair_sums_[position], terms.mean[i], terms.scaled_mean[j], terms.inverse_spread[i],
                   terms.inverse_spread[j]);
  }
  static double pearson(double sum_xy, double mean_i, double scaled_mean_j, double inverse_spread_i,
                        double inverse_spread_j) {
    const double r = (sum_xy - mean_i * scaled_mean_j) * inverse_spread_i * inverse_spread_j;
    return std::min(1.0, std::max(-1.0, r));  // min/max, not branches: the fill's loop vectorises
  }

  const damds::CircularHalves& halves() const { return halves_; }
  const spidal::RowBlock& block() const { return block_; }

 private:
  // sums[t] += Σ_d coefficient[d]·x[d·stride + t] for t < length, d < count, in order of d.
  // Columns in chunks of kLanes: a chunk's sums stay in registers over the days.
  [[gnu::always_inline]] static inline void add_days(double* sums, const double* x, std::int64_t length,
                                                     const double* coefficient, std::int64_t count,
                                                     std::int64_t stride) {
    constexpr std::int64_t kLanes = 16;
    std::int64_t t = 0;
    for (; t + kLanes <= length; t += kLanes) {
      double chunk[kLanes];
      for (std::int64_t k = 0; k < kLanes; ++k) chunk[k] = sums[t + k];
      for (std::int64_t d = 0; d < count; ++d) {
        const double c = coefficient[d];
        const double* day = x + d * stride + t;
#pragma omp simd
        for (std::int64_t k = 0; k < kLanes; ++k) chunk[k] += c * day[k];
      }
      for (std::int64_t k = 0; k < kLanes; ++k) sums[t + k] = chunk[k];
    }
    for (; t < length; ++t) {
      double sum = sums[t];
      for (std::int64_t d = 0; d < count; ++d) sum += coefficient[d] * x[d * stride + t];
      sums[t] = sum;
    }
  }
  // Stages sign × the returns of days [from, to) and adds them to the per-symbol sums.
  void stage_days(std::int64_t from, std::int64_t to, double sign);

  const Market& market_;
  spidal::RowBlock block_;
  damds::CircularHalves halves_;
  std::int64_t begin_ = 0;  // returns of days [begin_, end_) are in the sums
  std::int64_t end_ = 0;
  std::vector<double> sum_;          // per symbol Σx
  std::vector<double> sum_squares_;  // per symbol Σx²
  std::vector<double> pair_sums_;    // per kept pair Σxy
  // The staged days, day-major (a day's returns of all symbols contiguous), and their signs.
  std::vector<double> staged_returns_;
  std::vector<double> staged_signs_;
};

void RollingSums::update_row(std::int64_t i) {
  const std::int64_t n = market_.symbols;
  const std::int64_t days = static_cast<std::int64_t>(staged_signs_.size());
  double* row = pair_sums_.data() + (halves_.before(i) - halves_.before(block_.begin));
  const std::int64_t length = halves_.length(i);
  const std::int64_t before_wrap = std::min(length, n - (i + 1));
  // Days in groups of kDays: each pair's sum is loaded and stored once per group and
  // takes the group's multiply-adds in registers (a week's step changes ~10 days).
  constexpr std::int64_t kDays = 16;
  for (std::int64_t first = 0; first < days; first += kDays) {
    const std::int64_t count = std::min(kDays, days - first);
    double coefficient[kDays];
    for (std::int64_t d = 0; d < count; ++d) {
      coefficient[d] = staged_signs_[first + d] * staged_returns_[(first + d) * n + i];
    }
    const double* x = staged_returns_.data() + first * n;
    // Row i's pairs are columns i+1 … i+length (mod n): at most two contiguous runs.
    add_days(row, x + i + 1, before_wrap, coefficient, count, n);
    add_days(row + before_wrap, x, length - before_wrap, coefficient, count, n);
  }
}

// Returns whose variance per return is below this count as steady (constant), r = 0 with
// every symbol: a steady series such as the job's REF:+0.1%/day reference, stored as float32
// prices, has rounding noise of ~1e-7 in its returns (variance ~1e-14), which would otherwise
// correlate at random with the stocks; a real price moving by one tick in 250 days has ~1e-11.
inline constexpr double kSteadyReturnVariance = 1e-12;

// The definition the rolling sums are held to: r of symbols i and j over the window's
// returns, two passes (means, then centred products), from the log prices.
double correlation_from_scratch(const Market& market, const Window& window, std::int64_t i, std::int64_t j);

}  // namespace mdsseries
