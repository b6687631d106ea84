#include "all_pairs.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace swg {

TilePlan TilePlan::symmetric(std::int64_t sequences, int block_size, int ranks, int rank,
                            std::int64_t memory_budget_bytes) {
  return TilePlan(sequences, sequences, true, block_size, ranks, rank, memory_budget_bytes);
}

TilePlan TilePlan::rectangular(std::int64_t rows, std::int64_t cols, int block_size, int ranks, int rank,
                               std::int64_t memory_budget_bytes) {
  return TilePlan(rows, cols, false, block_size, ranks, rank, memory_budget_bytes);
}

TilePlan::TilePlan(std::int64_t rows, std::int64_t cols, bool symmetric, int block_size, int ranks, int rank,
                   std::int64_t memory_budget_bytes)
    : symmetric_(symmetric), rows_{rows, block_size}, cols_{cols, block_size} {
  std::vector<Tile> mine;
  std::int64_t index = 0;
  for (std::int64_t i = 0; i < rows_.blocks(); ++i) {
    for (std::int64_t j = symmetric ? i : 0; j < cols_.blocks(); ++j, ++index) {
      if (index % ranks == rank) mine.push_back({i, j});
    }
  }
  const std::int64_t tiles = index;
  const std::int64_t most_per_rank = (tiles + ranks - 1) / ranks;
  // A tile takes block²·2 bytes, twice with its transpose. Several batches also
  // give regular progress lines.
  const std::int64_t tile_bytes = (symmetric ? 4 : 2) * std::int64_t{block_size} * block_size;
  const std::int64_t by_memory = std::max<std::int64_t>(1, memory_budget_bytes / tile_bytes);
  const std::int64_t for_progress = std::max<std::int64_t>(1, (most_per_rank + 9) / 10);
  const std::int64_t per_batch = std::min(by_memory, for_progress);
  const std::int64_t batch_count = std::max<std::int64_t>(1, (most_per_rank + per_batch - 1) / per_batch);
  batches_.resize(batch_count);
  for (std::size_t t = 0; t < mine.size(); ++t) batches_[t / per_batch].push_back(mine[t]);
}

std::pair<std::int64_t, std::int64_t> TilePlan::row_span(std::span<const Tile> batch) const {
  if (batch.empty()) return {0, 0};
  std::int64_t first = rows_.items, last = 0;
  for (const Tile& tile : batch) {
    first = std::min(first, rows_.begin(tile.row_block));
    last = std::max(last, rows_.end(tile.row_block));
  }
  return {first, last};
}

void mark_codes(std::span<const std::vector<Residue>> sequences, std::vector<bool>& used) {
  for (const auto& sequence : sequences) {
    for (const Residue r : sequence) used[r] = true;
  }
}

std::vector<Residue> marked_codes(const std::vector<bool>& used) {
  std::vector<Residue> codes;
  for (std::size_t code = 0; code < used.size(); ++code) {
    if (used[code]) codes.push_back(static_cast<Residue>(code));
  }
  return codes;
}

namespace {

std::vector<int> self_scores(std::span<const std::vector<Residue>> sequences, const ScoringScheme& scheme) {
  std::vector<int> scores(sequences.size());
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t k = 0; k < sequences.size(); ++k) scores[k] = self_score(sequences[k], scheme);
  return scores;
}

}  // namespace

TileAligner::TileAligner(const std::vector<std::vector<Residue>>& col_sequences, std::vector<Residue> codes_in_use,
                         const ScoringScheme& scheme, DistanceKind distance, const LaneKernel& kernel,
                         const TilePlan& plan)
    : col_sequences_(col_sequences),
      scheme_(scheme),
      distance_(distance),
      kernel_(kernel),
      plan_(plan),
      codes_in_use_(std::move(codes_in_use)) {
  if (distance == DistanceKind::score) self_scores_ = self_scores(col_sequences, scheme);
  const int group_width = distance == DistanceKind::score ? kernel.score_lanes : kernel.lanes;
  const BlockAxis& cols = plan.cols();
  lane_groups_.resize(cols.blocks());
  group_of_.resize(cols.items);
  for (std::int64_t block = 0; block < cols.blocks(); ++block) {
    std::vector<std::int64_t> order(cols.end(block) - cols.begin(block));
    std::iota(order.begin(), order.end(), cols.begin(block));
    std::stable_sort(order.begin(), order.end(),
                     [&](auto x, auto y) { return col_sequences[x].size() < col_sequences[y].size(); });
    for (std::size_t start = 0; start < order.size(); start += group_width) {
      const auto end = std::min(order.size(), start + group_width);
      for (auto k = start; k < end; ++k) group_of_[order[k]] = static_cast<std::int32_t>(lane_groups_[block].size());
      lane_groups_[block].emplace_back(order.begin() + start, order.begin() + end);
    }
  }
}

namespace {

// One thread's buffers for aligning rows against a lane group with one key width.
template <class Keys>
class KeyWidthBatch {
 public:
  KeyWidthBatch(const ScoringScheme& scheme, AlignmentMode mode) : longest_pair_(Keys::longest_pair(scheme, mode)) {}

  // Takes row `index` if its pairs with the group fit this key width.
  bool offer(std::int64_t index, std::span<const Residue> row, int group_columns) {
    if (static_cast<int>(row.size()) + group_columns > longest_pair_) return false;
    rows_.push_back(row);
    row_index_.push_back(index);
    return true;
  }

  // Aligns the rows taken so far against the lane group, calls store(row index,
  // lane, stats) for every real lane, and forgets the rows.
  template <class Store>
  void align(void (*kernel)(const LaneGroupJob<Keys>&), int lanes, const ScoringScheme& scheme, AlignmentMode mode,
             std::span<const std::span<const Residue>> lane_sequences, std::span<const Residue> codes_in_use,
             const Store& store) {
    if (rows_.empty()) return;
    profile_.build(scheme, lane_sequences, lanes, codes_in_use);
    workspace_.resize(2 * static_cast<std::size_t>(profile_.columns()) * lanes);
    result_keys_.resize(rows_.size() * lanes);
    kernel({&profile_, rows_, Keys::gap(scheme.gap_open), Keys::gap(scheme.gap_extend), mode, result_keys_.data(),
            workspace_.data()});
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      for (std::size_t lane = 0; lane < lane_sequences.size(); ++lane) {
        store(row_index_[r], lane, Keys::decode(result_keys_[r * lanes + lane]));
      }
    }
    rows_.clear();
    row_index_.clear();
  }

 private:
  int longest_pair_;
  LaneProfile<Keys> profile_;
  AlignedVector<typename Keys::Key> workspace_;
  std::vector<typename Keys::Key> result_keys_;
  std::vector<std::span<const Residue>> rows_;
  std::vector<std::int64_t> row_index_;
};

// One pass of the score-only kernel at one cell width over some rows.
template <class Cell>
struct ScorePass {
  ScoreProfile<Cell> profile;
  AlignedVector<Cell> workspace;
  std::vector<int> best;  // rows × lanes

  void run(void (*kernel)(const ScoreGroupJob<Cell>&), int lanes, const ScoringScheme& scheme,
           std::span<const std::span<const Residue>> lane_sequences, std::span<const Residue> codes_in_use,
           std::span<const std::span<const Residue>> rows) {
    profile.build(scheme, lane_sequences, lanes, codes_in_use);
    workspace.resize(2 * static_cast<std::size_t>(profile.columns()) * lanes);
    best.resize(rows.size() * lanes);
    kernel({&profile, rows, scheme.gap_open, scheme.gap_extend, best.data(), workspace.data()});
  }
  // Sets row r's best in `lane` to 0 (none for a negative lane).
  void clear_lane(std::size_t r, int lanes, int lane) {
    if (lane >= 0) best[r * lanes + lane] = 0;
  }
};

// One thread's buffers for the score distance. Rows go through 8-bit lanes first,
// and a pair whose byte score saturated is handed back (`defer`) to go again
// through 16-bit lanes, gathered with more of its row's saturated pairs
// (SaturatedPairs). Recomputing whole rows instead cost most of the words pass on
// 16S reads: 12 % of pairs saturate bytes, but 73 % of rows do in groups of 32. While
// most pairs saturated the bytes lately (long related sequences), whole rows go to
// the words directly, as they do for schemes whose scores or gap costs do not fit
// signed bytes. A lane that saturates the words (a score over 32,767: long
// sequences similar over thousands of residues) takes the exact int64 keys, whose
// key holds the local score, and pairs too long for those the scalar reference.
class ScoreBatch {
 public:
  explicit ScoreBatch(const ScoringScheme& scheme)
      : bytes_fit_(scores_fit_bytes(scheme)), wide_(scheme, AlignmentMode::local) {}

  // `own_lane`: the lane holding the row's own sequence (a diagonal tile's pair (i, i),
  // stored as 0), whose saturation must not send the pair wider; −1 for none.
  void offer(std::int64_t index, std::span<const Residue> row, int own_lane) {
    rows_.push_back(row);
    row_index_.push_back(index);
    own_lane_.push_back(own_lane);
  }

  // Aligns the rows offered so far against the lane group and forgets them: calls
  // store(row index, lane, score) for every real lane, or defer(row index, lane)
  // for the pairs whose bytes saturated.
  template <class Store, class Defer>
  void align(const LaneKernel& kernel, const ScoringScheme& scheme,
             std::span<const std::span<const Residue>> lane_sequences, std::span<const Residue> codes_in_use,
             const Store& store, const Defer& defer) {
    if (rows_.empty()) return;
    const std::size_t pairs = rows_.size() * lane_sequences.size();
    std::size_t saturated = 0;  // pairs that reached the bytes' ceiling
    if (bytes_fit_ && bytes_saturated_share_ < kBytesFirstBelow) {
      const int lanes = kernel.score_lanes;
      bytes_.run(kernel.run_score_bytes, lanes, scheme, lane_sequences, codes_in_use, rows_);
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        bytes_.clear_lane(r, lanes, own_lane_[r]);
        for (std::size_t lane = 0; lane < lane_sequences.size(); ++lane) {
          const int score = bytes_.best[r * lanes + lane];
          if (score < bytes_.profile.ceiling()) {
            store(row_index_[r], lane, score);
          } else {
            defer(row_index_[r], lane);
            ++saturated;
          }
        }
      }
      forget_rows();
    } else {
      saturated = align_words(kernel, scheme, lane_sequences, codes_in_use, store);
    }
    bytes_saturated_share_ = (bytes_saturated_share_ + static_cast<double>(saturated) / pairs) / 2;
  }

  // Aligns the rows offered so far against the lane group in 16-bit lanes (wider
  // where those saturate), calls store(row index, lane, score) for every real lane
  // and forgets the rows. Returns how many pairs would have saturated bytes.
  template <class Store>
  std::size_t align_words(const LaneKernel& kernel, const ScoringScheme& scheme,
                          std::span<const std::span<const Residue>> lane_sequences,
                          std::span<const Residue> codes_in_use, const Store& store) {
    if (rows_.empty()) return 0;
    const int lanes = kernel.score_lanes;
    const int byte_ceiling = score_ceiling<ScoreBytes>();
    std::size_t saturated_bytes = 0;
    words_.run(kernel.run_score_words, lanes, scheme, lane_sequences, codes_in_use, rows_);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      words_.clear_lane(r, lanes, own_lane_[r]);
      for (std::size_t lane = 0; lane < lane_sequences.size(); ++lane) {
        const int score = words_.best[r * lanes + lane];
        saturated_bytes += score >= byte_ceiling;
        if (score < words_.profile.ceiling()) {
          store(row_index_[r], lane, score);
        } else {
          beyond_words_.push_back({lane, r});
        }
      }
    }
    if (!beyond_words_.empty()) align_beyond_words(kernel, scheme, lane_sequences, codes_in_use, store);
    forget_rows();
    return saturated_bytes;
  }

 private:
  // A byte pass costs about half a words pass, and a deferred pair about 1.3 words
  // lanes (its gathered profile and padding), so bytes first pay while under about a
  // third of the pairs saturate them.
  static constexpr double kBytesFirstBelow = 0.3;

  void forget_rows() {
    rows_.clear();
    row_index_.clear();
    own_lane_.clear();
  }

  // The lanes that saturated the words, through the int64-key kernel: the lane group
  // in slices of that kernel's lanes, each with the rows that saturated in it. Every
  // lane of a slice is stored again, with the same exact score.
  template <class Store>
  void align_beyond_words(const LaneKernel& kernel, const ScoringScheme& scheme,
                          std::span<const std::span<const Residue>> lane_sequences,
                          std::span<const Residue> codes_in_use, const Store& store) {
    const std::size_t slice_lanes = static_cast<std::size_t>(kernel.lanes);
    const auto slice_of = [&](const LaneOfRow& x) { return x.lane / slice_lanes; };
    std::sort(beyond_words_.begin(), beyond_words_.end(), [&](const LaneOfRow& x, const LaneOfRow& y) {
      return std::tuple(slice_of(x), x.row, x.lane) < std::tuple(slice_of(y), y.row, y.lane);
    });
    for (auto it = beyond_words_.begin(); it != beyond_words_.end();) {
      const std::size_t slice = slice_of(*it), first_lane = slice * slice_lanes;
      const auto lanes = lane_sequences.subspan(first_lane, std::min(slice_lanes, lane_sequences.size() - first_lane));
      int columns = 0;
      for (const auto& sequence : lanes) columns = std::max(columns, static_cast<int>(sequence.size()));
      while (it != beyond_words_.end() && slice_of(*it) == slice) {
        const std::size_t r = it->row;
        const bool taken = wide_.offer(row_index_[r], rows_[r], columns);
        for (; it != beyond_words_.end() && slice_of(*it) == slice && it->row == r; ++it) {
          if (!taken) store(row_index_[r], it->lane, align_reference(rows_[r], lane_sequences[it->lane], scheme).score);
        }
      }
      wide_.align(kernel.run_wide, kernel.lanes, scheme, AlignmentMode::local, lanes, codes_in_use,
                  [&](std::int64_t i, std::size_t lane, const AlignmentStats& stats) {
                    store(i, first_lane + lane, stats.score);
                  });
    }
    beyond_words_.clear();
  }

  struct LaneOfRow {
    std::size_t lane, row;  // a lane of the group, and an index into rows_
  };

  const bool bytes_fit_;
  ScorePass<ScoreBytes> bytes_;
  ScorePass<ScoreWords> words_;
  KeyWidthBatch<WideKeys> wide_;
  std::vector<LaneOfRow> beyond_words_;
  std::vector<std::span<const Residue>> rows_;
  std::vector<std::int64_t> row_index_;
  std::vector<int> own_lane_;
  double bytes_saturated_share_ = 0;  // of the pairs, lately (halved with each group)
};

// One thread's pairs whose bytes saturated, waiting to be aligned in 16-bit lanes as
// groups of one row against up to a lane group's width of its saturated columns, so
// that the words pass fills its lanes. Rows wait for a full group until the pairs
// waiting pass a bound (memory stays flat however many saturate) or the batch ends.
class SaturatedPairs {
 public:
  struct Pair {
    std::int64_t row, column;
    std::uint32_t tile;    // index into the batch's tiles
    std::int32_t length;   // the column's, to group columns of like length
  };

  void add(const Pair& pair) { pairs_.push_back(pair); }

  // align_row(pairs of one row) for every full group, and for the rest too when
  // `all` or when too many are waiting.
  template <class AlignRow>
  void flush(std::size_t lanes, bool all, const AlignRow& align_row) {
    if (!all && pairs_.size() < kWaitingBound) return;
    std::sort(pairs_.begin(), pairs_.end(),
              [](const Pair& x, const Pair& y) { return std::tie(x.row, x.length) < std::tie(y.row, y.length); });
    waiting_.clear();
    for (auto first = pairs_.begin(); first != pairs_.end();) {
      const auto last = std::find_if(first, pairs_.end(), [&](const Pair& p) { return p.row != first->row; });
      for (; static_cast<std::size_t>(last - first) >= lanes || (all && first != last);) {
        const auto take = std::min<std::size_t>(lanes, last - first);
        align_row(std::span<const Pair>(&*first, take));
        first += take;
      }
      waiting_.insert(waiting_.end(), first, last);
      first = last;
    }
    pairs_.swap(waiting_);
    if (!all && pairs_.size() >= kWaitingBound / 2) flush(lanes, true, align_row);
  }

 private:
  static constexpr std::size_t kWaitingBound = std::size_t{1} << 16;  // 1.5 MB
  std::vector<Pair> pairs_, waiting_;
};

// Stores the distance of pair (i, j) in its tile, and where the symmetric matrix
// mirrors it: a diagonal tile holds both (i, j) and (j, i), others a transpose.
void store_distance(TileDistances& out, const TilePlan& plan, std::int64_t i, std::int64_t j, std::int16_t value) {
  const std::int64_t row0 = plan.rows().begin(out.tile.row_block), rows = plan.rows().end(out.tile.row_block) - row0;
  const std::int64_t col0 = plan.cols().begin(out.tile.col_block), cols = plan.cols().end(out.tile.col_block) - col0;
  if (plan.is_symmetric() && i == j) value = 0;
  out.values[(i - row0) * cols + (j - col0)] = value;
  if (plan.is_symmetric() && out.tile.row_block == out.tile.col_block) out.values[(j - col0) * cols + (i - row0)] = value;
  if (!out.transposed.empty()) out.transposed[(j - col0) * rows + (i - row0)] = value;
}

}  // namespace

void TileAligner::compute(std::span<const Tile> tiles, const RowWindow& row_sequences,
                          std::vector<TileDistances>& results) const {
  results.resize(tiles.size());
  struct WorkItem {
    std::size_t tile;
    std::size_t group;
  };
  std::vector<WorkItem> items;
  const AlignmentMode mode = alignment_mode(distance_);
  const bool by_score = distance_ == DistanceKind::score;
  // The rows' self scores: the columns' own for the symmetric matrix.
  const std::vector<int> row_self_scores =
      by_score && !plan_.is_symmetric() ? self_scores(row_sequences.sequences, scheme_) : std::vector<int>{};
  const std::vector<int>& row_self = plan_.is_symmetric() ? self_scores_ : row_self_scores;
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    const Tile& tile = tiles[t];
    const auto rows = plan_.rows().end(tile.row_block) - plan_.rows().begin(tile.row_block);
    const auto cols = plan_.cols().end(tile.col_block) - plan_.cols().begin(tile.col_block);
    results[t].tile = tile;
    results[t].values.assign(rows * cols, 0);
    results[t].transposed.assign(plan_.is_symmetric() && tile.row_block != tile.col_block ? rows * cols : 0, 0);
    for (std::size_t g = 0; g < lane_groups_[tile.col_block].size(); ++g) items.push_back({t, g});
  }

#pragma omp parallel
  {
    KeyWidthBatch<NarrowKeys> narrow(scheme_, mode);
    KeyWidthBatch<WideKeys> wide(scheme_, mode);
    ScoreBatch scores(scheme_);
    SaturatedPairs saturated;
    std::vector<std::span<const Residue>> lane_sequences;
    const auto score_distance = [&](std::int64_t i, std::int64_t j, int score) {
      return stored_score_distance(score, row_self[i - row_sequences.first], self_scores_[j]);
    };
    std::vector<bool> row_marks(scheme_.alphabet_size);
    const auto align_saturated = [&](std::span<const SaturatedPairs::Pair> pairs) {
      lane_sequences.clear();
      for (const auto& pair : pairs) lane_sequences.emplace_back(col_sequences_[pair.column]);
      const auto& row = row_sequences[pairs[0].row];
      // The profile serves this row alone: only its codes (4 of the 5 in 16S reads).
      std::fill(row_marks.begin(), row_marks.end(), false);
      mark_codes(std::span(&row, 1), row_marks);
      scores.offer(pairs[0].row, row, -1);
      scores.align_words(kernel_, scheme_, lane_sequences, marked_codes(row_marks), [&](std::int64_t i, std::size_t lane, int score) {
        const auto& pair = pairs[lane];
        store_distance(results[pair.tile], plan_, i, pair.column, score_distance(i, pair.column, score));
      });
    };

#pragma omp for schedule(dynamic, 1)
    for (std::size_t w = 0; w < items.size(); ++w) {
      const std::size_t t = items[w].tile;
      const Tile& tile = tiles[t];
      TileDistances& out = results[t];
      const auto& group = lane_groups_[tile.col_block][items[w].group];
      const std::int64_t row0 = plan_.rows().begin(tile.row_block), row_end = plan_.rows().end(tile.row_block);
      // A diagonal tile holds both (i, j) and (j, i): pair them once, from the row
      // whose own lane group comes first (pairs within one group go twice), and store
      // both. The distance is the same either way round (README, tie-break).
      const bool diagonal = plan_.is_symmetric() && tile.row_block == tile.col_block;
      const auto store = [&](std::int64_t i, std::size_t lane, const AlignmentStats& stats) {
        store_distance(out, plan_, i, group[lane],
                       stored_distance(stats, row_sequences[i].size(), col_sequences_[group[lane]].size(), distance_));
      };
      const auto store_score = [&](std::int64_t i, std::size_t lane, int score) {
        store_distance(out, plan_, i, group[lane], score_distance(i, group[lane], score));
      };
      const auto defer_score = [&](std::int64_t i, std::size_t lane) {
        const std::int64_t j = group[lane];
        saturated.add({i, j, static_cast<std::uint32_t>(t), static_cast<std::int32_t>(col_sequences_[j].size())});
      };

      lane_sequences.clear();
      int group_columns = 0;
      for (const auto j : group) {
        lane_sequences.emplace_back(col_sequences_[j]);
        group_columns = std::max(group_columns, static_cast<int>(col_sequences_[j].size()));
      }
      // Each row goes to the narrowest key width its pairs fit; beyond the widest,
      // the scalar reference aligns it lane by lane.
      for (std::int64_t i = row0; i < row_end; ++i) {
        if (diagonal && group_of_[i] > static_cast<std::int32_t>(items[w].group)) continue;
        const auto& row = row_sequences[i];
        if (by_score) {
          const bool own_group = diagonal && group_of_[i] == static_cast<std::int32_t>(items[w].group);
          scores.offer(i, row, own_group ? static_cast<int>(std::find(group.begin(), group.end(), i) - group.begin()) : -1);
          continue;
        }
        if (narrow.offer(i, row, group_columns) || wide.offer(i, row, group_columns)) continue;
        for (std::size_t lane = 0; lane < group.size(); ++lane) {
          store(i, lane, align_reference(row, col_sequences_[group[lane]], scheme_, mode));
        }
      }
      scores.align(kernel_, scheme_, lane_sequences, codes_in_use_, store_score, defer_score);
      narrow.align(kernel_.run_narrow, kernel_.lanes, scheme_, mode, lane_sequences, codes_in_use_, store);
      wide.align(kernel_.run_wide, kernel_.lanes, scheme_, mode, lane_sequences, codes_in_use_, store);
      saturated.flush(kernel_.score_lanes, false, align_saturated);
    }
    saturated.flush(kernel_.score_lanes, true, align_saturated);
  }
}

namespace {

template <class Sequences>
std::int64_t residues_in(const Sequences& sequences, const BlockAxis& axis, std::int64_t block) {
  std::int64_t total = 0;
  for (auto i = axis.begin(block); i < axis.end(block); ++i) total += static_cast<std::int64_t>(sequences[i].size());
  return total;
}

}  // namespace

std::int64_t TileAligner::cells(std::span<const Tile> tiles, const RowWindow& row_sequences) const {
  std::int64_t total = 0;
  for (const Tile& tile : tiles) {
    const std::int64_t row_residues = residues_in(row_sequences, plan_.rows(), tile.row_block);
    const std::int64_t col_residues = residues_in(col_sequences_, plan_.cols(), tile.col_block);
    if (!plan_.is_symmetric() || tile.row_block != tile.col_block) {
      total += row_residues * col_residues;
    } else {  // distinct unordered pairs only: (Σ² − Σ squares) / 2
      std::int64_t squares = 0;
      for (auto i = plan_.rows().begin(tile.row_block); i < plan_.rows().end(tile.row_block); ++i) {
        squares += static_cast<std::int64_t>(row_sequences[i].size() * row_sequences[i].size());
      }
      total += (row_residues * row_residues - squares) / 2;
    }
  }
  return total;
}

std::vector<spidal::MatrixBlock> matrix_blocks(const std::vector<TileDistances>& tiles, const TilePlan& plan) {
  std::vector<spidal::MatrixBlock> blocks;
  for (const auto& t : tiles) {
    const auto row0 = plan.rows().begin(t.tile.row_block), rows = plan.rows().end(t.tile.row_block) - row0;
    const auto col0 = plan.cols().begin(t.tile.col_block), cols = plan.cols().end(t.tile.col_block) - col0;
    blocks.push_back({row0, col0, rows, cols, t.values.data()});
    if (!t.transposed.empty()) blocks.push_back({col0, row0, cols, rows, t.transposed.data()});
  }
  return blocks;
}

}  // namespace swg
