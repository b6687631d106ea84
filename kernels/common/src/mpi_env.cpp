#include "spidal/mpi_env.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

namespace spidal {

MpiEnv::MpiEnv(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiEnv::~MpiEnv() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

RowBlock row_block(std::int64_t n, int parts, int index) {
  if (parts <= 0 || index < 0 || index >= parts) throw std::invalid_argument("row_block: bad part index");
  const std::int64_t base = n / parts;
  const std::int64_t extra = n % parts;
  const std::int64_t begin = index * base + std::min<std::int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

RowBlockGather::RowBlockGather(MPI_Comm comm, std::int64_t n, int width) : comm_(comm) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (n * width > std::numeric_limits<int>::max()) {
    throw std::length_error("RowBlockGather: matrix too large for MPI int counts");
  }
  local_ = row_block(n, size, rank);
  for (int part = 0; part < size; ++part) {
    const RowBlock block = row_block(n, size, part);
    counts_.push_back(static_cast<int>(block.rows() * width));
    displacements_.push_back(static_cast<int>(block.begin * width));
  }
}

void RowBlockGather::allgather(const double* local, double* full) const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgatherv(local, counts_[rank], MPI_DOUBLE, full, counts_.data(), displacements_.data(), MPI_DOUBLE, comm_,
                  &request);
  wait_yielding(request);
}

// A blocking MPI wait spins on the shared-memory queues at full speed; on cores
// shared with other ranks or programs that takes the CPU from the rank being
// waited for. Polling with growing sleeps (capped at kMaxPollSleep) leaves the
// core to others at the cost of at most that much latency per collective.
void wait_yielding(MPI_Request& request) {
  constexpr auto kFirstPollSleep = std::chrono::microseconds(5);
  constexpr auto kMaxPollSleep = std::chrono::microseconds(200);
  auto sleep = kFirstPollSleep;
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    std::this_thread::sleep_for(sleep);
    sleep = std::min(2 * sleep, kMaxPollSleep);
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

}  // namespace spidal
