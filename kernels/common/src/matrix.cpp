#include "spidal/matrix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "spidal/errors.hpp"

namespace spidal {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  }
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // Hands the descriptor over to a caller that closes it.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void check_size(const std::string& path, int fd, std::int64_t n) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw InputError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw InputError(path + ": not a regular file");
  const std::int64_t expected = n * n * static_cast<std::int64_t>(sizeof(std::int16_t));
  const std::int64_t actual = info.st_size;
  if (actual == expected) return;
  std::string message = path + ": expected " + std::to_string(expected) + " bytes for N=" + std::to_string(n) +
                        " (N×N int16), found " + std::to_string(actual);
  // Name the matrix size the file does hold, which is usually the real mistake.
  const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(actual / 2.0)));
  if (actual % 2 == 0 && side * side * 2 == actual) message += " (a " + std::to_string(side) + "×" + std::to_string(side) + " matrix)";
  throw InputError(message);
}

void check_block_size(const std::string& path, int fd, std::int64_t rows, std::int64_t columns) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw InputError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw InputError(path + ": not a regular file");
  const std::int64_t expected = rows * columns * static_cast<std::int64_t>(sizeof(std::int16_t));
  if (info.st_size == expected) return;
  throw InputError(path + ": expected " + std::to_string(expected) + " bytes for a " + std::to_string(rows) + "×" +
                   std::to_string(columns) + " int16 block, found " + std::to_string(info.st_size));
}

void read_exactly(const std::string& path, int fd, char* into, std::size_t bytes, std::int64_t offset) {
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, into, std::min<std::size_t>(bytes, 1 << 30), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(path + ": read failed: " + std::strerror(errno));
    if (got == 0) throw InputError(path + ": file shrank while reading");
    into += got;
    bytes -= static_cast<std::size_t>(got);
    offset += got;
  }
}

// N×N×2 bytes must fit in a file offset.
constexpr std::int64_t kMaxMatrixSide = 1'000'000'000;

void check_side(std::int64_t n) {
  if (n <= 0 || n > kMaxMatrixSide) {
    throw UsageError("matrix size N must be in [1, " + std::to_string(kMaxMatrixSide) + "], got " + std::to_string(n));
  }
}

}  // namespace

MatrixReader::MatrixReader(const std::string& path, std::int64_t n, ByteOrder order)
    : path_(path), n_(n), order_(order), fd_(-1) {
  check_side(n);
  FileDescriptor file(path);
  check_size(path, file.get(), n);
  fd_ = file.release();
}

MatrixReader::MatrixReader(const std::string& path, std::int64_t rows, std::int64_t columns, ByteOrder order)
    : path_(path), n_(columns), order_(order), fd_(-1) {
  check_side(rows);
  check_side(columns);
  FileDescriptor file(path);
  check_block_size(path, file.get(), rows, columns);
  fd_ = file.release();
}

MatrixReader::~MatrixReader() { ::close(fd_); }

void MatrixReader::read(std::int64_t row, std::int64_t column, std::int64_t count, std::int16_t* out) const {
  const std::int64_t offset = (row * n_ + column) * static_cast<std::int64_t>(sizeof(std::int16_t));
  read_exactly(path_, fd_, reinterpret_cast<char*>(out), static_cast<std::size_t>(count) * sizeof(std::int16_t),
               offset);
  if ((order_ == ByteOrder::big) != (std::endian::native == std::endian::big)) {
    for (std::int64_t k = 0; k < count; ++k) {
      const auto bits = static_cast<std::uint16_t>(out[k]);
      out[k] = static_cast<std::int16_t>(static_cast<std::uint16_t>((bits << 8) | (bits >> 8)));
    }
  }
}

void MatrixReader::forget(std::int64_t row, std::int64_t count) const {
  const auto row_bytes = n_ * static_cast<std::int64_t>(sizeof(std::int16_t));
  // Advice only: a failure leaves the pages to the kernel's own eviction.
  (void)::posix_fadvise(fd_, row * row_bytes, count * row_bytes, POSIX_FADV_DONTNEED);
}

std::vector<std::int16_t> read_row_block(const std::string& path, std::int64_t n, const RowBlock& block,
                                         ByteOrder order) {
  const MatrixReader reader(path, n, order);
  std::vector<std::int16_t> values(static_cast<std::size_t>(block.rows() * n));
  reader.read(block.begin, 0, block.rows() * n, values.data());
  return values;
}

MatrixStats block_stats(const std::int16_t* values, const std::int16_t* weights, std::size_t count) {
  std::int16_t max_stored = 0;
  std::int16_t min_positive_stored = std::numeric_limits<std::int16_t>::max();
  std::int64_t sum_squares = 0;
  std::int64_t counted = 0;
  std::int64_t missing = 0;
#pragma omp parallel for schedule(static) reduction(max : max_stored) reduction(min : min_positive_stored) \
    reduction(+ : sum_squares, counted, missing)
  for (std::size_t k = 0; k < count; ++k) {
    const std::int16_t value = values[k];
    if (value < 0) {
      ++missing;
      continue;
    }
    if (weights && weights[k] == 0) continue;
    ++counted;
    max_stored = std::max(max_stored, value);
    if (value > 0) min_positive_stored = std::min(min_positive_stored, value);
    sum_squares += static_cast<std::int64_t>(value) * value;
  }
  MatrixStats stats;
  stats.max = matrix_value(max_stored);
  // A positive value exists exactly when the maximum is positive.
  const bool any_positive = max_stored > 0;
  stats.min_positive = any_positive ? matrix_value(min_positive_stored) : 0.0;
  stats.sum_squares_stored = sum_squares;
  stats.sum_squares = sum_squares / (kMatrixScale * kMatrixScale);
  stats.counted_pairs = counted;
  stats.missing_pairs = missing;
  return stats;
}

void merge_stats(MatrixStats& into, const MatrixStats& part) {
  // A part without counted pairs has max 0 and min_positive 0, which must not win.
  if (part.min_positive > 0 && (into.min_positive == 0 || part.min_positive < into.min_positive)) {
    into.min_positive = part.min_positive;
  }
  into.max = std::max(into.max, part.max);
  into.sum_squares_stored += part.sum_squares_stored;
  into.sum_squares = into.sum_squares_stored / (kMatrixScale * kMatrixScale);
  into.counted_pairs += part.counted_pairs;
  into.missing_pairs += part.missing_pairs;
}

MatrixStats reduce_stats(const MatrixStats& local, MPI_Comm comm) {
  MatrixStats global;
  MPI_Allreduce(&local.max, &global.max, 1, MPI_DOUBLE, MPI_MAX, comm);
  // Ranks without positive values report 0, which must not win the minimum.
  const double local_min = local.min_positive > 0 ? local.min_positive : std::numeric_limits<double>::infinity();
  MPI_Allreduce(&local_min, &global.min_positive, 1, MPI_DOUBLE, MPI_MIN, comm);
  if (std::isinf(global.min_positive)) global.min_positive = 0.0;
  const std::int64_t counts[3] = {local.sum_squares_stored, local.counted_pairs, local.missing_pairs};
  std::int64_t totals[3] = {0, 0, 0};
  MPI_Allreduce(counts, totals, 3, MPI_INT64_T, MPI_SUM, comm);
  global.sum_squares_stored = totals[0];
  global.sum_squares = totals[0] / (kMatrixScale * kMatrixScale);
  global.counted_pairs = totals[1];
  global.missing_pairs = totals[2];
  return global;
}

}  // namespace spidal
