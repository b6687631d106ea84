// Run-time CPU dispatch shared by every program: which instruction-set levels this
// CPU runs, and which of a program's per-ISA implementations to call.
//
// The idiom (as parasail's cpuid + dispatchers): each hot loop has one translation
// unit per level, compiled with that level's flags (spidal_isa_sources() in
// kernels/CMakeLists.txt, which holds the same feature lists as cpu.cpp), and is
// called only after cpu_supports() said yes. Nothing else is built for wider
// vectors, so one binary runs on any x86-64 node (no SIGILL on older Slurm nodes).
#pragma once

#include <span>
#include <string>
#include <vector>

namespace spidal {

// Instruction-set levels, narrowest first.
//   generic: the x86-64 baseline (SSE2);
//   avx2:    AVX2 + FMA (Haswell, Zen and later);
//   avx512:  AVX-512 F, BW, DQ, VL (Skylake-X, Ice Lake, Zen 4 and later).
enum class Isa { generic, avx2, avx512 };

const char* isa_name(Isa isa);  // "generic", "avx2", "avx512"
bool cpu_supports(Isa isa);

// The widest of `implemented` (a program's per-ISA variants) that this CPU runs;
// generic must be among them.
Isa widest_supported(std::span<const Isa> implemented);

// For a --kernel style option: "auto" is widest_supported(implemented); a level's
// name is that level. Throws std::invalid_argument for an unknown name, a level the
// program does not implement, or one this CPU lacks ("this CPU does not support
// the avx512 kernel").
Isa select_isa(const std::string& requested, std::span<const Isa> implemented);

// The names of the implemented levels this CPU runs, widest first.
std::vector<std::string> supported_isa_names(std::span<const Isa> implemented);

}  // namespace spidal
