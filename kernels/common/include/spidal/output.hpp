// Atomic output files: data goes to "<path>.tmp.<pid>" and is renamed onto
// <path> only once complete, so a failed run never leaves a partial <path>.
#pragma once

#include <fstream>
#include <string>
#include <sys/types.h>

namespace spidal {

// "<path>.tmp.<pid>"; MPI programs writing one file from many ranks pass rank 0's pid.
std::string temporary_path(const std::string& path, pid_t pid);

// Throws UsageError unless the directory that will hold `path` exists and is writable;
// programs call this before long computations.
void check_output_writable(const std::string& path);

// A temporary file that becomes `path` on commit() and is removed otherwise.
class PendingFile {
 public:
  explicit PendingFile(std::string path, pid_t pid);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  const std::string& temporary() const { return temporary_; }
  const std::string& path() const { return path_; }
  // Renames the temporary onto the final path; throws std::runtime_error on failure.
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  bool committed_ = false;
};

// A text file written through a stream, e.g. `index x y z` lines.
class AtomicTextOutput {
 public:
  explicit AtomicTextOutput(const std::string& path);
  std::ostream& stream() { return stream_; }
  // Flushes, checks for write errors, closes and renames; throws std::runtime_error on failure.
  void commit();

 private:
  PendingFile file_;
  std::ofstream stream_;
};

}  // namespace spidal
