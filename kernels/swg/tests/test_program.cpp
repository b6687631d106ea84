// The swg program end to end: bad input, exact distances, symmetry, config files,
// 1 vs 2 ranks, and the real 16S reads checked against the scalar reference.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

#include "alignment.hpp"
#include "random_sequences.hpp"
#include "spidal/cpu.hpp"
#include "spidal/fasta.hpp"
#include "temp_dir.hpp"

namespace {

using swg::testing::TempDir;

const std::string kSwg = SWG_BINARY;
const std::string kMpirun = std::string(SWG_MPIEXEC) + " -np 2 --allow-run-as-root --oversubscribe ";
const std::string k16s = std::string(SWG_SHARED_DATA_DIR) + "/16s-4640.fasta";

struct Run {
  int exit_code;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Run run(const std::string& command, const TempDir& dir) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const int status = std::system((command + " >" + out + " 2>" + err).c_str());
  Run result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return result;
}

// The matrix as written (little-endian int16), checked for its size.
std::vector<std::int16_t> read_matrix(const std::string& path, std::int64_t n) {
  const std::string bytes = slurp(path);
  EXPECT_EQ(bytes.size(), static_cast<std::size_t>(n * n * 2)) << path;
  std::vector<std::int16_t> values(bytes.size() / 2);
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto low = static_cast<unsigned char>(bytes[2 * k]), high = static_cast<unsigned char>(bytes[2 * k + 1]);
    values[k] = static_cast<std::int16_t>(low | (high << 8));
  }
  return values;
}

void expect_symmetric_with_zero_diagonal(const std::vector<std::int16_t>& m, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(m[i * n + i], 0) << "diagonal " << i;
    for (std::int64_t j = i + 1; j < n; ++j) ASSERT_EQ(m[i * n + j], m[j * n + i]) << i << "," << j;
  }
}

std::string write_random_fasta(const TempDir& dir, const swg::ScoringScheme& scheme, int count, unsigned seed) {
  swg::testing::SequenceFactory factory(scheme, seed);
  const auto letters = swg::alphabet_letters(scheme.alphabet);
  std::vector<std::vector<swg::Residue>> families;
  std::ostringstream text;
  for (int s = 0; s < count; ++s) {
    // Families of relatives; every third family's long enough that their pairs exceed
    // the int32 keys (511 residues together) and take the int64 ones.
    if (s % 10 == 0) families.push_back(factory.random(s % 30 == 0 ? factory.uniform(270, 300) : factory.uniform(20, 110)));
    const auto sequence = factory.mutate(families.back(), 0.1, 0.06, 320);
    text << ">seq" << s << " family " << families.size() << "\n";
    for (std::size_t k = 0; k < sequence.size(); ++k) text << letters[sequence[k]] << (k % 60 == 59 ? "\n" : "");
    text << "\n";
  }
  return dir.write("in.fasta", text.str());
}

void expect_matches_reference(const std::vector<std::int16_t>& m, const std::vector<spidal::FastaRecord>& records,
                              const swg::ScoringScheme& scheme, const std::vector<std::pair<int, int>>& pairs,
                              swg::DistanceKind kind = swg::DistanceKind::spidal) {
  const auto n = static_cast<std::int64_t>(records.size());
  std::vector<std::optional<int>> self_scores(n);  // score distance: S(a, a) by the reference, once each
  const auto self_score = [&](int k, const std::vector<swg::Residue>& a) {
    if (!self_scores[k]) self_scores[k] = swg::align_reference(a, a, scheme).score;
    return *self_scores[k];
  };
  for (const auto& [i, j] : pairs) {
    const auto a = swg::encode(records[i].residues, scheme.alphabet);
    const auto b = swg::encode(records[j].residues, scheme.alphabet);
    const auto stats = swg::align_reference(a, b, scheme, swg::alignment_mode(kind));
    const std::int16_t expected = kind == swg::DistanceKind::score
                                      ? swg::stored_score_distance(stats.score, self_score(i, a), self_score(j, b))
                                      : swg::stored_distance(stats, a.size(), b.size(), kind);
    ASSERT_EQ(m[i * n + j], expected) << records[i].id << " vs " << records[j].id;
  }
}

std::vector<std::pair<int, int>> all_pairs(int n) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) pairs.emplace_back(i, j);
  }
  return pairs;
}

TEST(SwgProgram, BadFastaFailsNamingTheLineAndWritesNothing) {
  TempDir dir;
  dir.write("in.fasta", ">a\nACGT\n>b\nACGT\n>a\nAAAA\n");
  const auto result = run(kSwg + " --input " + dir.file("in.fasta") + " --output " + dir.file("out.bin"), dir);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("in.fasta:5: duplicate sequence id 'a'"), std::string::npos) << result.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"in.fasta"});

  dir.write("in.fasta", ">a\nACGT\n>b\nACZT\n");
  const auto bad_letter = run(kMpirun + kSwg + " --input " + dir.file("in.fasta") + " --output " +
                                  dir.file("out.bin"), dir);
  EXPECT_NE(bad_letter.exit_code, 0);
  EXPECT_NE(bad_letter.err.find("in.fasta:4: character 'Z' (column 3) is not in the dna alphabet"),
            std::string::npos) << bad_letter.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"in.fasta"});
}

TEST(SwgProgram, BadOptionsAreUsageErrors) {
  TempDir dir;
  const auto fasta = dir.write("in.fasta", ">a\nACGT\n>b\nACGA\n");
  const std::string base = kSwg + " --input " + fasta + " --output " + dir.file("out.bin");
  for (const std::string options :
       {" --alphabet rna", " --matrix blosum62", " --gap-open 0", " --kernel sse9", " --distance local"}) {
    const auto result = run(base + options, dir);
    EXPECT_EQ(result.exit_code, 2) << options;
    EXPECT_NE(result.err.find("see --help"), std::string::npos) << options << ": " << result.err;
  }
  EXPECT_EQ(run(kSwg + " --output " + dir.file("out.bin"), dir).exit_code, 2);
  EXPECT_EQ(run(base + " --input " + dir.file("missing.fasta"), dir).exit_code, 2);
  const auto missing_query = run(base + " --query " + dir.file("missing.fasta"), dir);
  EXPECT_EQ(missing_query.exit_code, 2);
  EXPECT_NE(missing_query.err.find("missing.fasta"), std::string::npos) << missing_query.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"in.fasta"});
  const auto help = run(kSwg + " --help", dir);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--gap-extend"), std::string::npos);
}

// --kernel forces a kernel the CPU has (the read line names it) and refuses, as a
// usage error naming it, one it lacks (avx512 on CPUs without AVX-512 F/BW/DQ/VL).
TEST(SwgProgram, KernelOptionFollowsTheCpu) {
  TempDir dir;
  const auto fasta = dir.write("in.fasta", ">a\nACGTACGT\n>b\nACGAACGT\n");
  const std::pair<std::string, bool> kernels[] = {{"avx512", spidal::cpu_supports(spidal::Isa::avx512)},
                                                  {"avx2", spidal::cpu_supports(spidal::Isa::avx2)},
                                                  {"generic", true}};
  for (const auto& [name, present] : kernels) {
    const auto result = run(kSwg + " --input " + fasta + " --output " + dir.file("out.bin") + " --kernel " + name, dir);
    if (present) {
      EXPECT_EQ(result.exit_code, 0) << name << ": " << result.err;
      EXPECT_NE(result.out.find("\"kernel\":\"" + name + "\""), std::string::npos) << result.out;
    } else {
      EXPECT_EQ(result.exit_code, 2) << name;
      EXPECT_NE(result.err.find("--kernel: this CPU does not support the " + name + " kernel"), std::string::npos)
          << result.err;
      EXPECT_FALSE(std::filesystem::exists(dir.file("out.bin"))) << name;
    }
    std::filesystem::remove(dir.file("out.bin"));
    std::filesystem::remove(dir.file("out.bin.labels"));
  }
}

// Every pair of a DNA set with gapped relatives, short and long, on small ragged
// tiles and several batches: exactly the reference distances.
TEST(SwgProgram, DnaMatrixEqualsTheReferenceOnEveryPair) {
  TempDir dir;
  const auto scheme = swg::make_scoring(swg::Alphabet::dna, "ednafull", 16, 4);
  const auto fasta = write_random_fasta(dir, scheme, 100, 11);
  const auto result = run(kSwg + " --input " + fasta + " --output " + dir.file("out.bin") +
                              " --block-size 16 --memory-mb 1", dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::dna));
  const auto m = read_matrix(dir.file("out.bin"), 100);
  expect_symmetric_with_zero_diagonal(m, 100);
  expect_matches_reference(m, records, scheme, all_pairs(100));

  std::string expected_labels;
  for (const auto& record : records) expected_labels += record.id + "\n";
  EXPECT_EQ(slurp(dir.file("out.bin.labels")), expected_labels);
  EXPECT_EQ(result.out.rfind("{\"program\":\"swg\",\"phase\":\"read\"", 0), 0u) << result.out;
  EXPECT_NE(result.out.find("{\"program\":\"swg\",\"phase\":\"done\",\"sequences\":100,\"pairs\":4950"),
            std::string::npos) << result.out;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"in.fasta", "out.bin", "out.bin.labels"}));
}

// --distance shorter, global and score: every pair as the reference computes it, on
// the SIMD kernel and the generic one alike (pairs too long for the narrow keys take
// the wide ones; for score, related pairs saturate the 8-bit lanes).
TEST(SwgProgram, EachDistanceEqualsTheReferenceOnEveryPair) {
  TempDir dir;
  const auto scheme = swg::make_scoring(swg::Alphabet::dna, "ednafull", 16, 4);
  const auto fasta = write_random_fasta(dir, scheme, 60, 23);
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::dna));
  for (const std::string name : {"shorter", "global", "score"}) {
    const std::string base = kSwg + " --input " + fasta + " --block-size 16 --distance " + name + " --output ";
    const auto result = run(base + dir.file(name + ".bin"), dir);
    ASSERT_EQ(result.exit_code, 0) << name << ": " << result.err;
    EXPECT_NE(result.out.find("\"distance\":\"" + name + "\""), std::string::npos) << result.out;
    const auto m = read_matrix(dir.file(name + ".bin"), 60);
    expect_symmetric_with_zero_diagonal(m, 60);
    expect_matches_reference(m, records, scheme, all_pairs(60), swg::parse_distance(name));
    ASSERT_EQ(run(base + dir.file("generic.bin") + " --kernel generic", dir).exit_code, 0);
    EXPECT_TRUE(slurp(dir.file(name + ".bin")) == slurp(dir.file("generic.bin"))) << name;
  }
}

// --distance score beyond the 16-bit lanes: two proteins of 3,000 residues score
// above 32,767 against each other (W/W = 11), so the int64-key kernel takes those
// pairs; the short ones in the same lane group stay in the 8- and 16-bit lanes. Twelve
// short ones sort first in the group, so the long ones fall in a later slice of the
// int64 kernel's lanes (8 with AVX2).
TEST(SwgProgram, ScoreDistanceBeyondTheWordLanesStaysExact) {
  TempDir dir;
  const auto scheme = swg::make_scoring(swg::Alphabet::protein, "blosum62", 9, 1);
  std::string long_a(3000, 'W'), long_b = long_a;
  long_b[1500] = 'A';
  std::string fasta_text = ">a\n" + long_a + "\n>b\n" + long_b + "\n>c\nWWWWAWWW\n>d\nMKVLAAGW\n";
  for (int k = 0; k < 10; ++k) fasta_text += ">s" + std::to_string(k) + "\nMKVLWWG" + std::string(k, 'W') + "\n";
  const int n = 14;
  const auto fasta = dir.write("long.fasta", fasta_text);
  const auto result = run(kSwg + " --input " + fasta + " --alphabet protein --distance score --output " +
                              dir.file("long.bin"), dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::protein));
  const auto m = read_matrix(dir.file("long.bin"), n);
  expect_symmetric_with_zero_diagonal(m, n);
  expect_matches_reference(m, records, scheme, all_pairs(n), swg::DistanceKind::score);
  // S(a, a) = 3,000 · 11, S(b, b) = 2,999 · 11 + 4 (A/A), S(a, b) = 2,999 · 11 − 3 (W/A).
  EXPECT_EQ(m[1], (33000 + 32993 - 2 * 32986) * 32767 / (33000 + 32993));
}

// Settings from a SPIDAL-style config file, overridden on the command line.
TEST(SwgProgram, ProteinsFromAConfigFile) {
  TempDir dir;
  const auto scheme = swg::make_scoring(swg::Alphabet::protein, "blosum62", 10, 1);
  const auto fasta = write_random_fasta(dir, scheme, 60, 5);
  const auto config = dir.write("config.properties", "FastaFile = " + fasta + "\nDistanceMatrixFile = " +
                                                         dir.file("prot.bin") +
                                                         "\nAlphabet = protein\nGapOpen = 11\nGapExtension = 1\n");
  const auto result = run(kSwg + " -c " + config + " --gap-open 10", dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::protein));
  const auto m = read_matrix(dir.file("prot.bin"), 60);
  expect_symmetric_with_zero_diagonal(m, 60);
  expect_matches_reference(m, records, scheme, all_pairs(60));
}

std::string write_records(const TempDir& dir, const std::string& name, const std::vector<spidal::FastaRecord>& records,
                          const std::vector<int>& picks) {
  std::ostringstream text;
  for (const int k : picks) text << ">" << records[k].id << "\n" << records[k].residues << "\n";
  return dir.write(name, text.str());
}

std::vector<int> index_range(int begin, int end) {
  std::vector<int> indices(end - begin);
  std::iota(indices.begin(), indices.end(), begin);
  return indices;
}

// --query: the Q×N block equals the full matrix's rows of the queries at the
// columns of the input sequences, exactly, for local and global distances, on 2
// ranks with ragged tiles and several batches. The queries overlap the input (the
// same sequence in both gives that pair's value in the full matrix: 0).
TEST(SwgProgram, QueryBlockEqualsTheFullMatrixRowsAndColumns) {
  TempDir dir;
  const int n = 100;
  const auto scheme = swg::make_scoring(swg::Alphabet::dna, "ednafull", 16, 4);
  const auto fasta = write_random_fasta(dir, scheme, n, 31);
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::dna));
  const auto in_sample = index_range(0, 61);
  std::vector<int> queries = index_range(55, n);
  queries.insert(queries.begin() + 3, 2);  // out of order, and one far inside the sample
  const auto input = write_records(dir, "sample.fasta", records, in_sample);
  const auto query = write_records(dir, "queries.fasta", records, queries);
  const auto q = static_cast<std::int64_t>(queries.size()), cols = static_cast<std::int64_t>(in_sample.size());
  for (const std::string distance : {"spidal", "global", "score"}) {
    const std::string common = " --block-size 16 --memory-mb 1 --distance " + distance + " --output ";
    ASSERT_EQ(run(kSwg + " --input " + fasta + common + dir.file("full.bin"), dir).exit_code, 0);
    const auto result = run("OMP_NUM_THREADS=1 " + kMpirun + kSwg + " --input " + input + " --query " + query +
                                common + dir.file("block.bin"), dir);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto full = read_matrix(dir.file("full.bin"), n);
    const std::string bytes = slurp(dir.file("block.bin"));
    ASSERT_EQ(bytes.size(), static_cast<std::size_t>(q * cols * 2));
    for (std::int64_t r = 0; r < q; ++r) {
      for (std::int64_t c = 0; c < cols; ++c) {
        const auto low = static_cast<unsigned char>(bytes[2 * (r * cols + c)]);
        const auto high = static_cast<unsigned char>(bytes[2 * (r * cols + c) + 1]);
        ASSERT_EQ(static_cast<std::int16_t>(low | (high << 8)), full[queries[r] * n + in_sample[c]])
            << distance << ": query " << records[queries[r]].id << " vs " << records[in_sample[c]].id;
      }
    }
    std::string expected_labels;
    for (const int k : queries) expected_labels += records[k].id + "\n";
    EXPECT_EQ(slurp(dir.file("block.bin.labels")), expected_labels);
    EXPECT_NE(result.out.find("\"sequences\":61,\"queries\":46,\"residues\""), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\"fraction\":1,"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\"phase\":\"done\",\"sequences\":61,\"queries\":46,\"pairs\":2806"),
              std::string::npos) << result.out;
  }
}

std::string first_records_of_16s(const TempDir& dir, int count) {
  std::ifstream in(k16s);
  std::ostringstream out;
  std::string line;
  for (int headers = 0; std::getline(in, line);) {
    if (line.rfind('>', 0) == 0 && ++headers > count) break;
    out << line << "\n";
  }
  return dir.write("subset.fasta", out.str());
}

TEST(SwgProgram, OneAndTwoRanksWriteIdenticalFiles) {
  ASSERT_TRUE(std::filesystem::exists(k16s)) << "reference data missing: " << k16s
                                             << " (expected at ../shared/data from the repository root)";
  TempDir dir;
  const auto fasta = first_records_of_16s(dir, 300);
  const std::string options = " --input " + fasta + " --block-size 32 --memory-mb 1 --output ";
  ASSERT_EQ(run("OMP_NUM_THREADS=2 " + kSwg + options + dir.file("one.bin"), dir).exit_code, 0);
  ASSERT_EQ(run("OMP_NUM_THREADS=1 " + kMpirun + kSwg + options + dir.file("two.bin"), dir).exit_code, 0);
  ASSERT_EQ(run(kSwg + options + dir.file("generic.bin") + " --kernel generic", dir).exit_code, 0);
  const auto one = slurp(dir.file("one.bin"));
  EXPECT_EQ(one.size(), 300u * 300u * 2u);
  EXPECT_TRUE(one == slurp(dir.file("two.bin"))) << "1 rank and 2 ranks differ";
  EXPECT_TRUE(one == slurp(dir.file("generic.bin"))) << "SIMD and generic kernels differ";
}

// --distance score on related reads, where pairs saturate the 8-bit lanes and go
// again through 16-bit lanes gathered per row across tiles (small tiles and batches
// here): every pair equals the reference, and 1 thread, 2 threads, 2 ranks and the
// generic kernel write the same file.
TEST(SwgProgram, ScoreDistanceOn16sReadsEqualsTheReferenceOnEveryPair) {
  ASSERT_TRUE(std::filesystem::exists(k16s)) << "reference data missing: " << k16s
                                             << " (expected at ../shared/data from the repository root)";
  TempDir dir;
  const int n = 300;
  const auto fasta = first_records_of_16s(dir, n);
  const std::string options = " --input " + fasta + " --distance score --block-size 32 --memory-mb 1 --output ";
  ASSERT_EQ(run("OMP_NUM_THREADS=2 " + kSwg + options + dir.file("two.bin"), dir).exit_code, 0);
  const auto scheme = swg::make_scoring(swg::Alphabet::dna, "ednafull", 16, 4);
  const auto records = spidal::read_fasta(fasta, swg::fasta_alphabet(swg::Alphabet::dna));
  const auto m = read_matrix(dir.file("two.bin"), n);
  expect_symmetric_with_zero_diagonal(m, n);
  expect_matches_reference(m, records, scheme, all_pairs(n), swg::DistanceKind::score);
  // The byte lanes did saturate: pairs scoring past their ceiling (255),
  // each score recovered from its distance and the self scores to within 1.
  std::vector<int> self(n);
  for (int k = 0; k < n; ++k) self[k] = swg::self_score(swg::encode(records[k].residues, scheme.alphabet), scheme);
  int saturating = 0;
  for (const auto& [i, j] : all_pairs(n)) saturating += (1 - m[i * n + j] / 32767.0) * (self[i] + self[j]) / 2 > 256;
  EXPECT_GT(saturating, n * (n - 1) / 2 / 20) << "too few pairs saturate the bytes to test their recomputation";
  const std::string two = slurp(dir.file("two.bin"));
  ASSERT_EQ(run("OMP_NUM_THREADS=1 " + kSwg + options + dir.file("one.bin"), dir).exit_code, 0);
  ASSERT_EQ(run("OMP_NUM_THREADS=1 " + kMpirun + kSwg + options + dir.file("ranks.bin"), dir).exit_code, 0);
  ASSERT_EQ(run(kSwg + options + dir.file("generic.bin") + " --kernel generic", dir).exit_code, 0);
  EXPECT_TRUE(two == slurp(dir.file("one.bin"))) << "1 and 2 threads differ";
  EXPECT_TRUE(two == slurp(dir.file("ranks.bin"))) << "1 rank and 2 ranks differ";
  EXPECT_TRUE(two == slurp(dir.file("generic.bin"))) << "SIMD and generic kernels differ";
}

// The real 4640 reads, on 2 ranks: symmetric, and a sample of pairs equal to the reference.
TEST(SwgProgram, All16sReadsOnTwoRanksMatchTheReferenceOnASample) {
  ASSERT_TRUE(std::filesystem::exists(k16s)) << "reference data missing: " << k16s
                                             << " (expected at ../shared/data from the repository root)";
  TempDir dir;
  const auto result =
      run("OMP_NUM_THREADS=1 " + kMpirun + kSwg + " --input " + k16s + " --output " + dir.file("16s.bin"), dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto scheme = swg::make_scoring(swg::Alphabet::dna, "ednafull", 16, 4);
  const auto records = spidal::read_fasta(k16s, swg::fasta_alphabet(swg::Alphabet::dna));
  const auto n = static_cast<int>(records.size());
  ASSERT_EQ(n, 4640);
  const auto m = read_matrix(dir.file("16s.bin"), n);
  expect_symmetric_with_zero_diagonal(m, n);
  std::mt19937 engine(2024);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<std::pair<int, int>> sample;
  while (sample.size() < 2000) {
    const int i = pick(engine), j = pick(engine);
    if (i != j) sample.emplace_back(i, j);
  }
  expect_matches_reference(m, records, scheme, sample);
  // Related reads exist: the sample must not be all distance 1.
  EXPECT_LT(*std::min_element(m.begin() + 1, m.begin() + n), 32767 / 2);
}

}  // namespace
