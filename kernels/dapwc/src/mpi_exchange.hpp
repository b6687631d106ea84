// RowExchange over MPI: one Allgatherv of the row blocks (spidal::RowBlockGather).
#pragma once

#include <map>
#include <memory>

#include "row_exchange.hpp"
#include "spidal/mpi_env.hpp"

namespace dapwc {

class MpiRowExchange final : public RowExchange {
 public:
  MpiRowExchange(MPI_Comm comm, std::int64_t n);
  spidal::RowBlock local_block() const override { return block_; }
  void allgather(const double* local, double* full, int width) override;

 private:
  MPI_Comm comm_;
  std::int64_t n_;
  spidal::RowBlock block_;
  std::map<int, std::unique_ptr<spidal::RowBlockGather>> gathers_;  // by row width
};

}  // namespace dapwc
