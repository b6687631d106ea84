#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "spidal/errors.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string unique_path(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "." + std::to_string(::getpid());
}

TEST(AtomicOutput, FileAppearsOnlyOnCommit) {
  const auto path = unique_path("atomic.txt");
  {
    spidal::AtomicTextOutput output(path);
    output.stream() << "0 1 2 3\n";
    EXPECT_FALSE(exists(path));
    EXPECT_TRUE(exists(spidal::temporary_path(path, ::getpid())));
    output.commit();
  }
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line, "0 1 2 3");
  EXPECT_FALSE(exists(spidal::temporary_path(path, ::getpid())));
  std::remove(path.c_str());
}

TEST(AtomicOutput, AbandonedOutputLeavesNothing) {
  const auto path = unique_path("abandoned.txt");
  try {
    spidal::AtomicTextOutput output(path);
    output.stream() << "partial";
    throw std::runtime_error("failure mid-write");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(spidal::temporary_path(path, ::getpid())));
}

TEST(AtomicOutput, UnwritableDirectoryIsAUsageError) {
  EXPECT_THROW(spidal::check_output_writable("/nonexistent-dir/out.txt"), spidal::UsageError);
  EXPECT_NO_THROW(spidal::check_output_writable(unique_path("ok.txt")));
}

TEST(Progress, OneFlushedJsonObjectPerLine) {
  spidal::ProgressReporter progress("damds", true);
  ::testing::internal::CaptureStdout();
  progress.report("anneal", spidal::JsonFields().add("iteration", 3).add("temperature", 0.25).add("stress", 0.5));
  progress.done(spidal::JsonFields().add("stress", 0.02).add("note", "a \"quoted\"\nline"),
                spidal::JsonFields().add("total", 1.5));
  const std::string output = ::testing::internal::GetCapturedStdout();
  std::istringstream lines(output);
  std::string first;
  std::string second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first.rfind("{\"program\":\"damds\",\"phase\":\"anneal\",\"iteration\":3,\"temperature\":0.25,"
                        "\"stress\":0.5,\"elapsed\":",
                        0),
            0u)
      << first;
  EXPECT_EQ(first.back(), '}');
  EXPECT_NE(second.find("\"phase\":\"done\""), std::string::npos);
  EXPECT_NE(second.find("\"note\":\"a \\\"quoted\\\"\\nline\""), std::string::npos) << second;
  EXPECT_NE(second.find("\"timings\":{\"total\":1.5}"), std::string::npos) << second;
}

TEST(Progress, StringArrays) {
  EXPECT_EQ(spidal::JsonFields().add("w", std::vector<std::string>{}).object(), "{\"w\":[]}");
  EXPECT_EQ(spidal::JsonFields().add("w", std::vector<std::string>{"a", "b \"c\""}).object(),
            "{\"w\":[\"a\",\"b \\\"c\\\"\"]}");
}

TEST(Progress, NumberArrays) {
  EXPECT_EQ(spidal::JsonFields().add("s", std::vector<double>{}).object(), "{\"s\":[]}");
  EXPECT_EQ(spidal::JsonFields().add("s", std::vector<double>{0.75, -0.125, 1.0 / 0.0}).object(),
            "{\"s\":[0.75,-0.125,null]}");
}

TEST(Progress, NonFiniteNumbersBecomeNullAndDisabledReporterIsSilent) {
  EXPECT_EQ(spidal::JsonFields().add("x", 1.0 / 0.0).object(), "{\"x\":null}");
  spidal::ProgressReporter quiet("damds", false);
  ::testing::internal::CaptureStdout();
  quiet.report("anneal");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

}  // namespace
