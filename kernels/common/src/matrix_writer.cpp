#include "spidal/matrix_writer.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

namespace spidal {
namespace {

void check(int status, const char* what, const std::string& path) {
  if (status == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, message, &length);
  throw std::runtime_error(std::string(what) + " " + path + ": " + std::string(message, length));
}

bool native_order_is(ByteOrder order) {
  return (order == ByteOrder::little) == (std::endian::native == std::endian::little);
}

std::int16_t byte_swapped(std::int16_t value) {
  const auto bits = static_cast<std::uint16_t>(value);
  return static_cast<std::int16_t>(static_cast<std::uint16_t>((bits >> 8) | (bits << 8)));
}

// One contiguous run of a block row: where it goes in the file and where it is in memory.
struct Segment {
  MPI_Aint file_offset;
  const std::int16_t* values;
  int count;
};

}  // namespace

Int16MatrixWriter::Int16MatrixWriter(MPI_Comm comm, const std::string& path, std::int64_t n, ByteOrder order)
    : Int16MatrixWriter(comm, path, n, n, order) {}

Int16MatrixWriter::Int16MatrixWriter(MPI_Comm comm, const std::string& path, std::int64_t rows, std::int64_t cols,
                                     ByteOrder order)
    : path_(path), rows_(rows), cols_(cols), order_(order) {
  check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file_), "cannot create",
        path);
  check(MPI_File_set_size(file_, static_cast<MPI_Offset>(rows * cols * 2)), "cannot size", path);
}

Int16MatrixWriter::~Int16MatrixWriter() {
  if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
}

void Int16MatrixWriter::write(std::span<const MatrixBlock> blocks) {
  std::vector<Segment> segments;
  std::vector<std::int16_t> swapped;  // byte-swapped copy when the file order is not native
  const bool swap = !native_order_is(order_);
  if (swap) {
    std::size_t total = 0;
    for (const auto& block : blocks) total += static_cast<std::size_t>(block.rows * block.cols);
    swapped.reserve(total);
  }
  for (const auto& block : blocks) {
    if (block.row < 0 || block.col < 0 || block.row + block.rows > rows_ || block.col + block.cols > cols_) {
      throw std::invalid_argument("matrix block outside the matrix");
    }
    const std::int16_t* values = block.values;
    if (swap) {
      const std::size_t start = swapped.size();
      for (std::int64_t k = 0; k < block.rows * block.cols; ++k) {
        swapped.push_back(byte_swapped(values[k]));
      }
      values = swapped.data() + start;
    }
    for (std::int64_t r = 0; r < block.rows; ++r) {
      segments.push_back({static_cast<MPI_Aint>(((block.row + r) * cols_ + block.col) * 2), values + r * block.cols,
                          static_cast<int>(block.cols * 2)});
    }
  }
  // File views need ascending offsets; memory is consumed in the same order.
  std::sort(segments.begin(), segments.end(),
            [](const Segment& x, const Segment& y) { return x.file_offset < y.file_offset; });
  std::vector<int> lengths(segments.size());
  std::vector<MPI_Aint> file_offsets(segments.size()), addresses(segments.size());
  for (std::size_t s = 0; s < segments.size(); ++s) {
    lengths[s] = segments[s].count;
    file_offsets[s] = segments[s].file_offset;
    MPI_Get_address(segments[s].values, &addresses[s]);
  }
  MPI_Datatype file_type, memory_type;
  MPI_Type_create_hindexed(static_cast<int>(segments.size()), lengths.data(), file_offsets.data(), MPI_BYTE,
                           &file_type);
  MPI_Type_create_hindexed(static_cast<int>(segments.size()), lengths.data(), addresses.data(), MPI_BYTE,
                           &memory_type);
  MPI_Type_commit(&file_type);
  MPI_Type_commit(&memory_type);
  int status = MPI_File_set_view(file_, 0, MPI_BYTE, file_type, "native", MPI_INFO_NULL);
  if (status == MPI_SUCCESS) status = MPI_File_write_all(file_, MPI_BOTTOM, 1, memory_type, MPI_STATUS_IGNORE);
  MPI_Type_free(&file_type);
  MPI_Type_free(&memory_type);
  check(status, "cannot write", path_);
}

void Int16MatrixWriter::close() {
  const int status = MPI_File_close(&file_);
  file_ = MPI_FILE_NULL;
  check(status, "cannot close", path_);
}

}  // namespace spidal
