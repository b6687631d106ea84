// Cancellation: SIGTERM (what the gateway's cancel and Slurm's scancel send) or SIGINT
// sets a flag; the windows loop checks it between frames and after every Guttman
// iteration, so a cancelled run stops within one iteration (milliseconds to a second).
#pragma once

#include <mpi.h>

#include <stdexcept>

namespace mdsseries {

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

void install_cancel_handler();

// Collective: throws Cancelled on every rank when any rank has been signalled, so all
// ranks stop at the same point and none is left waiting in a collective.
void check_cancel(MPI_Comm comm);

}  // namespace mdsseries
