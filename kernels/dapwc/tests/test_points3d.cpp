#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "points3d.hpp"
#include "spidal/errors.hpp"

namespace dapwc {
namespace {

class Points3dFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_ = ::testing::TempDir() + "dapwc_points3d.txt";
};

TEST_F(Points3dFile, ReadsIndexedLinesInAnyOrderIgnoringExtraColumns) {
  const auto points = read_points3d(write("# comment\n1 4 5 6 7\n\n0 1.5 -2 3e-1\n"), 2);
  EXPECT_EQ(points[0], (Point3{1.5, -2.0, 0.3}));
  EXPECT_EQ(points[1], (Point3{4.0, 5.0, 6.0}));
}

void expect_input_error(const std::string& path, std::int64_t n, const std::string& fragment) {
  try {
    read_points3d(path, n);
    FAIL() << "no error for " << fragment;
  } catch (const spidal::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(Points3dFile, RejectsBadFilesNamingTheLine) {
  expect_input_error(write("0 1 2\n"), 1, ":1: expected `index x y z`");
  expect_input_error(write("0 1 2 3\n0 1 2 3\n"), 2, ":2: index 0 given twice");
  expect_input_error(write("0 1 2 3\n5 1 2 3\n"), 2, ":2: index 5 outside 0..1");
  expect_input_error(write("0 1 nan 3\n"), 1, ":1:");
  expect_input_error(write("0 1 2 3\n"), 2, "1 points, expected 2");
  expect_input_error(::testing::TempDir() + "dapwc_no_such_file.txt", 2, "cannot open");
}

}  // namespace
}  // namespace dapwc
