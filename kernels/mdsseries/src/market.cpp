#include "market.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "spidal/errors.hpp"
#include "spidal/output.hpp"

namespace mdsseries {
namespace {

constexpr char kMagic[8] = {'W', 'P', 'V', 'T', 'S', 'M', 'A', 'T'};
constexpr std::size_t kHeaderBytes = 32;

// Header and values are little-endian, as on the machines this is built for (x86-64,
// aarch64): they are read as they lie.
static_assert(std::endian::native == std::endian::little, "series matrices are read as little-endian");

template <typename T>
T field(const unsigned char* header, std::size_t offset) {
  T value;
  std::memcpy(&value, header + offset, sizeof value);
  return value;
}

std::string where(const std::string& path, std::int64_t symbol, std::int64_t day) {
  return path + ": symbol " + std::to_string(symbol) + ", day " + std::to_string(day);
}

}  // namespace

SeriesMatrix read_series_matrix(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw spidal::InputError(path + ": cannot open");
  unsigned char header[kHeaderBytes];
  if (!file.read(reinterpret_cast<char*>(header), kHeaderBytes)) {
    throw spidal::InputError(path + ": shorter than the 32-byte header");
  }
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0) throw spidal::InputError(path + ": no WPVTSMAT header");
  const auto version = field<std::uint32_t>(header, 8);
  const auto value_bytes = field<std::uint32_t>(header, 12);
  const auto symbols = field<std::uint64_t>(header, 16);
  const auto days = field<std::uint64_t>(header, 24);
  if (version != 1) throw spidal::InputError(path + ": header version " + std::to_string(version) + ", expected 1");
  if (value_bytes != 4 && value_bytes != 8) {
    throw spidal::InputError(path + ": " + std::to_string(value_bytes) + " bytes per value, expected 4 or 8");
  }
  if (symbols == 0 || days == 0 || symbols > (1ULL << 31) || days > (1ULL << 31)) {
    throw spidal::InputError(path + ": bad shape " + std::to_string(symbols) + " × " + std::to_string(days));
  }
  file.seekg(0, std::ios::end);
  const auto actual = static_cast<std::uint64_t>(file.tellg());
  const std::uint64_t expected = kHeaderBytes + symbols * days * value_bytes;
  if (actual != expected) {
    throw spidal::InputError(path + ": " + std::to_string(actual) + " bytes, expected " + std::to_string(expected) +
                             " for " + std::to_string(symbols) + " × " + std::to_string(days) + " values");
  }
  file.seekg(kHeaderBytes);
  SeriesMatrix matrix{static_cast<std::int64_t>(symbols), static_cast<std::int64_t>(days), {}};
  matrix.values.resize(symbols * days);
  if (value_bytes == 8) {
    file.read(reinterpret_cast<char*>(matrix.values.data()), static_cast<std::streamsize>(symbols * days * 8));
  } else {
    std::vector<float> row(days);
    for (std::uint64_t s = 0; s < symbols && file; ++s) {
      file.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(days * 4));
      std::copy(row.begin(), row.end(), matrix.values.begin() + s * days);
    }
  }
  if (!file) throw spidal::InputError(path + ": read failed");
  return matrix;
}

void write_series_matrix(const std::string& path, const SeriesMatrix& matrix) {
  spidal::PendingFile pending(path, ::getpid());
  {
    std::ofstream file(pending.temporary(), std::ios::binary | std::ios::trunc);
    unsigned char header[kHeaderBytes] = {};
    std::memcpy(header, kMagic, sizeof kMagic);
    const std::uint32_t version = 1, value_bytes = 8;
    const auto symbols = static_cast<std::uint64_t>(matrix.symbols), days = static_cast<std::uint64_t>(matrix.days);
    std::memcpy(header + 8, &version, 4);
    std::memcpy(header + 12, &value_bytes, 4);
    std::memcpy(header + 16, &symbols, 8);
    std::memcpy(header + 24, &days, 8);
    file.write(reinterpret_cast<const char*>(header), kHeaderBytes);
    file.write(reinterpret_cast<const char*>(matrix.values.data()),
               static_cast<std::streamsize>(matrix.values.size() * sizeof(double)));
    if (!file.flush()) throw std::runtime_error("write failed for " + pending.temporary());
  }
  pending.commit();
}

// Howard Hinnant's days_from_civil / civil_from_days algorithms (public domain).
bool parse_iso_date(const std::string& text, std::int64_t& day) {
  int y = 0, m = 0, d = 0;
  char extra = 0;
  if (text.size() != 10 || std::sscanf(text.c_str(), "%4d-%2d-%2d%c", &y, &m, &d, &extra) != 3) return false;
  if (text[4] != '-' || text[7] != '-' || m < 1 || m > 12 || d < 1) return false;
  static constexpr std::array<int, 12> kLength = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kLength[m - 1] + (m == 2 && leap ? 1 : 0)) return false;
  const int yy = y - (m <= 2 ? 1 : 0);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  day = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  return true;
}

std::string format_iso_date(std::int64_t day) {
  const std::int64_t z = day + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02d-%02d", static_cast<int>(y), static_cast<int>(m), static_cast<int>(d));
  return text;
}

Market make_market(const SeriesMatrix& prices, const SeriesMatrix* volumes, const std::string& prices_path,
                   const std::string& volumes_path) {
  Market market;
  const std::int64_t n = market.symbols = prices.symbols;
  const std::int64_t days = market.days = prices.days;
  if (volumes && (volumes->symbols != n || volumes->days != days)) {
    throw spidal::InputError(volumes_path + ": " + std::to_string(volumes->symbols) + " × " +
                             std::to_string(volumes->days) + " values, the prices are " + std::to_string(n) + " × " +
                             std::to_string(days));
  }
  market.dates.resize(days);
  for (std::int64_t t = 0; t < days; ++t) market.dates[t] = t;
  market.log_prices.assign(days * n, 0.0);
  market.missing.assign(days * n, 1);
  if (volumes) market.traded_value.assign(days * n, std::numeric_limits<float>::quiet_NaN());
  market.mean_return.assign(n, 0.0);
  for (std::int64_t s = 0; s < n; ++s) {
    const double* row = prices.values.data() + s * days;
    std::int64_t first_seen = -1;
    double last = 0.0;
    for (std::int64_t t = 0; t < days; ++t) {
      const double price = row[t];
      if (std::isnan(price)) {
        market.log_prices[t * n + s] = last;  // carried forward (fixed up below before the first observation)
        continue;
      }
      if (!(price > 0.0) || !std::isfinite(price)) {
        throw spidal::InputError(where(prices_path, s, t) + ": price " + std::to_string(price) + " is not positive");
      }
      last = std::log(price);
      if (first_seen < 0) first_seen = t;
      market.log_prices[t * n + s] = last;
      market.missing[t * n + s] = 0;
      if (volumes) {
        const double volume = volumes->values[s * days + t];
        if (volume < 0.0 || std::isinf(volume)) {
          throw spidal::InputError(where(volumes_path, s, t) + ": volume " + std::to_string(volume) +
                                   " is negative or infinite");
        }
        if (!std::isnan(volume)) market.traded_value[t * n + s] = static_cast<float>(price * volume);
      }
    }
    if (first_seen < 0) continue;  // never observed: flat at 0, missing everywhere
    for (std::int64_t t = 0; t < first_seen; ++t) market.log_prices[t * n + s] = market.log_prices[first_seen * n + s];
    if (days > 1) {
      market.mean_return[s] = (market.log_prices[(days - 1) * n + s] - market.log_prices[s]) / static_cast<double>(days - 1);
    }
  }
  return market;
}

Market load_market(const std::string& prices_path, const std::string* volumes_path, const std::string* dates_path,
                   const std::string* symbols_path) {
  Market market;
  {
    const SeriesMatrix prices = read_series_matrix(prices_path);
    if (volumes_path) {
      const SeriesMatrix volumes = read_series_matrix(*volumes_path);
      market = make_market(prices, &volumes, prices_path, *volumes_path);
    } else {
      market = make_market(prices, nullptr, prices_path, "");
    }
  }
  if (dates_path) {
    std::ifstream file(*dates_path);
    if (!file) throw spidal::InputError(*dates_path + ": cannot open");
    std::string line;
    std::int64_t t = 0;
    while (std::getline(file, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty()) continue;
      const std::string at = *dates_path + ":" + std::to_string(t + 1);
      if (t >= market.days) throw spidal::InputError(at + ": more dates than the " + std::to_string(market.days) + " days");
      std::int64_t day = 0;
      if (!parse_iso_date(line, day)) throw spidal::InputError(at + ": '" + line + "' is not a YYYY-MM-DD date");
      if (t > 0 && day <= market.dates[t - 1]) throw spidal::InputError(at + ": dates must increase");
      market.dates[t++] = day;
    }
    if (t != market.days) {
      throw spidal::InputError(*dates_path + ": " + std::to_string(t) + " dates for " + std::to_string(market.days) +
                               " days");
    }
    market.has_dates = true;
  }
  if (symbols_path) {
    std::ifstream file(*symbols_path);
    if (!file) throw spidal::InputError(*symbols_path + ": cannot open");
    std::string line;
    while (std::getline(file, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty()) continue;
      if (line.find_first_of(" \t") != std::string::npos) {
        throw spidal::InputError(*symbols_path + ":" + std::to_string(market.names.size() + 1) +
                                 ": a symbol name may not contain white space");
      }
      market.names.push_back(line);
    }
    if (static_cast<std::int64_t>(market.names.size()) != market.symbols) {
      throw spidal::InputError(*symbols_path + ": " + std::to_string(market.names.size()) + " names for " +
                               std::to_string(market.symbols) + " symbols");
    }
  }
  return market;
}

std::vector<Window> make_windows(const Market& market, std::int64_t window_days, std::int64_t step_days) {
  std::vector<Window> windows;
  const std::int64_t first_date = market.dates.front();
  const std::int64_t last_date = market.dates.back();
  for (std::int64_t start = first_date; start + window_days - 1 <= last_date; start += step_days) {
    Window window;
    window.start_date = start;
    window.end_date = start + window_days - 1;
    window.first = std::lower_bound(market.dates.begin(), market.dates.end(), start) - market.dates.begin();
    window.last = (std::upper_bound(market.dates.begin(), market.dates.end(), window.end_date) - market.dates.begin()) - 1;
    if (window.last - window.first < 2) {
      const auto date = [&](std::int64_t day) { return market.has_dates ? format_iso_date(day) : std::to_string(day); };
      throw spidal::InputError("window " + date(window.start_date) + " … " + date(window.end_date) + " holds " +
                               std::to_string(window.last - window.first + 1) + " trading days, needs at least 3");
    }
    windows.push_back(window);
  }
  if (windows.empty()) {
    throw spidal::InputError("the window (" + std::to_string(window_days) + " days) is longer than the data (" +
                             std::to_string(last_date - first_date + 1) + " days)");
  }
  return windows;
}

int change_bin(double log_change) {
  static constexpr std::array<double, 9> kEdges = {-0.4, -0.2, -0.1, -0.05, 0.0, 0.05, 0.1, 0.2, 0.4};
  const double relative = std::expm1(log_change);
  return static_cast<int>(std::upper_bound(kEdges.begin(), kEdges.end(), relative) - kEdges.begin());
}

WindowSymbols window_symbols(const Market& market, const Window& window, double max_missing,
                             std::int64_t references) {
  const std::int64_t n = market.symbols;
  const std::int64_t days = window.last - window.first + 1;
  WindowSymbols out;
  out.included.assign(n, 0);
  out.log_change.assign(n, 0.0);
  out.traded_value.assign(n, 0.0);
  std::vector<std::int64_t> missing(n, 0), traded_days(n, 0);
  std::vector<double> low(n, std::numeric_limits<double>::infinity()), high(n, -std::numeric_limits<double>::infinity());
  for (std::int64_t t = window.first; t <= window.last; ++t) {
    const double* prices = market.log_prices.data() + t * n;
    const std::uint8_t* gaps = market.missing.data() + t * n;
    for (std::int64_t s = 0; s < n; ++s) {
      missing[s] += gaps[s];
      low[s] = std::min(low[s], prices[s]);
      high[s] = std::max(high[s], prices[s]);
    }
    if (!market.traded_value.empty()) {
      const float* traded = market.traded_value.data() + t * n;
      for (std::int64_t s = 0; s < n; ++s) {
        if (std::isnan(traded[s])) continue;
        out.traded_value[s] += traded[s];
        ++traded_days[s];
      }
    }
  }
  for (std::int64_t s = 0; s < n; ++s) {
    out.log_change[s] = market.log_price(window.last, s) - market.log_price(window.first, s);
    if (traded_days[s] > 0) out.traded_value[s] /= static_cast<double>(traded_days[s]);
    if (static_cast<double>(missing[s]) > max_missing * static_cast<double>(days)) {
      ++out.too_sparse;
    } else if (!(high[s] > low[s]) && s < n - references) {
      ++out.constant;
    } else {
      out.included[s] = 1;
      ++out.count;
    }
  }
  return out;
}

}  // namespace mdsseries
