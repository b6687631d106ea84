#include "spidal/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "spidal/errors.hpp"

namespace spidal {

std::string temporary_path(const std::string& path, pid_t pid) {
  return path + ".tmp." + std::to_string(pid);
}

void check_output_writable(const std::string& path) {
  if (path.empty()) throw UsageError("output path is empty");
  const auto slash = path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("cannot write output " + path + ": directory " + directory + ": " + std::strerror(errno));
  }
}

PendingFile::PendingFile(std::string path, pid_t pid)
    : path_(std::move(path)), temporary_(temporary_path(path_, pid)) {}

PendingFile::~PendingFile() {
  if (!committed_) std::remove(temporary_.c_str());
}

void PendingFile::commit() {
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + temporary_ + " to " + path_ + ": " + std::strerror(errno));
  }
  committed_ = true;
}

AtomicTextOutput::AtomicTextOutput(const std::string& path) : file_(path, ::getpid()) {
  stream_.open(file_.temporary(), std::ios::out | std::ios::trunc);
  if (!stream_) throw std::runtime_error("cannot create " + file_.temporary() + ": " + std::strerror(errno));
}

void AtomicTextOutput::commit() {
  stream_.flush();
  const bool written = static_cast<bool>(stream_);
  stream_.close();
  if (!written || stream_.fail()) throw std::runtime_error("write failed for " + file_.temporary());
  file_.commit();
}

}  // namespace spidal
