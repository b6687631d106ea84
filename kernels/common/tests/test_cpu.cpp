// The shared CPU dispatch: levels as the kernel's /proc/cpuinfo flags report them,
// and the --kernel choice over a program's implemented levels.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "spidal/cpu.hpp"

namespace {

using spidal::Isa;

std::set<std::string> cpuinfo_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
  }
  return {};
}

TEST(Cpu, LevelsFollowProcCpuinfo) {
  const auto flags = cpuinfo_flags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  const auto has = [&](std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (!flags.contains(name)) return false;
    }
    return true;
  };
  EXPECT_TRUE(spidal::cpu_supports(Isa::generic));
  EXPECT_EQ(spidal::cpu_supports(Isa::avx2), has({"avx2", "fma"}));
  EXPECT_EQ(spidal::cpu_supports(Isa::avx512), has({"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"}));
}

TEST(Cpu, SelectsTheWidestImplementedLevelThisCpuRuns) {
  const Isa all[] = {Isa::generic, Isa::avx2, Isa::avx512};
  const Isa no_avx512[] = {Isa::avx2, Isa::generic};
  const Isa generic_only[] = {Isa::generic};
  const Isa widest = spidal::cpu_supports(Isa::avx512) ? Isa::avx512
                     : spidal::cpu_supports(Isa::avx2) ? Isa::avx2
                                                       : Isa::generic;
  EXPECT_EQ(spidal::widest_supported(all), widest);
  EXPECT_EQ(spidal::select_isa("auto", all), widest);
  EXPECT_EQ(spidal::widest_supported(no_avx512), widest == Isa::avx512 ? Isa::avx2 : widest);
  EXPECT_EQ(spidal::widest_supported(generic_only), Isa::generic);
  EXPECT_EQ(spidal::select_isa("generic", all), Isa::generic);
  EXPECT_EQ(spidal::supported_isa_names(all).front(), spidal::isa_name(widest));
  EXPECT_EQ(spidal::supported_isa_names(all).back(), "generic");
}

TEST(Cpu, RefusesUnknownUnimplementedAndMissingLevels) {
  const Isa no_avx512[] = {Isa::avx2, Isa::generic};
  try {
    spidal::select_isa("sse9", no_avx512);
    ADD_FAILURE() << "sse9 accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown kernel 'sse9' (auto, avx2, generic)");
  }
  EXPECT_THROW(spidal::select_isa("avx512", no_avx512), std::invalid_argument);
  const Isa all[] = {Isa::generic, Isa::avx2, Isa::avx512};
  for (const Isa isa : {Isa::avx2, Isa::avx512}) {
    if (spidal::cpu_supports(isa)) {
      EXPECT_EQ(spidal::select_isa(spidal::isa_name(isa), all), isa);
    } else {
      try {
        spidal::select_isa(spidal::isa_name(isa), all);
        ADD_FAILURE() << spidal::isa_name(isa) << " selected on a CPU without it";
      } catch (const std::invalid_argument& error) {
        EXPECT_EQ(std::string(error.what()), std::string("this CPU does not support the ") + spidal::isa_name(isa) +
                                                 " kernel");
      }
    }
  }
}

}  // namespace
