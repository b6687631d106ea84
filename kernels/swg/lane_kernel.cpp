#include "lane_kernel.hpp"

#include <algorithm>
#include <cstdlib>

#include "spidal/cpu.hpp"

namespace swg {

int padding_score(const ScoringScheme& scheme) {
  return std::min(-1, *std::min_element(scheme.matrix.begin(), scheme.matrix.end()));
}

std::int64_t score_bound(const ScoringScheme& scheme, AlignmentMode mode, int pair_length) {
  std::int64_t largest = 0;
  for (const int score : scheme.matrix) largest = std::max<std::int64_t>(largest, std::abs(score));
  const std::int64_t length = pair_length;
  const std::int64_t padding = -padding_score(scheme);
  if (mode == AlignmentMode::local) {
    // H ≥ 0; E and F lie at most a gap opening below an H; a match into a padded column adds the padding score.
    return largest * length + scheme.gap_open + padding;
  }
  // Any cell's H is at least that of the path of two end gaps, E and F an opening
  // below it, and at most `largest` per column; plus the padding of a padded column.
  return 3 * static_cast<std::int64_t>(scheme.gap_open) + (scheme.gap_extend + largest) * length + padding;
}

template <class Keys>
void LaneProfile<Keys>::build(const ScoringScheme& scheme, std::span<const std::span<const Residue>> lane_sequences,
                              int lanes, std::span<const Residue> codes_in_use) {
  columns_ = 0;
  lanes_ = lanes;
  lane_lengths_.assign(lanes, 0);
  for (std::size_t lane = 0; lane < lane_sequences.size(); ++lane) {
    lane_lengths_[lane] = static_cast<int>(lane_sequences[lane].size());
    columns_ = std::max(columns_, lane_lengths_[lane]);
  }
  entries_.resize(static_cast<std::size_t>(scheme.alphabet_size) * columns_ * lanes);
  const Key open = Keys::gap(scheme.gap_open);
  const Key padding = Keys::column(padding_score(scheme), false) + open;
  for (const Residue code : codes_in_use) {
    Key* block = entries_.data() + static_cast<std::size_t>(code) * columns_ * lanes;
    for (int lane = 0; lane < lanes; ++lane) {
      const std::span<const Residue> b =
          lane < static_cast<int>(lane_sequences.size()) ? lane_sequences[lane] : std::span<const Residue>{};
      for (int j = 0; j < columns_; ++j) {
        block[j * lanes + lane] =
            j < static_cast<int>(b.size()) ? Keys::column(scheme.score(code, b[j]), code == b[j]) + open : padding;
      }
    }
  }
}

template class LaneProfile<NarrowKeys>;
template class LaneProfile<WideKeys>;

namespace {

constexpr spidal::Isa kImplemented[] = {spidal::Isa::avx512, spidal::Isa::avx2, spidal::Isa::generic};

LaneKernel kernel_for(spidal::Isa isa) {
  switch (isa) {
    case spidal::Isa::avx512:
      return {"avx512", kAvx512Lanes, run_narrow_avx512, run_wide_avx512,
              kAvx512ScoreLanes, run_score_bytes_avx512, run_score_words_avx512};
    case spidal::Isa::avx2:
      return {"avx2", kAvx2Lanes, run_narrow_avx2, run_wide_avx2,
              kAvx2ScoreLanes, run_score_bytes_avx2, run_score_words_avx2};
    case spidal::Isa::generic: break;
  }
  return {"generic", kGenericLanes, run_narrow_generic, run_wide_generic,
          kGenericScoreLanes, run_score_bytes_generic, run_score_words_generic};
}

}  // namespace

std::vector<std::string> supported_lane_kernels() { return spidal::supported_isa_names(kImplemented); }

LaneKernel select_lane_kernel(const std::string& requested) {
  return kernel_for(spidal::select_isa(requested, kImplemented));
}

}  // namespace swg
