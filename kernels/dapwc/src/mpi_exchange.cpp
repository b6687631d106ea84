#include "mpi_exchange.hpp"

namespace dapwc {

MpiRowExchange::MpiRowExchange(MPI_Comm comm, std::int64_t n) : comm_(comm), n_(n) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  block_ = spidal::row_block(n, size, rank);
}

void MpiRowExchange::allgather(const double* local, double* full, int width) {
  auto& gather = gathers_[width];
  if (!gather) gather = std::make_unique<spidal::RowBlockGather>(comm_, n_, width);
  gather->allgather(local, full);
}

}  // namespace dapwc
