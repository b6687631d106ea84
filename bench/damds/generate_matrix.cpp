// Writes an N×N SPIDAL distance matrix (little-endian int16, row-major, value/32767)
// of N random points in the unit cube, distances / √3 computed on the fly block by
// block, so a matrix larger than RAM needs only one block of rows in memory.
// Usage: generate_matrix N PATH
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: generate_matrix N PATH\n");
    return 2;
  }
  const std::int64_t n = std::strtoll(argv[1], nullptr, 10);
  std::FILE* file = std::fopen(argv[2], "wb");
  if (n <= 0 || !file) {
    std::fprintf(stderr, "generate_matrix: bad N or cannot write %s\n", argv[2]);
    return 2;
  }
  std::mt19937_64 generator(n);
  std::uniform_real_distribution<float> coordinate(0.0f, 1.0f);
  std::vector<float> x(n), y(n), z(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = coordinate(generator);
    y[i] = coordinate(generator);
    z[i] = coordinate(generator);
  }
  const float scale = 32767.0f / std::sqrt(3.0f);
  const std::int64_t block_rows = std::max<std::int64_t>(1, (64 << 20) / (2 * n));  // ~64 MB per block
  std::vector<std::int16_t> block(static_cast<std::size_t>(block_rows * n));
  for (std::int64_t first = 0; first < n; first += block_rows) {
    const std::int64_t rows = std::min(block_rows, n - first);
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = first + r;
      std::int16_t* row = block.data() + r * n;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        const float dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
        row[j] = static_cast<std::int16_t>(std::sqrt(dx * dx + dy * dy + dz * dz) * scale + 0.5f);  // rounded
      }
    }
    if (std::fwrite(block.data(), sizeof(std::int16_t), rows * n, file) != static_cast<std::size_t>(rows * n)) {
      std::fprintf(stderr, "generate_matrix: write failed (disk full?)\n");
      return 1;
    }
  }
  // On disk before the benchmark reads it: the page cache keeps dirty pages whatever a
  // reader advises, so the streamed passes would read memory instead of the disk.
  const bool written = std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  return std::fclose(file) == 0 && written ? 0 : 1;
}
