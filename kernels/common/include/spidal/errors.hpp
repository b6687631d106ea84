// Error types shared by the SPIDAL programs and the wrapper that turns them
// into a message on stderr and an exit code instead of a crash.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace spidal {

class MpiEnv;

// The command line or config file is wrong (unknown option, bad number, missing value).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input file is unusable (unreadable, wrong size, bad content).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by option parsing when --help was given; run_main prints the text and exits 0.
class HelpRequested : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exit codes used by run_main.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // an unexpected failure (I/O error while writing, bad_alloc, ...)
inline constexpr int kExitBadInput = 2;     // UsageError or InputError

using ProgramMain = std::function<int(MpiEnv& mpi, int argc, char** argv)>;

// Initialises MPI, runs `program`, finalises MPI and returns its exit code.
// UsageError/InputError -> "<program>: <message>" on stderr and exit code 2; any
// other exception -> exit code 1. Rank 0 prints. With more than one rank an error
// ends the whole job with MPI_Abort (other ranks may be blocked in a collective);
// a failing non-root rank waits briefly so that rank 0's message wins when both
// fail, and prints its own message (tagged with its rank) otherwise.
int run_main(int argc, char** argv, const ProgramMain& program);

}  // namespace spidal
