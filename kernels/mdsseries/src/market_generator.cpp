#include "market_generator.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

#include "spidal/output.hpp"

namespace mdsseries {

GeneratedMarket generate_market(const MarketSpec& spec) {
  std::mt19937_64 random(spec.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const std::int64_t n = spec.stocks, days = spec.days;
  GeneratedMarket out;
  out.prices = {n, days, std::vector<double>(n * days)};
  out.volumes = {n, days, std::vector<double>(n * days)};
  std::int64_t day = 0;
  parse_iso_date("2004-01-02", day);
  for (std::int64_t t = 0; t < days; ++t) {
    while ((day + 3) % 7 >= 5) ++day;  // (day + 3) % 7: 0 on Mondays (1970-01-01 was a Thursday), 5–6 at weekends
    out.dates.push_back(day++);
  }
  std::vector<double> market_factor(days);
  std::vector<std::vector<double>> sector_factor(spec.sectors, std::vector<double>(days));
  for (double& f : market_factor) f = 0.006 * normal(random);
  for (auto& factor : sector_factor) {
    for (double& f : factor) f = 0.012 * normal(random);
  }
  char name[24];
  for (std::int64_t i = 0; i < n; ++i) {
    const int sector = static_cast<int>(i % spec.sectors);
    out.sectors.push_back(sector);
    std::snprintf(name, sizeof name, "S%04lld", static_cast<long long>(i));
    out.symbols.push_back(name);
    const double noise = 0.010 + 0.006 * uniform(random);
    const double drift = 0.0004 * normal(random);
    const double base_volume = std::exp(11.0 + 1.5 * normal(random));
    double log_price = std::log(10.0 + 190.0 * uniform(random));
    double* prices = out.prices.values.data() + i * days;
    double* volumes = out.volumes.values.data() + i * days;
    for (std::int64_t t = 0; t < days; ++t) {
      if (t > 0) log_price += drift + market_factor[t] + sector_factor[sector][t] + noise * normal(random);
      prices[t] = std::exp(log_price);
      volumes[t] = std::round(base_volume * std::exp(0.3 * normal(random)));
    }
  }
  if (spec.bad_stocks && n >= 2) {
    double* constant = out.prices.values.data() + (n - 2) * days;
    for (std::int64_t t = 0; t < days; ++t) constant[t] = 50.0;
    double* gappy = out.prices.values.data() + (n - 1) * days;
    double* gappy_volumes = out.volumes.values.data() + (n - 1) * days;
    for (std::int64_t t = 0; t < days; ++t) {
      if (uniform(random) < 0.3) gappy[t] = gappy_volumes[t] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return out;
}

void write_market(const GeneratedMarket& market, const std::string& directory) {
  write_series_matrix(directory + "/prices.bin", market.prices);
  write_series_matrix(directory + "/volumes.bin", market.volumes);
  spidal::AtomicTextOutput dates(directory + "/dates.txt");
  for (const std::int64_t day : market.dates) dates.stream() << format_iso_date(day) << '\n';
  dates.commit();
  spidal::AtomicTextOutput symbols(directory + "/symbols.txt");
  for (const auto& symbol : market.symbols) symbols.stream() << symbol << '\n';
  symbols.commit();
  spidal::AtomicTextOutput sectors(directory + "/sectors.txt");
  for (const int sector : market.sectors) sectors.stream() << sector << '\n';
  sectors.commit();
}

}  // namespace mdsseries
