#include "cancel.hpp"

#include <csignal>

namespace mdsseries {
namespace {

volatile std::sig_atomic_t signalled = 0;

extern "C" void on_signal(int) { signalled = 1; }

}  // namespace

void install_cancel_handler() {
  struct sigaction action = {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

void check_cancel(MPI_Comm comm) {
  int local = signalled ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) throw Cancelled();
}

}  // namespace mdsseries
