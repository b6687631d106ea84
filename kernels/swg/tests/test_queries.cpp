// The --query sequences: one checking pass, then rows streamed window by window.
#include <gtest/gtest.h>

#include <sstream>

#include "queries.hpp"
#include "spidal/errors.hpp"
#include "temp_dir.hpp"

namespace {

using swg::testing::TempDir;

// ">q0\nA…", ">q1\nAC…", …: record k has k + 1 residues of ACGT in turn.
std::string numbered_fasta(int count) {
  std::string text;
  for (int k = 0; k < count; ++k) text += ">q" + std::to_string(k) + " read\n" + std::string("ACGTACGTACGT").substr(0, k % 12 + 1) + "\n";
  return text;
}

TEST(Queries, ScanCountsChecksAndWritesTheLabels) {
  TempDir dir;
  const auto path = dir.write("q.fasta", ">a\nACGT\n>b x\nttn\n");
  std::ostringstream labels;
  const auto scan = swg::scan_queries(path, swg::Alphabet::dna, 5, &labels);
  EXPECT_EQ(scan.count, 2);
  EXPECT_EQ(scan.residues, 7);
  EXPECT_EQ(labels.str(), "a\nb\n");
  std::vector<bool> expected(5, false);
  for (const auto code : swg::encode("ACGTN", swg::Alphabet::dna)) expected[code] = true;
  EXPECT_EQ(scan.codes, expected);

  const auto duplicate = dir.write("d.fasta", ">a\nAC\n>b\nGG\n>a\nTT\n");
  try {
    swg::scan_queries(duplicate, swg::Alphabet::dna, 5, nullptr);
    FAIL() << "no error for a duplicate id";
  } catch (const spidal::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("d.fasta:5: duplicate sequence id 'a' (first on line 1)"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(swg::scan_queries(dir.write("e.fasta", "\n"), swg::Alphabet::dna, 5, nullptr), spidal::InputError);
}

// Windows as a rank's batches ask for them: repeated, moving on, skipping rows of
// other ranks' batches; each row equals its record encoded, and going back fails.
TEST(Queries, StreamGivesEachWindowsRowsAndOnlyMovesForward) {
  TempDir dir;
  const auto path = dir.write("q.fasta", numbered_fasta(70));
  swg::QueryStream stream(path, swg::Alphabet::dna);
  const auto expect_rows = [](const swg::RowWindow& window, std::int64_t begin, std::int64_t end) {
    ASSERT_EQ(window.first, begin);
    ASSERT_EQ(static_cast<std::int64_t>(window.sequences.size()), end - begin);
    for (std::int64_t row = begin; row < end; ++row) {
      EXPECT_EQ(window[row], swg::encode(std::string("ACGTACGTACGT").substr(0, row % 12 + 1), swg::Alphabet::dna))
          << "row " << row;
    }
  };
  expect_rows(stream.window(0, 16), 0, 16);
  expect_rows(stream.window(0, 16), 0, 16);
  expect_rows(stream.window(16, 32), 16, 32);
  expect_rows(stream.window(48, 64), 48, 64);  // rows 32..47 belong to another rank
  expect_rows(stream.window(64, 70), 64, 70);
  EXPECT_THROW(stream.window(10, 20), std::logic_error);
}

}  // namespace
