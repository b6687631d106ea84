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

void RollingSums::move_to(const Window& window) {
  const std::int64_t begin = window.first + 1;
  const std::int64_t end = window.last + 1;
  if (begin >= end_ || end <= begin_) {
    // No day in common (or the first window): start over, so no rounding carries on.
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(sum_squares_.begin(), sum_squares_.end(), 0.0);
    std::fill(pair_sums_.begin(), pair_sums_.end(), 0.0);
    add_days(begin, end, 1.0);
  } else {
    add_days(begin_, begin, -1.0);
    add_days(end_, end, 1.0);
  }
  begin_ = begin;
  end_ = end;
}

void RollingSums::add_days(std::int64_t from, std::int64_t to, double sign) {
  if (from >= to) return;
  const std::int64_t n = market_.symbols;
  const std::int64_t count = to - from;
  std::vector<double> returns(static_cast<std::size_t>(count * n));  // day-major
  for (std::int64_t d = 0; d < count; ++d) {
    for (std::int64_t s = 0; s < n; ++s) {
      const double x = market_.centred_return(from + d, s);
      returns[d * n + s] = x;
      sum_[s] += sign * x;
      sum_squares_[s] += sign * x * x;
    }
  }
  const std::int64_t first_position = halves_.before(block_.begin);
  // Row i's pairs are columns i+1 … i+length (mod n): at most two contiguous runs. The
  // row's sums stay in cache while every changed day is added to them.
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = block_.begin; i < block_.end; ++i) {
    double* row = pair_sums_.data() + (halves_.before(i) - first_position);
    const std::int64_t length = halves_.length(i);
    const std::int64_t before_wrap = std::min(length, n - (i + 1));
    for (std::int64_t d = 0; d < count; ++d) {
      const double* x = returns.data() + d * n;
      const double coefficient = sign * x[i];
      const double* right = x + i + 1;
#pragma omp simd
      for (std::int64_t t = 0; t < before_wrap; ++t) row[t] += coefficient * right[t];
      double* wrapped = row + before_wrap;
#pragma omp simd
      for (std::int64_t t = 0; t < length - before_wrap; ++t) wrapped[t] += coefficient * x[t];
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
