// Rolling sums for Pearson correlations of daily log returns over sliding windows.
// Consecutive windows share all but a step's days, so moving to the next window
// subtracts the days that left and adds those that came (Σx, Σx² per symbol, Σxy per
// pair) instead of recomputing every pair over the whole window.
#pragma once

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

  // Brings the sums to `window`'s returns (days first+1 … last); windows move forward.
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
    return r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
  }

  const damds::CircularHalves& halves() const { return halves_; }
  const spidal::RowBlock& block() const { return block_; }

 private:
  // Adds sign × the returns of days [from, to) to every sum.
  void add_days(std::int64_t from, std::int64_t to, double sign);

  const Market& market_;
  spidal::RowBlock block_;
  damds::CircularHalves halves_;
  std::int64_t begin_ = 0;  // returns of days [begin_, end_) are in the sums
  std::int64_t end_ = 0;
  std::vector<double> sum_;          // per symbol Σx
  std::vector<double> sum_squares_;  // per symbol Σx²
  std::vector<double> pair_sums_;    // per kept pair Σxy
};

// Returns whose variance per return is below this count as steady (constant), r = 0 with
// every symbol: a steady series such as the job's REF:+0.1%/day reference, stored as float32
// prices, has rounding noise of ~1e-7 in its returns (variance ~1e-14), which would otherwise
// correlate at random with the stocks; a real price moving by one tick in 250 days has ~1e-11.
inline constexpr double kSteadyReturnVariance = 1e-12;

// The definition the rolling sums are held to: r of symbols i and j over the window's
// returns, two passes (means, then centred products), from the log prices.
double correlation_from_scratch(const Market& market, const Window& window, std::int64_t i, std::int64_t j);

}  // namespace mdsseries
