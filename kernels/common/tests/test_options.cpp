#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "spidal/errors.hpp"
#include "spidal/options.hpp"

namespace {

spidal::Options example_options() {
  return spidal::Options("demo", "Demo program.",
                         {
                             {"points", "N", "number of points", std::nullopt, {"NumberDataPoints"}},
                             {"alpha", "A", "cooling factor", "0.95", {"Alpha"}},
                             {"output", "FILE", "output file", std::nullopt, {"PointsFile"}},
                             {"big-endian", "", "input is big-endian", std::nullopt, {"IsBigEndian"}},
                         });
}

void parse(spidal::Options& options, std::vector<const char*> arguments) {
  arguments.insert(arguments.begin(), "demo");
  options.parse(static_cast<int>(arguments.size()), arguments.data());
}

std::string write_config(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/options_test.properties." + std::to_string(::getpid());
  std::ofstream(path) << text;
  return path;
}

TEST(Options, ParsesValuesFlagsAndDefaults) {
  auto options = example_options();
  parse(options, {"--points", "1000", "--big-endian", "--output=out.txt"});
  EXPECT_EQ(options.get_int("points", 1, 100000), 1000);
  EXPECT_TRUE(options.get_flag("big-endian"));
  EXPECT_EQ(options.get_string("output"), "out.txt");
  EXPECT_DOUBLE_EQ(options.get_double("alpha", 0, 1), 0.95);
}

TEST(Options, ConfigFileKeysMapOntoOptionsAndCommandLineWins) {
  const auto path = write_config(
      "# SPIDAL config\nNumberDataPoints = 1000\nAlpha:0.9\nIsBigEndian=true\nUnrelatedKey=whatever\n"
      "PointsFile /tmp/points.txt\n");
  auto options = example_options();
  parse(options, {"-c", path.c_str(), "--points", "500"});
  EXPECT_EQ(options.get_int("points", 1, 100000), 500);
  EXPECT_DOUBLE_EQ(options.get_double("alpha", 0, 1), 0.9);
  EXPECT_TRUE(options.get_flag("big-endian"));
  EXPECT_EQ(options.get_string("output"), "/tmp/points.txt");
  parse(options, {"-c", path.c_str(), "--big-endian=false"});
  EXPECT_FALSE(options.get_flag("big-endian"));
  std::remove(path.c_str());
}

TEST(Options, RejectsMalformedInputWithUsageErrors) {
  auto options = example_options();
  EXPECT_THROW(parse(options, {"--nope", "1"}), spidal::UsageError);
  EXPECT_THROW(parse(options, {"--points"}), spidal::UsageError);
  EXPECT_THROW(parse(options, {"stray"}), spidal::UsageError);
  EXPECT_THROW(parse(options, {"-c", "/nonexistent/config.properties"}), spidal::UsageError);
  parse(options, {"--points", "12x", "--alpha", "2"});
  EXPECT_THROW(options.get_int("points", 1, 100), spidal::UsageError);
  EXPECT_THROW(options.get_double("alpha", 0, 1), spidal::UsageError);
  parse(options, {});
  EXPECT_FALSE(options.has("points"));
  try {
    options.get_int("points", 1, 100);
    FAIL() << "missing option accepted";
  } catch (const spidal::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--points"), std::string::npos);
  }
}

TEST(Options, HelpListsOptionsAndConfigKeys) {
  auto options = example_options();
  try {
    parse(options, {"--points", "3", "--help"});
    FAIL() << "--help did not throw HelpRequested";
  } catch (const spidal::HelpRequested& help) {
    const std::string text = help.what();
    EXPECT_NE(text.find("--alpha A"), std::string::npos);
    EXPECT_NE(text.find("NumberDataPoints"), std::string::npos);
    EXPECT_NE(text.find("default 0.95"), std::string::npos);
  }
}

}  // namespace
