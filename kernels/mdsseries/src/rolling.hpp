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

  // Pearson r of the returns of symbols i and j (the pair at `position` in the halves),
  // clamped to [−1, 1]; 0 when either symbol's returns are constant.
  double correlation(std::int64_t i, std::int64_t j, std::int64_t position) const;

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

// The definition the rolling sums are held to: r of symbols i and j over the window's
// returns, two passes (means, then centred products), from the log prices.
double correlation_from_scratch(const Market& market, const Window& window, std::int64_t i, std::int64_t j);

}  // namespace mdsseries
