// MPI lifetime, rank layout and the row-block decomposition every program uses.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace spidal {

// Initialises MPI with MPI_THREAD_FUNNELED (only the main thread calls MPI;
// OpenMP threads compute) and finalises it on destruction.
class MpiEnv {
 public:
  MpiEnv(int& argc, char**& argv);
  ~MpiEnv();
  MpiEnv(const MpiEnv&) = delete;
  MpiEnv& operator=(const MpiEnv&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Half-open row range [begin, end) of an N-row matrix.
struct RowBlock {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t rows() const { return end - begin; }
};

// Balanced contiguous split of n rows into `parts` blocks: the first n % parts
// blocks get one extra row.
RowBlock row_block(std::int64_t n, int parts, int index);

// Waits for a non-blocking MPI operation without spinning: tests it with growing
// sleeps in between (at most 0.2 ms), so a waiting rank leaves its core to others.
void wait_yielding(MPI_Request& request);

// Gathers per-rank row blocks of an N×width row-major double matrix into the
// full matrix on every rank (MPI_Iallgatherv with counts precomputed once, waited
// for with wait_yielding).
class RowBlockGather {
 public:
  RowBlockGather(MPI_Comm comm, std::int64_t n, int width);
  // `local` holds this rank's rows (rows × width); `full` receives N × width.
  void allgather(const double* local, double* full) const;
  const RowBlock& local_block() const { return local_; }

 private:
  MPI_Comm comm_;
  RowBlock local_;
  std::vector<int> counts_;
  std::vector<int> displacements_;
};

}  // namespace spidal
