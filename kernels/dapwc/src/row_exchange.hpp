// How the clustering core talks to the other ranks: every rank computes some
// rows of an N×width table and receives the whole table. Keeping this the only
// collective makes every rank hold identical replicated state (all global sums
// are then taken in point order on every rank), so the result does not depend
// on the number of ranks or threads.
#pragma once

#include <algorithm>
#include <cstdint>

#include "spidal/mpi_env.hpp"

namespace dapwc {

class RowExchange {
 public:
  virtual ~RowExchange() = default;
  // The rows this rank computes.
  virtual spidal::RowBlock local_block() const = 0;
  // `local`: local_block().rows() × width, row-major; `full`: N × width on return.
  virtual void allgather(const double* local, double* full, int width) = 0;
};

// One process owns every row (unit tests, single-rank use without MPI).
class SingleRankExchange final : public RowExchange {
 public:
  explicit SingleRankExchange(std::int64_t n) : n_(n) {}
  spidal::RowBlock local_block() const override { return {0, n_}; }
  void allgather(const double* local, double* full, int width) override {
    std::copy(local, local + n_ * width, full);
  }

 private:
  std::int64_t n_;
};

}  // namespace dapwc
