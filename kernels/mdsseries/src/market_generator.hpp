// Generated markets for the tests and the benchmark: a factor model with planted
// sectors. Daily log return of stock i in sector s(i): a market factor, its sector's
// factor and its own noise (within-sector correlation ≈ 0.55, across ≈ 0.1), prices
// from 10–200, volumes log-normal per stock with daily noise, trading days on weekdays
// from 2004-01-02. Optionally the two bad stocks SPIDAL's cleaning removes: one with a
// constant price, one missing 30 % of its days at random (both at the end).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "market.hpp"

namespace mdsseries {

struct MarketSpec {
  std::int64_t stocks = 100;  // including the bad ones
  std::int64_t days = 500;
  int sectors = 5;
  std::uint64_t seed = 1;
  bool bad_stocks = false;
};

struct GeneratedMarket {
  SeriesMatrix prices;
  SeriesMatrix volumes;
  std::vector<std::int64_t> dates;  // days since 1970-01-01
  std::vector<int> sectors;         // per stock (the bad ones too)
  std::vector<std::string> symbols; // "S0001"…
};

GeneratedMarket generate_market(const MarketSpec& spec);

// Writes prices.bin, volumes.bin, dates.txt, symbols.txt and sectors.txt into `directory`.
void write_market(const GeneratedMarket& market, const std::string& directory);

}  // namespace mdsseries
