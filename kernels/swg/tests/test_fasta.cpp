// FASTA reading and its error messages.
#include <gtest/gtest.h>

#include "scoring.hpp"
#include "spidal/errors.hpp"
#include "spidal/fasta.hpp"
#include "temp_dir.hpp"

namespace {

using swg::testing::TempDir;

const spidal::FastaAlphabet kDna = swg::fasta_alphabet(swg::Alphabet::dna);

// The InputError message for reading `text`, or "" when it reads fine.
std::string error_for(const std::string& text, const spidal::FastaAlphabet& alphabet = kDna) {
  TempDir dir;
  const auto path = dir.write("in.fasta", text);
  try {
    spidal::read_fasta(path, alphabet);
  } catch (const spidal::InputError& error) {
    const std::string message = error.what();
    return message.substr(message.find("in.fasta"));
  }
  return "";
}

TEST(Fasta, ReadsMultiLineRecordsWithBlankLinesAndCrLf) {
  TempDir dir;
  const auto path = dir.write("in.fasta", ">one first read\r\nACGT\r\nacgu\r\n\r\n>two\nNNRY\n");
  const auto records = spidal::read_fasta(path, kDna);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, "one");
  EXPECT_EQ(records[0].residues, "ACGTacgu");
  EXPECT_EQ(records[0].header_line, 1);
  EXPECT_EQ(records[1].id, "two");
  EXPECT_EQ(records[1].residues, "NNRY");
  EXPECT_EQ(records[1].header_line, 5);
  EXPECT_EQ(swg::encode(records[0].residues, swg::Alphabet::dna), swg::encode("ACGTACGT", swg::Alphabet::dna));
}

TEST(Fasta, ReportsTheLineOfEachProblem) {
  EXPECT_EQ(error_for(">a\nACGT\n>b\n\n>c\nAC\n"), "in.fasta:3: sequence 'b' is empty");
  EXPECT_EQ(error_for(">a\nACGT\n>b\nAC\n>a\nGG\n"), "in.fasta:5: duplicate sequence id 'a' (first on line 1)");
  EXPECT_EQ(error_for(">a\nACGT\nACXT\n"), "in.fasta:3: character 'X' (column 3) is not in the dna alphabet");
  EXPECT_EQ(error_for(">a\nAC-T\n"), "in.fasta:2: character '-' (column 3) is not in the dna alphabet");
  EXPECT_EQ(error_for("ACGT\n>a\nAC\n"), "in.fasta:1: sequence data before the first '>' header");
  EXPECT_EQ(error_for(">a\nACGT\n>  \nAC\n"), "in.fasta:3: header has no sequence id");
  EXPECT_EQ(error_for(">a\nACGT\n>last\n"), "in.fasta:3: sequence 'last' is empty");
  EXPECT_EQ(error_for("\n\n"), "in.fasta contains no sequences");
  EXPECT_EQ(error_for(">p\nMKV*\n", swg::fasta_alphabet(swg::Alphabet::protein)), "");
  EXPECT_EQ(error_for(">p\nMKJV\n", swg::fasta_alphabet(swg::Alphabet::protein)),
            "in.fasta:2: character 'J' (column 3) is not in the protein alphabet");
}

TEST(Fasta, UnreadableFileIsAnInputError) {
  EXPECT_THROW(spidal::read_fasta("/nonexistent/in.fasta", kDna), spidal::InputError);
}

}  // namespace
