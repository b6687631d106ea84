// The aligners: reference vs textbook Gotoh and traceback, SIMD lanes vs reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "all_pairs.hpp"
#include "gotoh_traceback.hpp"
#include "spidal/cpu.hpp"
#include "spidal/errors.hpp"
#include "lane_kernel.hpp"
#include "random_sequences.hpp"

namespace swg {

// lane_kernel_avx512.cpp built on SIMDe's portable AVX-512 (tests/CMakeLists.txt).
void run_narrow_avx512_simde(const LaneGroupJob<NarrowKeys>& job);
void run_wide_avx512_simde(const LaneGroupJob<WideKeys>& job);
void run_score_bytes_avx512_simde(const ScoreGroupJob<ScoreBytes>& job);
void run_score_words_avx512_simde(const ScoreGroupJob<ScoreWords>& job);

// For failure messages of tests over kernels (gtest looks it up by ADL).
void PrintTo(const LaneKernel& kernel, std::ostream* out) { *out << kernel.name; }

namespace {

using testing::SequenceFactory;

ScoringScheme dna() { return make_scoring(Alphabet::dna, "ednafull", 16, 4); }
ScoringScheme protein() { return make_scoring(Alphabet::protein, "blosum62", 9, 1); }

std::vector<Residue> dna_codes(const char* text) { return encode(text, Alphabet::dna); }

TEST(Reference, HandWorkedExamples) {
  const auto scheme = dna();
  // Identical sequences: every column matches (EDNAFULL match = 5).
  EXPECT_EQ(align_reference(dna_codes("ACGT"), dna_codes("acgt"), scheme), (AlignmentStats{20, 4, 4}));
  // Three inserted Gs between two runs of ten: a 3-gap (100 − 16 − 8 = 76) beats
  // three mismatches (85 − 12 = 73) and either run alone (50).
  EXPECT_EQ(align_reference(dna_codes("AAAAAAAAAACCCCCCCCCC"), dna_codes("AAAAAAAAAAGGGCCCCCCCCCC"), scheme),
            (AlignmentStats{76, 20, 23}));
  // Nothing scores above zero: the empty alignment, distance 1.
  const auto none = align_reference(dna_codes("A"), dna_codes("C"), scheme);
  EXPECT_EQ(none, (AlignmentStats{0, 0, 0}));
  EXPECT_EQ(stored_distance(none, 1, 1, DistanceKind::spidal), 32767);
  EXPECT_EQ(stored_distance(none, 1, 1, DistanceKind::shorter), 32767);
  // U is T.
  EXPECT_EQ(align_reference(dna_codes("ACGU"), dna_codes("ACGT"), scheme), (AlignmentStats{20, 4, 4}));
}

TEST(Reference, GapBeatsMismatch) {
  const auto scheme = make_scoring(Alphabet::dna, "ednafull", 5, 5);
  // Eight matches around a one-column gap for the T (40 − 5 = 35) beat seven
  // matches and a T/A mismatch (35 − 4 = 31).
  EXPECT_EQ(align_reference(dna_codes("AAAATAAAA"), dna_codes("AAAAAAAA"), scheme), (AlignmentStats{35, 8, 9}));
}

// Global alignments run corner to corner; end gaps cost like internal ones.
TEST(Reference, GlobalHandWorkedExamples) {
  const auto scheme = dna();
  const auto global = AlignmentMode::global;
  EXPECT_EQ(align_reference(dna_codes("ACGT"), dna_codes("ACGT"), scheme, global), (AlignmentStats{20, 4, 4}));
  // A trailing end gap of two: 20 − 16 − 4 = 0 over 6 columns.
  EXPECT_EQ(align_reference(dna_codes("ACGT"), dna_codes("ACGTAA"), scheme, global), (AlignmentStats{0, 4, 6}));
  EXPECT_EQ(align_reference(dna_codes("ACGTAA"), dna_codes("ACGT"), scheme, global), (AlignmentStats{0, 4, 6}));
  // A leading one: the same score and columns.
  EXPECT_EQ(align_reference(dna_codes("ACGT"), dna_codes("GGACGT"), scheme, global), (AlignmentStats{0, 4, 6}));
  // Nothing in common still aligns: one mismatch.
  EXPECT_EQ(align_reference(dna_codes("A"), dna_codes("C"), scheme, global), (AlignmentStats{-4, 0, 1}));
  // Mismatching ends are aligned too: 8 matches and 8 mismatches.
  EXPECT_EQ(align_reference(dna_codes("CCCCACGTACGTCCCC"), dna_codes("GGGGACGTACGTGGGG"), scheme, global),
            (AlignmentStats{40 - 32, 8, 16}));
}

// Co-optimal alignments: the longest, then the one with more identical columns.
TEST(Reference, TieBreakPrefersLongerThenMoreIdentical) {
  const auto scheme = dna();
  // AAAA/AAAA (+20) then CCCCC/GGGGG (−20) in front of the ten Ts (50) add four
  // identical columns and nine columns at no cost: taken.
  EXPECT_EQ(align_reference(dna_codes("AAAACCCCCTTTTTTTTTT"), dna_codes("AAAAGGGGGTTTTTTTTTT"), scheme),
            (AlignmentStats{50, 14, 19}));
  // AA/WV (+1 −1) adds no score and no identical column, two columns: taken.
  EXPECT_EQ(align_reference(dna_codes("AATTTTTTTTTT"), dna_codes("WVTTTTTTTTTT"), scheme),
            (AlignmentStats{50, 10, 12}));
  // TVG/TVG and TVG/TNG both score 5 − 1 + 5 in three columns: the one with three
  // identical columns is taken.
  EXPECT_EQ(align_reference(dna_codes("TVGN"), dna_codes("TNGTVG"), scheme), (AlignmentStats{9, 3, 3}));
}

// Issue 15's example: 7 exact matches score 35, exactly like the 25 columns with
// 15 matches around them (4 matches and 5 mismatches on each side add nothing).
// The 25 columns are reported, in both orders, by the reference, the traceback
// and every kernel (LaneKernelVersusReference); the distance is 10/25, not 0.
TEST(Reference, CoOptimalExampleOfIssue15TakesTheLongAlignment) {
  const auto scheme = dna();
  const auto a = dna_codes("AAAACCCCCTTTTTTTCCCCCAAAA"), b = dna_codes("AAAAGGGGGTTTTTTTGGGGGAAAA");
  const AlignmentStats expected{35, 15, 25};
  EXPECT_EQ(align_reference(a, b, scheme), expected);
  EXPECT_EQ(align_reference(b, a, scheme), expected);
  EXPECT_EQ(testing::align_traced(a, b, scheme, AlignmentMode::local).stats, expected);
  EXPECT_EQ(stored_distance(expected, a.size(), b.size(), DistanceKind::spidal), 10 * 32767 / 25);
  EXPECT_EQ(stored_distance(expected, a.size(), b.size(), DistanceKind::shorter), 10 * 32767 / 25);
}

TEST(StoredDistance, TruncatesExactly) {
  EXPECT_EQ(stored_distance({84, 20, 21}, 30, 40, DistanceKind::spidal), 32767 / 21);  // trunc(1/21 · 32767) = 1560
  EXPECT_EQ(stored_distance({5, 1, 3}, 3, 9, DistanceKind::spidal), 21844);  // trunc(2/3 · 32767) = 21844.67
  // shorter: 1 − 20/30.
  EXPECT_EQ(stored_distance({84, 20, 21}, 30, 40, DistanceKind::shorter), 10 * 32767 / 30);
  EXPECT_EQ(stored_distance({84, 20, 21}, 40, 30, DistanceKind::shorter), 10 * 32767 / 30);
  EXPECT_EQ(stored_distance({-30, 20, 45}, 40, 30, DistanceKind::global), 25 * 32767 / 45);
}

// 0 only for an exact alignment over the whole shorter sequence; a short exact
// local hit, or one over the whole shorter sequence with a gap, is at least 1.
TEST(StoredDistance, ZeroOnlyForAnExactAlignmentOfTheWholeShorterSequence) {
  for (const auto kind : {DistanceKind::spidal, DistanceKind::shorter, DistanceKind::global}) {
    EXPECT_EQ(stored_distance({35, 7, 7}, 7, 400, kind), 0);
    EXPECT_EQ(stored_distance({35, 7, 7}, 400, 7, kind), 0);
  }
  EXPECT_EQ(stored_distance({35, 7, 7}, 8, 400, DistanceKind::spidal), 1);
  EXPECT_EQ(stored_distance({35, 7, 7}, 8, 400, DistanceKind::shorter), 32767 / 8);
  EXPECT_EQ(stored_distance({19, 7, 8}, 7, 400, DistanceKind::shorter), 1);  // all 7 identical, one gap
  const auto scheme = dna();
  const auto a = dna_codes("CCTTTTTTTCC"), b = dna_codes("GGTTTTTTTGG");
  const auto stats = align_reference(a, b, scheme);
  EXPECT_EQ(stats, (AlignmentStats{35, 7, 7}));
  EXPECT_EQ(stored_distance(stats, a.size(), b.size(), DistanceKind::spidal), 1);
}

// 1 − S(a, b) / mean(S(a, a), S(b, b)), truncated; nothing aligned is 1.
TEST(StoredScoreDistance, TruncatesExactly) {
  EXPECT_EQ(stored_score_distance(100, 100, 100), 0);
  EXPECT_EQ(stored_score_distance(90, 100, 120), 40 * 32767 / 220);  // 1 − 180/220
  EXPECT_EQ(stored_score_distance(1, 100, 100), 198 * 32767 / 200);
  EXPECT_EQ(stored_score_distance(0, 100, 100), 32767);
  EXPECT_EQ(stored_score_distance(5, 0, 0), 32767);
  EXPECT_EQ(stored_score_distance(130, 100, 120), 0);  // above the mean (ambiguity codes): clamped
  const auto scheme = dna();
  const auto a = dna_codes("ACGTACGTAA"), b = dna_codes("ACGTACGTAC");  // 9 of 10 match: 45 of 50
  EXPECT_EQ(stored_score_distance(align_reference(a, b, scheme).score, self_score(a, scheme), self_score(b, scheme)),
            10 * 32767 / 100);
}

// The shortcut (the diagonal's sum) equals the DP wherever it is taken, and the DP
// decides for sequences with ambiguity codes.
TEST(SelfScore, EqualsTheReference) {
  for (auto make : {dna, protein}) {
    const auto scheme = make();
    SequenceFactory factory(scheme, 99);
    for (int k = 0; k < 400; ++k) {
      const auto a = factory.random(factory.uniform(1, 120));
      ASSERT_EQ(self_score(a, scheme), align_reference(a, a, scheme).score) << scheme.matrix_name << " sequence " << k;
    }
  }
  const auto scheme = dna();
  EXPECT_EQ(self_score(dna_codes("ACGTACGT"), scheme), 40);
  // S/S scores −1: the DP, which takes ACGT, then A, C and G, then T over the S.
  EXPECT_EQ(self_score(dna_codes("ACGTSACGT"), scheme), align_reference(dna_codes("ACGTSACGT"), dna_codes("ACGTSACGT"), scheme).score);
}

TEST(Distance, ParsesTheFourNames) {
  EXPECT_EQ(parse_distance("spidal"), DistanceKind::spidal);
  EXPECT_EQ(parse_distance("shorter"), DistanceKind::shorter);
  EXPECT_EQ(parse_distance("global"), DistanceKind::global);
  EXPECT_EQ(parse_distance("score"), DistanceKind::score);
  EXPECT_EQ(alignment_mode(DistanceKind::score), AlignmentMode::local);
  EXPECT_EQ(alignment_mode(DistanceKind::shorter), AlignmentMode::local);
  EXPECT_EQ(alignment_mode(DistanceKind::global), AlignmentMode::global);
  EXPECT_THROW(parse_distance("local"), spidal::UsageError);
}

template <class Keys>
void expect_round_trip() {
  typename Keys::Key value = Keys::empty;
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{0, 0, 0}));
  value += Keys::column(5, true) + Keys::column(-4, false) - Keys::gap(16) - Keys::gap(4);
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{5 - 4 - 16 - 4, 1, 4}));
  // The most a pair of max_pair_length residues can have: half as many identical
  // columns (each takes a residue of both), the rest gaps.
  const int identical = Keys::max_pair_length / 2, gaps = Keys::max_pair_length - 3 - identical;
  for (int k = 1; k < identical; ++k) value += Keys::column(3, true);
  for (int k = 0; k < gaps; ++k) value -= Keys::gap(4);
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{-19 + 3 * (identical - 1) - 4 * gaps, identical, Keys::max_pair_length}));
}

// Negative scores (global alignments) decode too.
template <class Keys>
void expect_negative_round_trip() {
  const typename Keys::Key value = Keys::empty - Keys::gap(1000) - 3 * Keys::gap(999) + Keys::column(-4, false);
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{-1000 - 3 * 999 - 4, 0, 5}));
}

TEST(LaneKey, RoundTripsPackedStatistics) {
  expect_negative_round_trip<NarrowKeys>();
  expect_negative_round_trip<WideKeys>();
  expect_round_trip<NarrowKeys>();
  expect_round_trip<WideKeys>();
}

struct SchemeCase {
  const char* name;
  ScoringScheme (*make)();
  AlignmentMode mode;
};

class ReferenceVersusIndependent : public ::testing::TestWithParam<SchemeCase> {};

// The rolling-row reference equals the textbook score, and its identical/length
// counts are those of a traced optimal alignment, recounted column by column.
TEST_P(ReferenceVersusIndependent, RandomPairsWithIndels) {
  const auto scheme = GetParam().make();
  const auto mode = GetParam().mode;
  SequenceFactory factory(scheme, 12345);
  for (int pair = 0; pair < 1500; ++pair) {
    const auto a = factory.random(factory.uniform(1, 70));
    const auto b = pair % 3 == 0 ? factory.random(factory.uniform(1, 70)) : factory.mutate(a, 0.15, 0.1, 90);
    const auto stats = align_reference(a, b, scheme, mode);
    ASSERT_EQ(stats.score, testing::gotoh_score(a, b, scheme, mode)) << "pair " << pair;
    const auto traced = testing::align_traced(a, b, scheme, mode);
    ASSERT_EQ(traced.stats, stats) << "pair " << pair;
    ASSERT_EQ(testing::rescore(traced, scheme), stats) << "pair " << pair;
    // The traced columns spell out contiguous pieces of a and b.
    std::size_t ia = traced.a_begin, ib = traced.b_begin;
    for (std::size_t c = 0; c < traced.row_a.size(); ++c) {
      if (traced.row_a[c] >= 0) {
        ASSERT_EQ(traced.row_a[c], a[ia++]);
      }
      if (traced.row_b[c] >= 0) {
        ASSERT_EQ(traced.row_b[c], b[ib++]);
      }
    }
    if (mode == AlignmentMode::global) {  // corner to corner
      ASSERT_EQ(ia, a.size());
      ASSERT_EQ(ib, b.size());
      ASSERT_EQ(traced.a_begin + traced.b_begin, 0);
    }
    // The definition does not depend on which sequence is the row.
    ASSERT_EQ(align_reference(b, a, scheme, mode), stats) << "pair " << pair;
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, ReferenceVersusIndependent,
                         ::testing::Values(SchemeCase{"dna_local", dna, AlignmentMode::local},
                                           SchemeCase{"protein_local", protein, AlignmentMode::local},
                                           SchemeCase{"dna_global", dna, AlignmentMode::global},
                                           SchemeCase{"protein_global", protein, AlignmentMode::global}),
                         [](const auto& info) { return std::string(info.param.name); });

struct KernelCase {
  LaneKernel kernel;
  const char* scheme_name;
  ScoringScheme (*make)();
  bool wide;  // WideKeys with sequences up to 400 long, else NarrowKeys up to 255
  AlignmentMode mode;
};

const char* mode_name(AlignmentMode mode) { return mode == AlignmentMode::global ? "global" : "local"; }

void PrintTo(const KernelCase& c, std::ostream* out) {
  *out << c.kernel.name << (c.wide ? " wide " : " narrow ") << c.scheme_name << " " << mode_name(c.mode);
}

class LaneKernelVersusReference : public ::testing::TestWithParam<KernelCase> {};

std::vector<Residue> every_code(const ScoringScheme& scheme) {
  std::vector<Residue> codes(scheme.alphabet_size);
  for (int c = 0; c < scheme.alphabet_size; ++c) codes[c] = static_cast<Residue>(c);
  return codes;
}

// 1 to `lanes` random column sequences of 1 to `longest` residues.
std::vector<std::vector<Residue>> random_lane_group(SequenceFactory& factory, int lanes, int longest) {
  std::vector<std::vector<Residue>> columns(factory.uniform(1, lanes));
  for (auto& column : columns) column = factory.random(factory.uniform(1, longest));
  return columns;
}

// Every lane of every row equals the scalar reference, on groups mixing lengths
// (so lanes are padded) and rows related to one lane's sequence; group 0 holds
// issue 15's co-optimal example where it fits.
template <class Keys>
int check_random_groups(void (*run)(const LaneGroupJob<Keys>&), int lanes, const ScoringScheme& scheme,
                        AlignmentMode mode, int longest, int groups) {
  SequenceFactory factory(scheme, 777);
  const auto all_codes = every_code(scheme);
  int pairs = 0;
  for (int group = 0; group < groups; ++group) {
    auto columns = random_lane_group(factory, lanes, longest);
    const int lanes_used = static_cast<int>(columns.size());
    const bool example = group == 0 && scheme.alphabet == Alphabet::dna && longest >= 25;
    if (example) columns.back() = dna_codes("AAAAGGGGGTTTTTTTGGGGGAAAA");
    std::vector<std::span<const Residue>> column_spans(columns.begin(), columns.end());
    LaneProfile<Keys> profile;
    profile.build(scheme, column_spans, lanes, all_codes);

    std::vector<std::vector<Residue>> rows;
    const int limit = std::min(Keys::longest_pair(scheme, mode) - profile.columns(), longest);
    for (int r = 0; r < 7; ++r) {  // rows of every length modulo the rows per sweep
      rows.push_back(r % 2 ? factory.random(factory.uniform(1, limit))
                           : factory.mutate(columns[factory.uniform(0, lanes_used - 1)], 0.1, 0.08, limit));
    }
    if (example) rows[0] = dna_codes("AAAACCCCCTTTTTTTCCCCCAAAA");
    std::vector<std::span<const Residue>> row_spans(rows.begin(), rows.end());
    std::vector<typename Keys::Key> result(rows.size() * lanes);
    AlignedVector<typename Keys::Key> workspace(2 * static_cast<std::size_t>(profile.columns()) * lanes);
    run({&profile, row_spans, Keys::gap(scheme.gap_open), Keys::gap(scheme.gap_extend), mode, result.data(),
         workspace.data()});

    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (int lane = 0; lane < lanes_used; ++lane) {
        EXPECT_EQ(Keys::decode(result[r * lanes + lane]), align_reference(rows[r], columns[lane], scheme, mode))
            << "group " << group << " row " << r << " lane " << lane;
        ++pairs;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  return pairs;
}

// SWG_TEST_GROUPS_PERCENT of the groups (default all): the emulated AVX-512 run
// (avx512_on_bochs.sh) checks half, as each group takes seconds of emulation there.
int random_group_count(int groups) {
  const char* percent = std::getenv("SWG_TEST_GROUPS_PERCENT");
  return percent ? std::max(1, groups * std::atoi(percent) / 100) : groups;
}

TEST_P(LaneKernelVersusReference, RandomGroups) {
  const auto scheme = GetParam().make();
  const LaneKernel& kernel = GetParam().kernel;
  const auto mode = GetParam().mode;
  const int groups = random_group_count(GetParam().wide ? 12 : 24);
  const int pairs = GetParam().wide ? check_random_groups(kernel.run_wide, kernel.lanes, scheme, mode, 400, groups)
                                    : check_random_groups(kernel.run_narrow, kernel.lanes, scheme, mode, 255, groups);
  EXPECT_GT(pairs, 20 * groups);  // 7 rows by 1 to `lanes` lanes: about 60 pairs a group
}

std::vector<KernelCase> kernel_cases(const std::vector<LaneKernel>& kernels) {
  std::vector<KernelCase> cases;
  for (const auto& kernel : kernels) {
    for (const auto mode : {AlignmentMode::local, AlignmentMode::global}) {
      for (const bool wide : {false, true}) {
        cases.push_back({kernel, "dna", dna, wide, mode});
        cases.push_back({kernel, "protein", protein, wide, mode});
      }
    }
  }
  return cases;
}

std::vector<LaneKernel> supported_kernels() {
  std::vector<LaneKernel> kernels;
  for (const auto& name : supported_lane_kernels()) kernels.push_back(select_lane_kernel(name));
  return kernels;
}

std::string case_name(const ::testing::TestParamInfo<KernelCase>& info) {
  return info.param.kernel.name + "_" + (info.param.wide ? "wide_" : "narrow_") + info.param.scheme_name + "_" +
         mode_name(info.param.mode);
}

INSTANTIATE_TEST_SUITE_P(SupportedKernels, LaneKernelVersusReference,
                         ::testing::ValuesIn(kernel_cases(supported_kernels())), case_name);

// The AVX-512 code (16 lanes, int32 and int64 keys, both modes) on any CPU, through
// SIMDe; ctest runs it as its own entry, swg-avx512-simde.
INSTANTIATE_TEST_SUITE_P(Avx512OnSimde, LaneKernelVersusReference,
                         ::testing::ValuesIn(kernel_cases(
                             {{"avx512", kAvx512Lanes, run_narrow_avx512_simde, run_wide_avx512_simde}})),
                         case_name);

// The score-only kernels: every lane's best equals the reference's local score, or
// the profile's ceiling where that score reaches it (then all_pairs recomputes it
// wider). Rows up to 300 residues against DNA groups saturate bytes (5 per match)
// often and words never; the words are then checked against a run of W's long
// enough to saturate them (BLOSUM62 W/W = 11: 3,000 · 11 > 32,767).
template <class Cell>
int check_score_groups(void (*run)(const ScoreGroupJob<Cell>&), int lanes, const ScoringScheme& scheme, int longest,
                       int groups, int* saturated) {
  SequenceFactory factory(scheme, 4242);
  const auto all_codes = every_code(scheme);
  int pairs = 0;
  for (int group = 0; group < groups; ++group) {
    const auto columns = random_lane_group(factory, lanes, longest);
    const int lanes_used = static_cast<int>(columns.size());
    std::vector<std::span<const Residue>> column_spans(columns.begin(), columns.end());
    ScoreProfile<Cell> profile;
    profile.build(scheme, column_spans, lanes, all_codes);
    std::vector<std::vector<Residue>> rows;
    for (int r = 0; r < 7; ++r) {  // every length modulo the rows per sweep
      rows.push_back(r % 2 ? factory.random(factory.uniform(1, longest))
                           : factory.mutate(columns[factory.uniform(0, lanes_used - 1)], 0.05, 0.05, longest));
    }
    std::vector<std::span<const Residue>> row_spans(rows.begin(), rows.end());
    std::vector<int> best(rows.size() * lanes);
    AlignedVector<Cell> workspace(2 * static_cast<std::size_t>(profile.columns()) * lanes);
    run({&profile, row_spans, scheme.gap_open, scheme.gap_extend, best.data(), workspace.data()});
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (int lane = 0; lane < lanes_used; ++lane) {
        const int score = align_reference(rows[r], columns[lane], scheme).score;
        EXPECT_EQ(best[r * lanes + lane], std::min(score, profile.ceiling()))
            << "group " << group << " row " << r << " lane " << lane;
        *saturated += score >= profile.ceiling();
        ++pairs;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  return pairs;
}

void expect_words_saturate(void (*run)(const ScoreGroupJob<ScoreWords>&), int lanes) {
  const auto scheme = protein();
  const auto w = encode(std::string(3000, 'W'), Alphabet::protein), short_w = encode("WWWW", Alphabet::protein);
  const std::vector<std::span<const Residue>> columns{short_w, w};
  ScoreProfile<ScoreWords> profile;
  profile.build(scheme, columns, lanes, encode("W", Alphabet::protein));
  const std::vector<std::span<const Residue>> rows{w};
  std::vector<int> best(lanes);
  AlignedVector<ScoreWords> workspace(2 * static_cast<std::size_t>(profile.columns()) * lanes);
  run({&profile, rows, scheme.gap_open, scheme.gap_extend, best.data(), workspace.data()});
  EXPECT_EQ(best[0], 44);
  EXPECT_EQ(best[1], profile.ceiling());
  EXPECT_EQ(profile.ceiling(), 32767);
}

struct ScoreKernelCase {
  LaneKernel kernel;
  const char* scheme_name;
  ScoringScheme (*make)();
};

class ScoreKernelVersusReference : public ::testing::TestWithParam<ScoreKernelCase> {};

TEST_P(ScoreKernelVersusReference, RandomGroups) {
  const auto scheme = GetParam().make();
  const LaneKernel& kernel = GetParam().kernel;
  int saturated_bytes = 0, saturated_words = 0;
  EXPECT_GT(check_score_groups(kernel.run_score_bytes, kernel.score_lanes, scheme, 300, 12, &saturated_bytes), 300);
  EXPECT_GT(check_score_groups(kernel.run_score_words, kernel.score_lanes, scheme, 300, 12, &saturated_words), 300);
  EXPECT_GT(saturated_bytes, 5);  // the ceiling was reached and reported
  EXPECT_EQ(saturated_words, 0);
  expect_words_saturate(kernel.run_score_words, kernel.score_lanes);
}

std::vector<ScoreKernelCase> score_kernel_cases(const std::vector<LaneKernel>& kernels) {
  std::vector<ScoreKernelCase> cases;
  for (const auto& kernel : kernels) {
    cases.push_back({kernel, "dna", dna});
    cases.push_back({kernel, "protein", protein});
  }
  return cases;
}

std::string score_case_name(const ::testing::TestParamInfo<ScoreKernelCase>& info) {
  return info.param.kernel.name + "_" + info.param.scheme_name;
}

INSTANTIATE_TEST_SUITE_P(SupportedKernels, ScoreKernelVersusReference,
                         ::testing::ValuesIn(score_kernel_cases(supported_kernels())), score_case_name);
INSTANTIATE_TEST_SUITE_P(Avx512OnSimde, ScoreKernelVersusReference,
                         ::testing::ValuesIn(score_kernel_cases({{"avx512", kAvx512Lanes, nullptr, nullptr,
                                                                  kAvx512ScoreLanes, run_score_bytes_avx512_simde,
                                                                  run_score_words_avx512_simde}})),
                         score_case_name);

// TileAligner under --distance score: pairs whose bytes saturate go again through
// words, gathered per row across tiles and lane groups (all_pairs.cpp), with the
// kernel's own lane count (64 for AVX-512). Families of relatives, shuffled so that
// every lane group holds some, over several tiles and batches: every stored value
// equals the reference's. Returns how many pairs saturate the bytes.
int expect_score_tiles_match_reference(const LaneKernel& kernel, const ScoringScheme& scheme) {
  SequenceFactory factory(scheme, 31);
  std::vector<std::vector<Residue>> sequences;
  for (int family = 0; family < 6; ++family) {
    const auto parent = factory.random(factory.uniform(60, 120));
    for (int k = 0; k < 20; ++k) sequences.push_back(factory.mutate(parent, 0.05, 0.02, 130));
  }
  std::shuffle(sequences.begin(), sequences.end(), std::mt19937(7));
  const auto n = static_cast<std::int64_t>(sequences.size());
  std::vector<bool> used(scheme.alphabet_size);
  mark_codes(sequences, used);
  const int block = 48;
  const auto plan = TilePlan::symmetric(n, block, 1, 0, 2 * 4 * block * block);  // 2 tiles a batch
  EXPECT_GT(plan.batches().size(), 2u);
  const TileAligner aligner(sequences, marked_codes(used), scheme, DistanceKind::score, kernel, plan);
  std::vector<std::int16_t> matrix(n * n, -1);
  std::vector<TileDistances> tiles;
  for (const auto& batch : plan.batches()) {
    aligner.compute(batch, RowWindow{0, sequences}, tiles);
    for (const auto& b : matrix_blocks(tiles, plan)) {
      for (std::int64_t r = 0; r < b.rows; ++r) std::copy_n(b.values + r * b.cols, b.cols, &matrix[(b.row + r) * n + b.col]);
    }
  }
  std::vector<int> self(n);
  for (std::int64_t k = 0; k < n; ++k) self[k] = align_reference(sequences[k], sequences[k], scheme).score;
  int saturating = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(matrix[i * n + i], 0);
    for (std::int64_t j = i + 1; j < n; ++j) {
      const int score = align_reference(sequences[i], sequences[j], scheme).score;
      saturating += score >= score_ceiling<ScoreBytes>();
      const auto expected = stored_score_distance(score, self[i], self[j]);
      EXPECT_EQ(matrix[i * n + j], expected) << i << "," << j;
      EXPECT_EQ(matrix[j * n + i], expected) << j << "," << i;
      if (::testing::Test::HasFailure()) return saturating;
    }
  }
  return saturating;
}

class ScoreTilesVersusReference : public ::testing::TestWithParam<LaneKernel> {};

TEST_P(ScoreTilesVersusReference, SaturatedPairsAcrossTilesAndBatches) {
  // Of 7,140 pairs: the gathered recomputation ran.
  EXPECT_GT(expect_score_tiles_match_reference(GetParam(), dna()), 500);
}

// A gap open beyond a signed byte: rows go to the words directly, and stay exact.
TEST_P(ScoreTilesVersusReference, GapCostsBeyondBytesTakeTheWords) {
  const auto scheme = make_scoring(Alphabet::dna, "ednafull", 130, 4);
  ASSERT_FALSE(scores_fit_bytes(scheme));
  ASSERT_TRUE(scores_fit_bytes(dna()));
  expect_score_tiles_match_reference(GetParam(), scheme);
}

INSTANTIATE_TEST_SUITE_P(SupportedKernels, ScoreTilesVersusReference, ::testing::ValuesIn(supported_kernels()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Avx512OnSimde, ScoreTilesVersusReference,
                         ::testing::Values(LaneKernel{"avx512", kAvx512Lanes, run_narrow_avx512_simde,
                                                      run_wide_avx512_simde, kAvx512ScoreLanes,
                                                      run_score_bytes_avx512_simde, run_score_words_avx512_simde}),
                         [](const auto& info) { return info.param.name; });

// Global alignments with large gap costs reach scores the int32 keys cannot hold:
// such pairs go to the int64 keys, and both stay exact on the pairs they take.
TEST(LaneKey, LongestExactPairFollowsTheScoreRange) {
  // Every default scheme: int32 keys up to 511 residues together (e.g. global DNA:
  // 3·16 + (4 + 5)·511 + 4 = 4,651 ≤ 2^13 − 4·16).
  EXPECT_EQ(NarrowKeys::longest_pair(dna(), AlignmentMode::local), 511);
  EXPECT_EQ(NarrowKeys::longest_pair(dna(), AlignmentMode::global), 511);
  EXPECT_EQ(NarrowKeys::longest_pair(protein(), AlignmentMode::local), 511);
  EXPECT_EQ(NarrowKeys::longest_pair(protein(), AlignmentMode::global), 511);
  // Costly gaps: no pair fits the int32 keys at 1000/1000 (3000 + 1005·L + 4 ≤ 8192 − 4000
  // only for L = 1), pairs up to 33 at 200/200 (600 + 205·L + 4 ≤ 8192 − 800).
  const auto costly = make_scoring(Alphabet::dna, "ednafull", 1000, 1000);
  const auto dearer = make_scoring(Alphabet::dna, "ednafull", 200, 200);
  EXPECT_EQ(NarrowKeys::longest_pair(costly, AlignmentMode::global), 1);
  EXPECT_EQ(NarrowKeys::longest_pair(dearer, AlignmentMode::global), 33);
  EXPECT_EQ(WideKeys::longest_pair(costly, AlignmentMode::global), 65535);
  for (const auto& kernel : supported_kernels()) {
    EXPECT_GT(check_random_groups(kernel.run_narrow, kernel.lanes, dearer, AlignmentMode::global, 16, 20), 20)
        << kernel.name;
    EXPECT_GT(check_random_groups(kernel.run_wide, kernel.lanes, costly, AlignmentMode::global, 60, 3), 3)
        << kernel.name;
  }
}

TEST(LaneKernelSelection, RejectsUnknown) {
  EXPECT_THROW(select_lane_kernel("sse9"), std::invalid_argument);
}

// Each kernel is selected exactly when the CPU reports its instruction set, and
// refused with a message naming it otherwise; "auto" takes the widest one present.
TEST(LaneKernelSelection, FollowsTheCpu) {
  // (spidal's common tests check cpu_supports against /proc/cpuinfo.)
  const struct {
    std::string name;
    int lanes;
    bool present;
  } kernels[] = {{"avx512", kAvx512Lanes, spidal::cpu_supports(spidal::Isa::avx512)},
                 {"avx2", kAvx2Lanes, spidal::cpu_supports(spidal::Isa::avx2)},
                 {"generic", kGenericLanes, true}};
  std::vector<std::string> present;
  for (const auto& kernel : kernels) {
    if (kernel.present) {
      present.push_back(kernel.name);
      const LaneKernel selected = select_lane_kernel(kernel.name);
      EXPECT_EQ(selected.name, kernel.name);
      EXPECT_EQ(selected.lanes, kernel.lanes);
      continue;
    }
    try {
      select_lane_kernel(kernel.name);
      ADD_FAILURE() << kernel.name << " selected on a CPU without it";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), "this CPU does not support the " + kernel.name + " kernel");
    }
  }
  EXPECT_EQ(supported_lane_kernels(), present);
  EXPECT_EQ(select_lane_kernel("auto").name, present.front());
}

}  // namespace
}  // namespace swg
