// Memory read bandwidth of this machine, measured the way the DA-MDS pass reads:
// every OpenMP thread streams its share of one large int16 buffer once.
// Usage: read_bandwidth BYTES REPETITIONS  ->  prints the best repetition's GB/s (other
// work on a shared machine only ever slows a repetition down).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: read_bandwidth BYTES REPETITIONS\n");
    return 2;
  }
  const std::size_t count = std::strtoull(argv[1], nullptr, 10) / sizeof(std::int16_t);
  const int repetitions = std::atoi(argv[2]);
  std::vector<std::int16_t> buffer(count);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < count; ++k) buffer[k] = static_cast<std::int16_t>(k & 0x7fff);
  double best = 0.0;
  std::uint64_t checksum = 0;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    const auto start = std::chrono::steady_clock::now();
    // Summed as 64-bit words so the loop is bound by memory, not by widening int16.
    const auto* words = reinterpret_cast<const std::uint64_t*>(buffer.data());
    const std::size_t word_count = count * sizeof(std::int16_t) / sizeof(std::uint64_t);
    std::uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (std::size_t k = 0; k < word_count; ++k) total += words[k];
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double gigabytes = count * sizeof(std::int16_t) / 1e9;
    best = std::max(best, gigabytes / seconds);
    checksum += total;
  }
  std::printf("%.3f\n", best);
  std::fprintf(stderr, "checksum %llu\n", static_cast<unsigned long long>(checksum));
  return 0;
}
