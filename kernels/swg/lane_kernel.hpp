// Inter-sequence SIMD alignment: one row sequence against a group of column
// sequences, one per vector lane, with the exact statistics of alignment.hpp, in
// either alignment mode.
//
// Each DP state is one integer key = score·2^(l+i) + length·2^i + identical, so the
// lexicographic (score, length, identical) optimum is a plain signed maximum and a
// column adds a constant. The packing is exact while the length fits in l bits,
// i.e. for pairs with len(a) + len(b) ≤ 2^l − 1 (identical ≤ the shorter length
// then fits i = l − 1 bits), and every score the DP reaches stays within
// Keys::score_limit (longest_pair() gives the limit):
//   NarrowKeys: int32, l = 9, i = 8  — pairs up to 511 residues together (reads to ~255);
//   WideKeys:   int64, l = i = 16    — pairs up to 65,535 residues together.
// Longer pairs go to align_reference.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aligned_buffer.hpp"
#include "alignment.hpp"
#include "score_kernel.hpp"

namespace swg {

// The largest |score| a DP state (H, E, F, or a match into a padded column before
// the max) reaches for pairs of `pair_length` residues together.
std::int64_t score_bound(const ScoringScheme& scheme, AlignmentMode mode, int pair_length);

// The profile entry past a lane's sequence end: the matrix's lowest score (at most
// −1). Cells past a lane's end only follow real ones (to the right), so they never
// feed a real cell, and each is below a real cell's score (a padded column or a gap
// into it loses at least 1), so never a local best either.
int padding_score(const ScoringScheme& scheme);

template <class KeyType, int kLengthBits, int kIdenticalBits>
struct PackedKeys {
  static_assert(kIdenticalBits >= kLengthBits - 1, "identical ≤ the shorter length must fit");
  using Key = KeyType;
  static constexpr int count_bits = kLengthBits + kIdenticalBits;
  static constexpr int max_pair_length = (1 << kLengthBits) - 1;
  static constexpr Key empty = 0;  // score 0, no columns
  // Score of an unreachable state: far below any real one (score_limit), with room
  // to subtract gap costs from it without overflow.
  static constexpr Key impossible = -(Key{1} << (8 * sizeof(Key) - 2));
  // The largest |score| a state may reach: real keys then stay above `impossible` with
  // room for a few of the scheme's gap costs below them.
  static std::int64_t score_limit(const ScoringScheme& scheme) {
    return (std::int64_t{1} << (8 * sizeof(Key) - count_bits - 2)) - 4 * std::max(scheme.gap_open, scheme.gap_extend);
  }

  static constexpr Key column(int score, bool identical) {
    return (Key{score} << count_bits) + (Key{1} << kIdenticalBits) + (identical ? 1 : 0);
  }
  // Subtracted for a gap column of the given cost.
  static constexpr Key gap(int cost) { return (Key{cost} << count_bits) - (Key{1} << kIdenticalBits); }
  static AlignmentStats decode(Key key) {
    const Key packed = key & ((Key{1} << count_bits) - 1);
    return {static_cast<int>(key >> count_bits), static_cast<int>(packed & ((Key{1} << kIdenticalBits) - 1)),
            static_cast<int>(packed >> kIdenticalBits)};
  }
  // The most residues a pair may have together for these keys to be exact.
  static int longest_pair(const ScoringScheme& scheme, AlignmentMode mode) {
    const std::int64_t limit = score_limit(scheme);
    int low = 0, high = max_pair_length;  // score_bound grows with the length
    while (low < high) {
      const int middle = (low + high + 1) / 2;
      if (score_bound(scheme, mode, middle) <= limit) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return low;
  }
};

using NarrowKeys = PackedKeys<std::int32_t, 9, 8>;
using WideKeys = PackedKeys<std::int64_t, 16, 16>;

// A lane group's score profile: Keys::column(score(c, lane's b[j]), c == b[j]) +
// Keys::gap(gap_open) at [(c·columns + j)·lanes + lane] for every residue code c in
// use; columns past a lane's sequence hold a padding score that never helps an
// alignment. (The kernel keeps H − open in its buffers, which its gap recurrences
// need; the added opening turns a diagonal H − open back into H + column.)
template <class Keys>
class LaneProfile {
 public:
  using Key = typename Keys::Key;
  // `lane_sequences` has at most `lanes` entries; missing lanes are padding.
  void build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences, int lanes,
             std::span<const Residue> codes_in_use);
  // The columns × lanes entries for residue code `code`.
  const Key* row(int code) const { return entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes_; }
  int columns() const { return columns_; }
  int lane_length(int lane) const { return lane_lengths_[lane]; }  // 0 for a padding lane

 private:
  AlignedVector<Key> entries_;
  std::vector<int> lane_lengths_;
  int columns_ = 0;
  int lanes_ = 0;
};

// Aligns `rows` (each with len + profile.columns() ≤ Keys::longest_pair) against one lane group.
template <class Keys>
struct LaneGroupJob {
  using Key = typename Keys::Key;
  const LaneProfile<Keys>* profile = nullptr;
  std::span<const std::span<const Residue>> rows;
  Key open_key = 0;              // Keys::gap(gap_open)
  Key extend_key = 0;            // Keys::gap(gap_extend)
  AlignmentMode mode = AlignmentMode::local;
  Key* result_keys = nullptr;    // out: rows.size() × lanes keys of the optimal alignments
  Key* workspace = nullptr;      // 2 × columns × lanes keys, vector-aligned
};

// One instruction set's kernels: the exact keys in `lanes` lanes at both widths, and
// the score-only cells (score_kernel.hpp) in `score_lanes` lanes at both widths.
struct LaneKernel {
  std::string name;  // "avx512", "avx2" or "generic"
  int lanes = 0;
  void (*run_narrow)(const LaneGroupJob<NarrowKeys>& job) = nullptr;
  void (*run_wide)(const LaneGroupJob<WideKeys>& job) = nullptr;
  int score_lanes = 0;
  void (*run_score_bytes)(const ScoreGroupJob<ScoreBytes>& job) = nullptr;
  void (*run_score_words)(const ScoreGroupJob<ScoreWords>& job) = nullptr;
};

// "auto" picks the widest instruction set this CPU supports; naming one that it
// does not support (or an unknown name) throws std::invalid_argument
// (spidal::select_isa, the dispatch shared by all programs).
LaneKernel select_lane_kernel(const std::string& requested = "auto");
std::vector<std::string> supported_lane_kernels();

// Per-ISA entry points (each ISA in its own translation unit, compiled for it).
void run_narrow_generic(const LaneGroupJob<NarrowKeys>& job);
void run_wide_generic(const LaneGroupJob<WideKeys>& job);
void run_narrow_avx2(const LaneGroupJob<NarrowKeys>& job);
void run_wide_avx2(const LaneGroupJob<WideKeys>& job);
void run_narrow_avx512(const LaneGroupJob<NarrowKeys>& job);
void run_wide_avx512(const LaneGroupJob<WideKeys>& job);
inline constexpr int kGenericLanes = 8;
inline constexpr int kAvx2Lanes = 8;
inline constexpr int kAvx512Lanes = 16;

}  // namespace swg
