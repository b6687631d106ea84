// MI-MDS placement against planted truth and against a scalar reference that minimises
// the same stress by another method (gradient descent with backtracking).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mimds.hpp"

namespace {

using interp::Neighbour;

constexpr int kDim = 3;

std::vector<double> uniform_points(std::mt19937_64& rng, int count, double side) {
  std::uniform_real_distribution<double> coordinate(0.0, side);
  std::vector<double> points(static_cast<std::size_t>(count) * kDim);
  for (double& value : points) value = coordinate(rng);
  return points;
}

double distance(const double* a, const double* b) {
  double sum = 0.0;
  for (int d = 0; d < kDim; ++d) sum += (a[d] - b[d]) * (a[d] - b[d]);
  return std::sqrt(sum);
}

// The k in-sample points nearest to `x`, with exact (or noisy) distances.
std::vector<Neighbour> neighbours_of(const double* x, const std::vector<double>& points, int k, double noise,
                                     std::mt19937_64& rng) {
  const std::int64_t n = static_cast<std::int64_t>(points.size()) / kDim;
  std::vector<Neighbour> all;
  for (std::int64_t j = 0; j < n; ++j) all.push_back({j, distance(x, &points[j * kDim])});
  std::partial_sort(all.begin(), all.begin() + k, all.end(),
                    [](const Neighbour& a, const Neighbour& b) { return a.distance < b.distance; });
  all.resize(k);
  std::normal_distribution<double> jitter(0.0, noise);
  if (noise > 0) for (Neighbour& nb : all) nb.distance = std::max(0.0, nb.distance * (1.0 + jitter(rng)));
  return all;
}

double stress(const double* x, const std::vector<double>& points, const std::vector<Neighbour>& neighbours) {
  double sum = 0.0;
  for (const Neighbour& nb : neighbours) {
    const double gap = nb.distance - distance(x, &points[nb.index * kDim]);
    sum += gap * gap;
  }
  return sum;
}

// Scalar reference: gradient descent on the same stress from the same start (the
// neighbours' centroid), halving the step until the stress falls.
std::vector<double> reference_place(const std::vector<double>& points, const std::vector<Neighbour>& neighbours) {
  std::vector<double> x(kDim, 0.0);
  for (const Neighbour& nb : neighbours) {
    for (int d = 0; d < kDim; ++d) x[d] += points[nb.index * kDim + d] / neighbours.size();
  }
  double step = 0.1;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    double gradient[kDim] = {0, 0, 0};
    for (const Neighbour& nb : neighbours) {
      const double* p = &points[nb.index * kDim];
      const double d = distance(x.data(), p);
      if (d == 0.0) continue;
      for (int c = 0; c < kDim; ++c) gradient[c] += 2.0 * (d - nb.distance) * (x[c] - p[c]) / d;
    }
    const double current = stress(x.data(), points, neighbours);
    double trial[kDim];
    for (step *= 2.0; step > 1e-18; step /= 2.0) {
      for (int c = 0; c < kDim; ++c) trial[c] = x[c] - step * gradient[c];
      if (stress(trial, points, neighbours) < current) break;
    }
    if (step <= 1e-18) break;
    std::copy(trial, trial + kDim, x.begin());
  }
  return x;
}

TEST(NearestNeighbours, KeepsTheKNearestSkippingMissingTiesToTheLowerIndex) {
  const std::vector<std::int16_t> row = {500, -1, 100, 300, 100, -5, 50, 900};
  std::vector<Neighbour> scratch, out;
  interp::nearest_neighbours(row.data(), static_cast<std::int64_t>(row.size()), 4, scratch, out);
  ASSERT_EQ(out.size(), 4u);
  const std::int64_t expected[] = {6, 2, 4, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i].index, expected[i]);
  EXPECT_DOUBLE_EQ(out[0].distance, 50 / 32767.0);
  interp::nearest_neighbours(row.data(), static_cast<std::int64_t>(row.size()), 50, scratch, out);
  EXPECT_EQ(out.size(), 6u);  // the two missing ones are never neighbours
}

TEST(Place, RecoversPlantedPositionsFromExactDistances) {
  std::mt19937_64 rng(7);
  const std::vector<double> in_sample = uniform_points(rng, 2000, 1.0);
  const std::vector<double> truth = uniform_points(rng, 500, 1.0);
  int recovered = 0;
  double worst = 0.0;
  for (int i = 0; i < 500; ++i) {
    const auto neighbours = neighbours_of(&truth[i * kDim], in_sample, 10, 0.0, rng);
    double x[kDim];
    interp::place(in_sample, neighbours, {kDim, 1000, 1e-15}, x);
    const double error = distance(x, &truth[i * kDim]);
    worst = std::max(worst, error);
    if (error < 1e-6) ++recovered;
  }
  // From the centroid the majorization finds the zero-stress point of every one.
  EXPECT_EQ(recovered, 500) << "worst error " << worst;
}

TEST(Place, MatchesTheGradientDescentReferenceOnNoisyDistances) {
  std::mt19937_64 rng(11);
  const std::vector<double> in_sample = uniform_points(rng, 1000, 1.0);
  const std::vector<double> targets = uniform_points(rng, 200, 1.0);
  for (int i = 0; i < 200; ++i) {
    const auto neighbours = neighbours_of(&targets[i * kDim], in_sample, 10, 0.1, rng);
    double x[kDim];
    const interp::Placement placed = interp::place(in_sample, neighbours, {kDim, 10000, 1e-14}, x);
    const std::vector<double> reference = reference_place(in_sample, neighbours);
    EXPECT_NEAR(placed.stress, stress(x, in_sample, neighbours), 1e-15);
    EXPECT_LE(placed.stress, stress(reference.data(), in_sample, neighbours) * (1 + 1e-6) + 1e-15) << "point " << i;
    EXPECT_LT(distance(x, reference.data()), 1e-4) << "point " << i;
  }
}

TEST(Place, StressNeverRisesFromOneUpdateToTheNext) {
  std::mt19937_64 rng(3);
  const std::vector<double> in_sample = uniform_points(rng, 500, 1.0);
  const std::vector<double> targets = uniform_points(rng, 50, 1.0);
  for (int i = 0; i < 50; ++i) {
    const auto neighbours = neighbours_of(&targets[i * kDim], in_sample, 10, 0.2, rng);
    double previous = std::numeric_limits<double>::infinity();
    for (int updates = 0; updates <= 30; ++updates) {
      double x[kDim];
      const interp::Placement placed = interp::place(in_sample, neighbours, {kDim, updates, 0.0}, x);
      EXPECT_LE(placed.stress, previous);
      previous = placed.stress;
    }
  }
}

TEST(Place, IgnoresANeighbourItStartsOn) {
  // One neighbour: the centroid is that point (distance 0), which must not divide by zero.
  const std::vector<double> points = {0.5, 0.5, 0.5};
  double x[kDim];
  const interp::Placement placed = interp::place(points, {{0, 0.25}}, {kDim, 100, 1e-9}, x);
  for (double value : x) EXPECT_TRUE(std::isfinite(value));
  EXPECT_DOUBLE_EQ(placed.stress, 0.25 * 0.25);
}

TEST(MajorityLabel, MostNeighboursWinATieGoesToTheNearerLabel) {
  const std::vector<int> labels = {1, 2, 2, 3, 3, 1};
  EXPECT_EQ(interp::majority_label({{0, .1}, {1, .2}, {2, .3}}, labels), 2);
  EXPECT_EQ(interp::majority_label({{3, .1}, {1, .2}, {2, .3}, {4, .4}}, labels), 3);  // 2 vs 2: 3 is nearer
  EXPECT_EQ(interp::majority_label({{1, .1}, {3, .2}, {2, .3}, {4, .4}}, labels), 2);
}

// Against the definition, by hand: distances 10 and 20 to cluster 1 (a = 15), 40 to cluster
// 2, 30 and a missing one to cluster 3 (b = 30): (30 − 15) / 30.
TEST(Silhouette, MeansOverEachClusterMissingDistancesSkipped) {
  const std::vector<int> labels = {1, 1, 2, 3, 3};
  const std::vector<std::int16_t> row = {10, 20, 40, 30, -1};
  std::vector<double> sums;
  std::vector<std::int64_t> counts;
  EXPECT_DOUBLE_EQ(interp::silhouette(row.data(), 5, 1, labels, 3, sums, counts), 0.5);
  EXPECT_DOUBLE_EQ(interp::silhouette(row.data(), 5, 3, labels, 3, sums, counts), (15.0 - 30.0) / 30.0);
  // No other cluster, or none of its own with a distance: 0.
  EXPECT_EQ(interp::silhouette(row.data(), 2, 1, labels, 1, sums, counts), 0.0);
  const std::vector<std::int16_t> unseen = {10, 20, 40, -1, -1};
  EXPECT_EQ(interp::silhouette(unseen.data(), 5, 3, labels, 3, sums, counts), 0.0);
}

}  // namespace
