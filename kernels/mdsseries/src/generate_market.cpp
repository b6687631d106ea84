// mdsseries-market: writes a generated market (market_generator.hpp) for the CLI
// tests and bench/mdsseries.
#include "market_generator.hpp"
#include "spidal/errors.hpp"
#include "spidal/options.hpp"

namespace {

int run(spidal::MpiEnv&, int argc, char** argv) {
  spidal::Options options("mdsseries-market",
                          "Writes prices.bin, volumes.bin, dates.txt, symbols.txt, sectors.txt of a generated market.",
                          {{"directory", "DIR", "where to write", std::nullopt, {}},
                           {"stocks", "N", "stocks (the two bad ones included)", "100", {}},
                           {"days", "D", "trading days", "500", {}},
                           {"sectors", "K", "planted sectors", "5", {}},
                           {"seed", "S", "random seed", "1", {}},
                           {"bad-stocks", "", "make the last two stocks constant and 30 % missing", std::nullopt, {}}});
  options.parse(argc, argv);
  mdsseries::MarketSpec spec;
  spec.stocks = options.get_int("stocks", 3, 1'000'000);
  spec.days = options.get_int("days", 3, 1'000'000);
  spec.sectors = static_cast<int>(options.get_int("sectors", 1, 1000));
  spec.seed = static_cast<std::uint64_t>(options.get_int("seed", 0, 1LL << 62));
  spec.bad_stocks = options.get_flag("bad-stocks");
  mdsseries::write_market(mdsseries::generate_market(spec), options.get_string("directory"));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run); }
