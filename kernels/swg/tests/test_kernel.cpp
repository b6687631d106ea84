// The aligners: reference vs textbook Gotoh and traceback, SIMD lanes vs reference.
#include <gtest/gtest.h>


#include "gotoh_traceback.hpp"
#include "lane_kernel.hpp"
#include "random_sequences.hpp"

namespace swg {

// lane_kernel_avx512.cpp built on SIMDe's portable AVX-512 (tests/CMakeLists.txt).
void run_narrow_avx512_simde(const LaneGroupJob<NarrowKeys>& job);
void run_wide_avx512_simde(const LaneGroupJob<WideKeys>& job);

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
  EXPECT_EQ(stored_distance(none), 32767);
  // U is T.
  EXPECT_EQ(align_reference(dna_codes("ACGU"), dna_codes("ACGT"), scheme), (AlignmentStats{20, 4, 4}));
}

TEST(Reference, GapBeatsMismatch) {
  const auto scheme = make_scoring(Alphabet::dna, "ednafull", 5, 5);
  // Eight matches around a one-column gap for the T (40 − 5 = 35) beat seven
  // matches and a T/A mismatch (35 − 4 = 31).
  EXPECT_EQ(align_reference(dna_codes("AAAATAAAA"), dna_codes("AAAAAAAA"), scheme), (AlignmentStats{35, 8, 9}));
}

// Co-optimal alignments: the shortest, then the one with more identical columns.
TEST(Reference, TieBreakPrefersShorterThenMoreIdentical) {
  const auto scheme = dna();
  // AAAA/AAAA (+20) then CCCCC/GGGGG (−20) in front of the ten Ts (50) would add
  // four identical columns at no cost, and nine columns: not taken.
  EXPECT_EQ(align_reference(dna_codes("AAAACCCCCTTTTTTTTTT"), dna_codes("AAAAGGGGGTTTTTTTTTT"), scheme),
            (AlignmentStats{50, 10, 10}));
  // AA/WV (+1 −1) adds no score and no identical column, only length: not taken.
  EXPECT_EQ(align_reference(dna_codes("AATTTTTTTTTT"), dna_codes("WVTTTTTTTTTT"), scheme),
            (AlignmentStats{50, 10, 10}));
  // TVG/TVG and TVG/TNG both score 5 − 1 + 5 in three columns: the one with three
  // identical columns is taken.
  EXPECT_EQ(align_reference(dna_codes("TVGN"), dna_codes("TNGTVG"), scheme), (AlignmentStats{9, 3, 3}));
}

TEST(StoredDistance, TruncatesExactly) {
  EXPECT_EQ(stored_distance({10, 7, 7}), 0);
  EXPECT_EQ(stored_distance({84, 20, 21}), 32767 / 21);  // trunc(1/21 · 32767) = 1560
  EXPECT_EQ(stored_distance({5, 1, 3}), 21844);          // trunc(2/3 · 32767) = 21844.67 → 21844
}

template <class Keys>
void expect_round_trip() {
  typename Keys::Key value = Keys::empty;
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{0, 0, 0}));
  value += Keys::column(5, true) + Keys::column(-4, false) - Keys::gap(16) - Keys::gap(4);
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{5 - 4 - 16 - 4, 1, 4}));
  for (int k = 0; k < Keys::max_pair_length - 4; ++k) value += Keys::column(3, true);
  EXPECT_EQ(Keys::decode(value), (AlignmentStats{-19 + 3 * (Keys::max_pair_length - 4), Keys::max_pair_length - 3,
                                                 Keys::max_pair_length}));
}

TEST(LaneKey, RoundTripsPackedStatistics) {
  expect_round_trip<NarrowKeys>();
  expect_round_trip<WideKeys>();
}

struct SchemeCase {
  const char* name;
  ScoringScheme (*make)();
};

class ReferenceVersusIndependent : public ::testing::TestWithParam<SchemeCase> {};

// The rolling-row reference equals the textbook score, and its identical/length
// counts are those of a traced optimal alignment, recounted column by column.
TEST_P(ReferenceVersusIndependent, RandomPairsWithIndels) {
  const auto scheme = GetParam().make();
  SequenceFactory factory(scheme, 12345);
  for (int pair = 0; pair < 1500; ++pair) {
    const auto a = factory.random(factory.uniform(1, 70));
    const auto b = pair % 3 == 0 ? factory.random(factory.uniform(1, 70)) : factory.mutate(a, 0.15, 0.1, 90);
    const auto stats = align_reference(a, b, scheme);
    ASSERT_EQ(stats.score, testing::gotoh_score(a, b, scheme)) << "pair " << pair;
    const auto traced = testing::align_traced(a, b, scheme);
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
    // The definition does not depend on which sequence is the row.
    ASSERT_EQ(align_reference(b, a, scheme), stats) << "pair " << pair;
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, ReferenceVersusIndependent,
                         ::testing::Values(SchemeCase{"dna", dna}, SchemeCase{"protein", protein}),
                         [](const auto& info) { return std::string(info.param.name); });

struct KernelCase {
  LaneKernel kernel;
  const char* scheme_name;
  ScoringScheme (*make)();
  bool wide;  // WideKeys with sequences up to 400 long, else NarrowKeys
};

void PrintTo(const KernelCase& c, std::ostream* out) {
  *out << c.kernel.name << (c.wide ? " wide " : " narrow ") << c.scheme_name;
}

class LaneKernelVersusReference : public ::testing::TestWithParam<KernelCase> {};

// Every lane of every row equals the scalar reference, on groups mixing lengths
// (so lanes are padded) and rows related to one lane's sequence.
template <class Keys>
int check_random_groups(void (*run)(const LaneGroupJob<Keys>&), int lanes, const ScoringScheme& scheme,
                        int longest, int groups) {
  SequenceFactory factory(scheme, 777);
  std::vector<Residue> all_codes(scheme.alphabet_size);
  for (int c = 0; c < scheme.alphabet_size; ++c) all_codes[c] = static_cast<Residue>(c);
  int pairs = 0;
  for (int group = 0; group < groups; ++group) {
    const int lanes_used = factory.uniform(1, lanes);
    std::vector<std::vector<Residue>> columns;
    for (int lane = 0; lane < lanes_used; ++lane) columns.push_back(factory.random(factory.uniform(1, longest)));
    std::vector<std::span<const Residue>> column_spans(columns.begin(), columns.end());
    LaneProfile<Keys> profile;
    profile.build(scheme, column_spans, lanes, all_codes);

    std::vector<std::vector<Residue>> rows;
    const int limit = std::min(Keys::max_pair_length - profile.columns(), longest);
    for (int r = 0; r < 7; ++r) {  // odd, so the last sweep has padding rows
      rows.push_back(r % 2 ? factory.random(factory.uniform(1, limit))
                           : factory.mutate(columns[factory.uniform(0, lanes_used - 1)], 0.1, 0.08, limit));
    }
    std::vector<std::span<const Residue>> row_spans(rows.begin(), rows.end());
    std::vector<typename Keys::Key> best(rows.size() * lanes);
    AlignedVector<typename Keys::Key> workspace(2 * static_cast<std::size_t>(profile.columns()) * lanes);
    run({&profile, row_spans, Keys::gap(scheme.gap_open), Keys::gap(scheme.gap_extend), best.data(),
         workspace.data()});

    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (int lane = 0; lane < lanes_used; ++lane) {
        EXPECT_EQ(Keys::decode(best[r * lanes + lane]), align_reference(rows[r], columns[lane], scheme))
            << "group " << group << " row " << r << " lane " << lane;
        ++pairs;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  return pairs;
}

TEST_P(LaneKernelVersusReference, RandomGroups) {
  const auto scheme = GetParam().make();
  const LaneKernel& kernel = GetParam().kernel;
  const int pairs = GetParam().wide ? check_random_groups(kernel.run_wide, kernel.lanes, scheme, 400, 12)
                                    : check_random_groups(kernel.run_narrow, kernel.lanes, scheme, 127, 60);
  EXPECT_GT(pairs, GetParam().wide ? 250 : 1000);
}

std::vector<KernelCase> kernel_cases(const std::vector<LaneKernel>& kernels) {
  std::vector<KernelCase> cases;
  for (const auto& kernel : kernels) {
    for (const bool wide : {false, true}) {
      cases.push_back({kernel, "dna", dna, wide});
      cases.push_back({kernel, "protein", protein, wide});
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
  return info.param.kernel.name + "_" + (info.param.wide ? "wide_" : "narrow_") + info.param.scheme_name;
}

INSTANTIATE_TEST_SUITE_P(SupportedKernels, LaneKernelVersusReference,
                         ::testing::ValuesIn(kernel_cases(supported_kernels())), case_name);

// The AVX-512 code (16 lanes, int32 and int64 keys) on any CPU, through SIMDe; ctest
// runs it as its own entry, swg-avx512-simde.
INSTANTIATE_TEST_SUITE_P(Avx512OnSimde, LaneKernelVersusReference,
                         ::testing::ValuesIn(kernel_cases(
                             {{"avx512", kAvx512Lanes, run_narrow_avx512_simde, run_wide_avx512_simde}})),
                         case_name);

TEST(LaneKernelSelection, RejectsUnknown) {
  EXPECT_THROW(select_lane_kernel("sse9"), std::invalid_argument);
}

// Each kernel is selected exactly when the CPU reports its instruction set, and
// refused with a message naming it otherwise; "auto" takes the widest one present.
TEST(LaneKernelSelection, FollowsTheCpu) {
  __builtin_cpu_init();
  const struct {
    std::string name;
    int lanes;
    bool present;
  } kernels[] = {{"avx512", kAvx512Lanes, __builtin_cpu_supports("avx512f") != 0},
                 {"avx2", kAvx2Lanes, __builtin_cpu_supports("avx2") != 0},
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
