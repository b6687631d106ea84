#include "spidal/errors.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <thread>

#include "spidal/mpi_env.hpp"

namespace spidal {
namespace {

std::string program_name(const char* argv0) {
  std::string name = argv0 ? argv0 : "program";
  auto slash = name.find_last_of('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// Prints the message and ends the program with `code` (see run_main).
[[noreturn]] void fail(MpiEnv& mpi, const std::string& program, const std::string& message, int code) {
  if (mpi.is_root()) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
    std::fflush(stderr);
  }
  if (mpi.size() > 1) {
    if (!mpi.is_root()) {
      // Rank 0 usually fails the same way and aborts the job first; if it did not,
      // this rank's message is the only one.
      std::this_thread::sleep_for(std::chrono::seconds(2));
      std::fprintf(stderr, "%s: rank %d: %s\n", program.c_str(), mpi.rank(), message.c_str());
      std::fflush(stderr);
    }
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  MPI_Finalize();
  std::fflush(stdout);
  _exit(code);
}

}  // namespace

int run_main(int argc, char** argv, const ProgramMain& program) {
  const std::string name = program_name(argc > 0 ? argv[0] : nullptr);
  MpiEnv mpi(argc, argv);
  try {
    return program(mpi, argc, argv);
  } catch (const HelpRequested& help) {
    if (mpi.is_root()) std::fputs(help.what(), stdout);
    return kExitOk;
  } catch (const UsageError& error) {
    fail(mpi, name, std::string(error.what()) + " (see --help)", kExitBadInput);
  } catch (const InputError& error) {
    fail(mpi, name, error.what(), kExitBadInput);
  } catch (const std::bad_alloc&) {
    fail(mpi, name, "out of memory", kExitFailure);
  } catch (const std::exception& error) {
    fail(mpi, name, error.what(), kExitFailure);
  }
}

}  // namespace spidal
