// The price (and volume) matrices as the windows loop uses them, the windows over the
// trading days' dates, and which symbols each window keeps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mdsseries {

// Binary series matrix (prices or volumes): a 32-byte little-endian header, magic
// "WPVTSMAT", uint32 version 1, uint32 bytes per value (8: float64, 4: float32),
// uint64 symbols, uint64 days; then symbols × days values, symbol after symbol, NaN
// for a missing observation.
struct SeriesMatrix {
  std::int64_t symbols = 0;
  std::int64_t days = 0;
  std::vector<double> values;  // symbols × days, row-major
};
SeriesMatrix read_series_matrix(const std::string& path);
// The same layout (float64), used by the market generator.
void write_series_matrix(const std::string& path, const SeriesMatrix& matrix);

// Days since 1970-01-01 of an ISO YYYY-MM-DD date (proleptic Gregorian), and back.
bool parse_iso_date(const std::string& text, std::int64_t& day);
std::string format_iso_date(std::int64_t day);

struct Market {
  std::int64_t symbols = 0;
  std::int64_t days = 0;
  std::vector<std::int64_t> dates;    // per trading day, days since 1970-01-01
  bool has_dates = false;             // false: dates[t] = t
  std::vector<std::string> names;     // empty without a symbols file
  // days × symbols (day-major, so a day's returns are contiguous): ln(price), a missing
  // day carrying the last observation forward, days before a symbol's first
  // observation taking that one (0 for a symbol never observed).
  std::vector<double> log_prices;
  std::vector<std::uint8_t> missing;  // days × symbols, 1 where the price is NaN
  std::vector<float> traded_value;    // days × symbols price × volume (NaN: either missing); empty without volumes
  // Mean daily log return over all days, per symbol: the rolling sums add returns
  // minus this (Pearson's r does not change; the sums' cancellation shrinks).
  std::vector<double> mean_return;

  double log_price(std::int64_t day, std::int64_t symbol) const { return log_prices[day * symbols + symbol]; }
  // ln(p_day / p_{day−1}) − mean_return, for day ≥ 1.
  double centred_return(std::int64_t day, std::int64_t symbol) const {
    return log_price(day, symbol) - log_price(day - 1, symbol) - mean_return[symbol];
  }
};

// Builds the market from the matrices; throws spidal::InputError naming the file,
// symbol and day of a non-positive or infinite price, a negative volume, or a shape
// that differs between the files.
Market make_market(const SeriesMatrix& prices, const SeriesMatrix* volumes, const std::string& prices_path,
                   const std::string& volumes_path);
// Reads the files named (volumes, dates, symbols optional) into a market.
Market load_market(const std::string& prices_path, const std::string* volumes_path, const std::string* dates_path,
                   const std::string* symbols_path);

// A window: trading days first … last (inclusive) with dates in [start_date, end_date];
// its returns are those of days first+1 … last.
struct Window {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::int64_t start_date = 0;
  std::int64_t end_date = 0;
  std::int64_t returns() const { return last - first; }
};

// Windows of `window_days` calendar days starting at the first date and every
// `step_days` after it, while they end on or before the last date. Throws InputError
// when the window is longer than the data or a window holds fewer than 3 trading days.
std::vector<Window> make_windows(const Market& market, std::int64_t window_days, std::int64_t step_days);

// SPIDAL's histogram of relative price changes: 10 bins with edges at −40 %, −20 %,
// −10 %, −5 %, 0, 5 %, 10 %, 20 %, 40 %, fixed so a bin means the same in every frame.
int change_bin(double log_change);

// What a window keeps of each symbol.
struct WindowSymbols {
  std::vector<std::uint8_t> included;  // 1: in this window's frame
  std::vector<double> log_change;      // ln(p_last / p_first) over the window
  std::vector<double> traded_value;    // mean price × volume over its observed days (0 if none)
  std::int64_t count = 0;              // included symbols
  std::int64_t too_sparse = 0;         // left out: missing more than max_missing of the days
  std::int64_t constant = 0;           // left out: constant price
};
// The last `references` symbols are reference series (SPIDAL's artificial ones, one of
// them flat on purpose): the constant-price rule does not leave them out.
WindowSymbols window_symbols(const Market& market, const Window& window, double max_missing,
                             std::int64_t references);

}  // namespace mdsseries
