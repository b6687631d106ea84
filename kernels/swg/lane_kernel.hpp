// Inter-sequence SIMD alignment: one row sequence against a group of column
// sequences, one per vector lane, with the exact statistics of alignment.hpp.
//
// Each DP state is a single int32 key = score·65536 + identical·256 + (255 − length),
// so the lexicographic (score, identical, −length) optimum is a plain signed
// maximum and a column adds a constant. The packing is exact while length ≤ 255,
// i.e. for pairs with len(a) + len(b) ≤ kMaxPackedPairLength; longer pairs go to
// align_reference.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aligned_buffer.hpp"
#include "alignment.hpp"

namespace swg {

inline constexpr int kMaxPackedPairLength = 255;

namespace key {
inline constexpr std::int32_t kEmpty = 255;              // score 0, no columns
inline constexpr std::int32_t kImpossible = -(1 << 30);  // state unreachable
inline constexpr int kPaddingScore = -4096;              // profile entry past a lane's sequence end

inline constexpr std::int32_t column(int score, bool identical) { return score * 65536 + (identical ? 255 : -1); }
// Subtracted for a gap column of the given cost.
inline constexpr std::int32_t gap(int cost) { return cost * 65536 + 1; }
AlignmentStats decode(std::int32_t key);
}  // namespace key

// A lane group's score profile: key::column(score(c, lane's b[j]), c == b[j]) at
// [(c·columns + j)·lanes + lane] for every residue code c in use, plus one
// all-padding row.
class LaneProfile {
 public:
  // `lane_sequences` has at most `lanes` entries; missing lanes are padding.
  void build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences, int lanes,
             std::span<const Residue> codes_in_use);
  // The columns × lanes entries for residue code `code`.
  const std::int32_t* row(int code) const { return entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes_; }
  // A code whose row is all padding (scores that never help an alignment).
  int padding_code() const { return padding_code_; }
  int columns() const { return columns_; }

 private:
  AlignedVector<std::int32_t> entries_;
  int columns_ = 0;
  int lanes_ = 0;
  int padding_code_ = 0;
};

// Aligns `rows` (each with len + profile.columns() ≤ kMaxPackedPairLength) against one lane group.
struct LaneGroupJob {
  const LaneProfile* profile = nullptr;
  std::span<const std::span<const Residue>> rows;
  std::int32_t open_key = 0;    // key::gap(gap_open)
  std::int32_t extend_key = 0;  // key::gap(gap_extend)
  std::int32_t* best_keys = nullptr;  // out: rows.size() × lanes best keys
  std::int32_t* workspace = nullptr;  // 2 × columns × lanes int32, 64-byte aligned
};

struct LaneKernel {
  std::string name;  // "avx512", "avx2" or "generic"
  int lanes = 0;
  void (*run)(const LaneGroupJob& job) = nullptr;
};

// "auto" picks the widest instruction set this CPU supports; naming one that it
// does not support (or an unknown name) throws std::invalid_argument.
LaneKernel select_lane_kernel(const std::string& requested = "auto");
std::vector<std::string> supported_lane_kernels();

// Per-ISA entry points (each in its own translation unit, compiled for that ISA).
void run_lane_group_generic(const LaneGroupJob& job);
void run_lane_group_avx2(const LaneGroupJob& job);
void run_lane_group_avx512(const LaneGroupJob& job);
inline constexpr int kGenericLanes = 8;
inline constexpr int kAvx2Lanes = 8;
inline constexpr int kAvx512Lanes = 16;

}  // namespace swg
