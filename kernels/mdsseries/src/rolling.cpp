#include "rolling.hpp"

#include <algorithm>
#include <cmath>

namespace mdsseries {

RollingSums::RollingSums(const Market& market, spidal::RowBlock block)
    : market_(market),
      block_(block),
      halves_{market.symbols},
      sum_(market.symbols, 0.0),
      sum_squares_(market.symbols, 0.0),
      pair_sums_(static_cast<std::size_t>(halves_.before(block.end) - halves_.before(block.begin)), 0.0) {}

void RollingSums::stage(const Window& window) {
  const std::int64_t begin = window.first + 1;
  const std::int64_t end = window.last + 1;
  staged_returns_.clear();
  staged_signs_.clear();
  if (begin >= end_ || end <= begin_) {
    // No day in common (or the first window): start over, so no rounding carries on.
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(sum_squares_.begin(), sum_squares_.end(), 0.0);
    std::fill(pair_sums_.begin(), pair_sums_.end(), 0.0);
    stage_days(begin, end, 1.0);
  } else {
    stage_days(begin_, begin, -1.0);
    stage_days(end_, end, 1.0);
  }
  begin_ = begin;
  end_ = end;
}

void RollingSums::move_to(const Window& window) {
  stage(window);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = block_.begin; i < block_.end; ++i) update_row(i);
}

void RollingSums::stage_days(std::int64_t from, std::int64_t to, double sign) {
  const std::int64_t n = market_.symbols;
  for (std::int64_t day = from; day < to; ++day) {
    staged_signs_.push_back(sign);
    for (std::int64_t s = 0; s < n; ++s) {
      const double x = market_.centred_return(day, s);
      staged_returns_.push_back(x);
      sum_[s] += sign * x;
      sum_squares_[s] += sign * x * x;
    }
  }
}

RollingSums::Terms RollingSums::terms() const {
  const double m = static_cast<double>(end_ - begin_);
  const std::size_t n = sum_.size();
  Terms terms{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t s = 0; s < n; ++s) {
    terms.mean[s] = sum_[s] / m;
    terms.scaled_mean[s] = sum_[s];
    const double variance = sum_squares_[s] - sum_[s] * terms.mean[s];
    terms.inverse_spread[s] = variance > kSteadyReturnVariance * m ? 1.0 / std::sqrt(variance) : 0.0;
  }
  return terms;
}


double correlation_from_scratch(const Market& market, const Window& window, std::int64_t i, std::int64_t j) {
  const auto raw = [&](std::int64_t day, std::int64_t s) {
    return market.log_price(day, s) - market.log_price(day - 1, s);
  };
  double mean_i = 0.0, mean_j = 0.0;
  for (std::int64_t t = window.first + 1; t <= window.last; ++t) {
    mean_i += raw(t, i);
    mean_j += raw(t, j);
  }
  mean_i /= static_cast<double>(window.returns());
  mean_j /= static_cast<double>(window.returns());
  double covariance = 0.0, variance_i = 0.0, variance_j = 0.0;
  for (std::int64_t t = window.first + 1; t <= window.last; ++t) {
    const double a = raw(t, i) - mean_i;
    const double b = raw(t, j) - mean_j;
    covariance += a * b;
    variance_i += a * a;
    variance_j += b * b;
  }
  const double steady = kSteadyReturnVariance * static_cast<double>(window.returns());
  if (!(variance_i > steady) || !(variance_j > steady)) return 0.0;
  return std::clamp(covariance / std::sqrt(variance_i * variance_j), -1.0, 1.0);
}

}  // namespace mdsseries
