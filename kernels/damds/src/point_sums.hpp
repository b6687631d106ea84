// Per-point sums of a pass over pairs, each thread keeping its own: a pair's term goes
// to both of its points, which any thread's rows may reach, so threads do not share
// sums (no atomics). They are added up in thread order afterwards, so a result depends
// on the thread count only through rounding, never on scheduling.
#pragma once

#include <omp.h>

#include <cstdint>
#include <vector>

namespace damds {

class ThreadPointSums {
 public:
  // `dim` axes per point. Index v and v + n name the same point, so that a row's half,
  // columns i+1 … which may run past n, is one range of indices.
  ThreadPointSums(std::int64_t n, int dim)
      : n_(n), dim_(dim), threads_(omp_get_max_threads()),
        sums_(static_cast<std::size_t>(threads_) * dim * 2 * n, 0.0), scalars_(threads_, 0.0) {}

  int threads() const { return threads_; }
  double* axis(int thread, int k) { return sums_.data() + (static_cast<std::size_t>(thread) * dim_ + k) * 2 * n_; }
  // One further sum per thread (the stress of a pass).
  double& scalar(int thread) { return scalars_[thread]; }

  // out[j × dim + k] = scale × the threads' sums for point j, axis k.
  void write(double* out, double scale) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n_; ++j) {
      for (int k = 0; k < dim_; ++k) {
        double sum = 0.0;
        for (int thread = 0; thread < threads_; ++thread) {
          const double* axis = sums_.data() + (static_cast<std::size_t>(thread) * dim_ + k) * 2 * n_;
          sum += axis[j] + axis[j + n_];
        }
        out[j * dim_ + k] = sum * scale;
      }
    }
  }
  double scalar_total() const {
    double total = 0.0;
    for (const double value : scalars_) total += value;
    return total;
  }

 private:
  std::int64_t n_;
  int dim_;
  int threads_;
  std::vector<double> sums_;  // thread-major, then axis, then 2n indices
  std::vector<double> scalars_;
};

}  // namespace damds
