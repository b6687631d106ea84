// This core's AVX2 integer ALU throughput, for the SWG roofline in bench_swg.py: the
// clock (a chain of dependent vpaddd, one cycle each) and how many independent
// vpaddd and vpmaxsd (the lane kernel's two instructions) retire per cycle. Best of
// 15 rounds, since the machine is shared. Prints one JSON line.
//   g++ -O2 vector_alu.cpp -o vector_alu && ./vector_alu
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

// Eight independent accumulators, two instructions each per loop trip.
#define EIGHT(op)                                                                                         \
  op " %%ymm8,%%ymm0,%%ymm0\n" op " %%ymm8,%%ymm1,%%ymm1\n" op " %%ymm8,%%ymm2,%%ymm2\n" op            \
     " %%ymm8,%%ymm3,%%ymm3\n" op " %%ymm8,%%ymm4,%%ymm4\n" op " %%ymm8,%%ymm5,%%ymm5\n" op            \
     " %%ymm8,%%ymm6,%%ymm6\n" op " %%ymm8,%%ymm7,%%ymm7\n"
#define CHAIN4 "vpaddd %%ymm8,%%ymm0,%%ymm0\n vpaddd %%ymm8,%%ymm0,%%ymm0\n vpaddd %%ymm8,%%ymm0,%%ymm0\n vpaddd %%ymm8,%%ymm0,%%ymm0\n"
#define CLOBBERS "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "cc"

enum class Loop { chain, add, max };
constexpr long kTrips = 20'000'000;
constexpr int kPerTrip = 16;

double seconds(Loop loop) {
  long trips = kTrips;
  const auto start = std::chrono::steady_clock::now();
  switch (loop) {
    case Loop::chain: asm volatile("1:\n" CHAIN4 CHAIN4 CHAIN4 CHAIN4 "dec %0\n jnz 1b\n" : "+r"(trips)::CLOBBERS); break;
    case Loop::add: asm volatile("1:\n" EIGHT("vpaddd") EIGHT("vpaddd") "dec %0\n jnz 1b\n" : "+r"(trips)::CLOBBERS); break;
    case Loop::max: asm volatile("1:\n" EIGHT("vpmaxsd") EIGHT("vpmaxsd") "dec %0\n jnz 1b\n" : "+r"(trips)::CLOBBERS); break;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  double chain = 1e30, add = 1e30, max = 1e30;
  for (int round = 0; round < 15; ++round) {
    chain = std::min(chain, seconds(Loop::chain));
    add = std::min(add, seconds(Loop::add));
    max = std::min(max, seconds(Loop::max));
  }
  const double cycles = static_cast<double>(kTrips) * kPerTrip;  // the chain: one cycle per vpaddd
  std::printf("{\"ghz\": %.3f, \"add_per_cycle\": %.2f, \"max_per_cycle\": %.2f}\n", cycles / chain / 1e9,
              chain / add, chain / max);
}
