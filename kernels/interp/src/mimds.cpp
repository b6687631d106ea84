#include "mimds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "spidal/matrix.hpp"

namespace interp {

void nearest_neighbours(const std::int16_t* row, std::int64_t n, int k, std::vector<Neighbour>& scratch,
                        std::vector<Neighbour>& out) {
  scratch.clear();
  for (std::int64_t j = 0; j < n; ++j) {
    if (row[j] >= 0) scratch.push_back({j, spidal::matrix_value(row[j])});
  }
  const auto closer = [](const Neighbour& a, const Neighbour& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.index < b.index);
  };
  const auto kept = std::min<std::size_t>(static_cast<std::size_t>(k), scratch.size());
  std::partial_sort(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(kept), scratch.end(), closer);
  out.assign(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(kept));
}

namespace {

double distance_to(const double* x, const double* p, int dim) {
  double sum = 0.0;
  for (int d = 0; d < dim; ++d) sum += (x[d] - p[d]) * (x[d] - p[d]);
  return std::sqrt(sum);
}

double stress_at(const double* x, const std::vector<double>& points, const std::vector<Neighbour>& neighbours, int dim) {
  double stress = 0.0;
  for (const Neighbour& nb : neighbours) {
    const double gap = nb.distance - distance_to(x, &points[nb.index * dim], dim);
    stress += gap * gap;
  }
  return stress;
}

}  // namespace

Placement place(const std::vector<double>& points, const std::vector<Neighbour>& neighbours,
                const PlaceOptions& options, double* out) {
  const int dim = options.dim;
  Placement result;
  std::fill(out, out + dim, 0.0);
  if (neighbours.empty()) return result;
  std::vector<double> centroid(dim, 0.0);
  for (const Neighbour& nb : neighbours) {
    for (int d = 0; d < dim; ++d) centroid[d] += points[nb.index * dim + d];
    result.sum_squares += nb.distance * nb.distance;
  }
  const double inverse_k = 1.0 / static_cast<double>(neighbours.size());
  for (double& c : centroid) c *= inverse_k;
  std::copy(centroid.begin(), centroid.end(), out);
  result.stress = stress_at(out, points, neighbours, dim);
  std::vector<double> next(dim);
  while (result.iterations < options.max_iterations && result.stress > 0.0) {
    std::copy(centroid.begin(), centroid.end(), next.begin());
    for (const Neighbour& nb : neighbours) {
      const double* p = &points[nb.index * dim];
      const double d = distance_to(out, p, dim);
      if (d == 0.0) continue;
      const double scale = inverse_k * nb.distance / d;
      for (int c = 0; c < dim; ++c) next[c] += scale * (out[c] - p[c]);
    }
    const double stress = stress_at(next.data(), points, neighbours, dim);
    ++result.iterations;
    const bool settled = result.stress - stress <= options.threshold * result.stress;
    // Majorization never raises the stress; a rise is rounding, so keep the better point.
    if (stress <= result.stress) {
      std::copy(next.begin(), next.end(), out);
      result.stress = stress;
    }
    if (settled) break;
  }
  return result;
}

int majority_label(const std::vector<Neighbour>& neighbours, const std::vector<int>& labels) {
  std::map<int, std::pair<int, std::size_t>> votes;  // label -> (count, rank of its nearest member)
  for (std::size_t rank = 0; rank < neighbours.size(); ++rank) {
    auto [entry, fresh] = votes.try_emplace(labels[neighbours[rank].index], 0, rank);
    ++entry->second.first;
  }
  int best = 0;
  std::pair<int, std::size_t> best_vote{-1, 0};
  for (const auto& [label, vote] : votes) {
    if (vote.first > best_vote.first || (vote.first == best_vote.first && vote.second < best_vote.second)) {
      best = label;
      best_vote = vote;
    }
  }
  return best;
}

double silhouette(const std::int16_t* row, std::int64_t n, int label, const std::vector<int>& labels, int clusters,
                  std::vector<double>& sums, std::vector<std::int64_t>& counts) {
  sums.assign(static_cast<std::size_t>(clusters) + 1, 0.0);
  counts.assign(static_cast<std::size_t>(clusters) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (row[i] < 0) continue;
    sums[labels[i]] += row[i];
    ++counts[labels[i]];
  }
  if (counts[label] == 0) return 0.0;
  const double a = sums[label] / static_cast<double>(counts[label]);
  double b = std::numeric_limits<double>::infinity();
  for (int other = 1; other <= clusters; ++other)
    if (other != label && counts[other] > 0) b = std::min(b, sums[other] / static_cast<double>(counts[other]));
  return std::isfinite(b) && std::max(a, b) > 0.0 ? (b - a) / std::max(a, b) : 0.0;
}

}  // namespace interp
