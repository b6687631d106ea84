// This core's vector integer ALU throughput, for the SWG roofline in bench_swg.py: the
// clock (a chain of dependent vpaddd, one cycle each) and how many independent vpaddd,
// vpmaxsd (the lane kernel's two instructions) and the local loop's mix of them (6 vpmaxsd
// to 4 vpaddd/vpsubd per vector of cells) retire per cycle, on 256-bit (AVX2) registers
// and, where the CPU has AVX-512, on 512-bit ones with their own clock (some CPUs slow
// down for 512-bit work). The mix is what bounds the kernel: Intel cores run vpmaxsd on
// fewer ports than vpaddd. Also vpaddsb, the score kernel's saturating add: Zen 3 issues
// saturating adds and subtractions at half the rate of vpaddd. Best of 15 rounds, since
// the machine is shared. Prints one JSON line.
//   g++ -O2 vector_alu.cpp -o vector_alu && ./vector_alu
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

// One instruction on accumulator k: register k op= register 8.
#define ONE(op, r, k) op " %%" r "8,%%" r #k ",%%" r #k "\n"
// Eight independent accumulators, one instruction each.
#define EIGHT(op, r) \
  ONE(op, r, 0) ONE(op, r, 1) ONE(op, r, 2) ONE(op, r, 3) ONE(op, r, 4) ONE(op, r, 5) ONE(op, r, 6) ONE(op, r, 7)
// 6 vpmaxsd and 4 vpaddd (the local loop's mix per vector of cells) on ten accumulators,
// one instruction each per trip, so no chain is longer than a cycle per trip.
#define MIX(r)                                                                                         \
  ONE("vpmaxsd", r, 0) ONE("vpaddd", r, 1) ONE("vpmaxsd", r, 2) ONE("vpaddd", r, 3) ONE("vpmaxsd", r, 4) \
  ONE("vpmaxsd", r, 5) ONE("vpaddd", r, 6) ONE("vpmaxsd", r, 7) ONE("vpaddd", r, 9) ONE("vpmaxsd", r, 10)
// Four dependent vpaddd: the clock.
#define CHAIN4(r) ONE("vpaddd", r, 0) ONE("vpaddd", r, 0) ONE("vpaddd", r, 0) ONE("vpaddd", r, 0)
#define LOOP(body) "1:\n" body "dec %0\n jnz 1b\n"

enum class Loop { chain, add, max, mix, saturating };
constexpr long kTrips = 20'000'000;
// Instructions per loop trip: the chain and the add and max loops run 16, the mix 10.
constexpr double per_trip(Loop loop) { return loop == Loop::mix ? 10.0 : 16.0; }

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The four timed loops on registers r ("ymm" or "zmm"); every loop clobbers all ten accumulators.
#define CLOBBERS(r) r "0", r "1", r "2", r "3", r "4", r "5", r "6", r "7", r "9", r "10", "cc"
#define TIMED_LOOPS(name, r)                                                                    \
  double name(Loop loop) {                                                                      \
    long trips = kTrips;                                                                        \
    const auto start = Clock::now();                                                            \
    switch (loop) {                                                                             \
      case Loop::chain:                                                                         \
        asm volatile(LOOP(CHAIN4(r) CHAIN4(r) CHAIN4(r) CHAIN4(r)) : "+r"(trips)::CLOBBERS(r)); \
        break;                                                                                  \
      case Loop::add:                                                                           \
        asm volatile(LOOP(EIGHT("vpaddd", r) EIGHT("vpaddd", r)) : "+r"(trips)::CLOBBERS(r));   \
        break;                                                                                  \
      case Loop::max:                                                                           \
        asm volatile(LOOP(EIGHT("vpmaxsd", r) EIGHT("vpmaxsd", r)) : "+r"(trips)::CLOBBERS(r)); \
        break;                                                                                  \
      case Loop::mix:                                                                           \
        asm volatile(LOOP(MIX(r)) : "+r"(trips)::CLOBBERS(r));                                  \
        break;                                                                                  \
      case Loop::saturating:                                                                    \
        asm volatile(LOOP(EIGHT("vpaddsb", r) EIGHT("vpaddsb", r)) : "+r"(trips)::CLOBBERS(r)); \
        break;                                                                                  \
    }                                                                                           \
    return since(start);                                                                        \
  }

TIMED_LOOPS(seconds256, "ymm")
__attribute__((target("avx512f,avx512bw"))) TIMED_LOOPS(seconds512, "zmm")

// Prints `"ghz…": …, "add…": …, "max…": …, "mix…": …, "saturating…": …` for one register width.
void report(const char* suffix, double (*seconds)(Loop)) {
  constexpr Loop kLoops[] = {Loop::chain, Loop::add, Loop::max, Loop::mix, Loop::saturating};
  double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
  for (int round = 0; round < 15; ++round) {
    for (int k = 0; k < 5; ++k) best[k] = std::min(best[k], seconds(kLoops[k]));
  }
  // The chain takes one cycle per instruction.
  const double cycles = static_cast<double>(kTrips) * per_trip(Loop::chain);
  const auto per_cycle = [&](int k) { return best[0] / best[k] * per_trip(kLoops[k]) / per_trip(Loop::chain); };
  std::printf(
      "\"ghz%s\": %.3f, \"add_per_cycle%s\": %.2f, \"max_per_cycle%s\": %.2f, \"mix_per_cycle%s\": %.2f, "
      "\"saturating_per_cycle%s\": %.2f",
      suffix, cycles / best[0] / 1e9, suffix, per_cycle(1), suffix, per_cycle(2), suffix, per_cycle(3), suffix,
      per_cycle(4));
}

}  // namespace

int main() {
  std::printf("{");
  report("", seconds256);
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
    std::printf(", ");
    report("_512", seconds512);
  }
  std::printf("}\n");
}
