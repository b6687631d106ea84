#include "spidal/cpu.hpp"

#include <algorithm>
#include <stdexcept>

namespace spidal {
namespace {

constexpr Isa kWidestFirst[] = {Isa::avx512, Isa::avx2, Isa::generic};

bool implements(std::span<const Isa> implemented, Isa isa) {
  return std::find(implemented.begin(), implemented.end(), isa) != implemented.end();
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::generic: break;
  }
  return "generic";
}

bool cpu_supports(Isa isa) {
  // The same feature lists as the compile flags of spidal_isa_sources() (CMake).
  __builtin_cpu_init();
  switch (isa) {
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && cpu_supports(Isa::avx2);
    case Isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::generic: break;
  }
  return true;
}

Isa widest_supported(std::span<const Isa> implemented) {
  for (const Isa isa : kWidestFirst) {
    if (implements(implemented, isa) && cpu_supports(isa)) return isa;
  }
  throw std::logic_error("no generic implementation to fall back on");
}

Isa select_isa(const std::string& requested, std::span<const Isa> implemented) {
  if (requested == "auto") return widest_supported(implemented);
  std::string known;
  for (const Isa isa : kWidestFirst) {
    if (!implements(implemented, isa)) continue;
    if (requested == isa_name(isa)) {
      if (!cpu_supports(isa)) throw std::invalid_argument("this CPU does not support the " + requested + " kernel");
      return isa;
    }
    known += std::string(", ") + isa_name(isa);
  }
  throw std::invalid_argument("unknown kernel '" + requested + "' (auto" + known + ")");
}

std::vector<std::string> supported_isa_names(std::span<const Isa> implemented) {
  std::vector<std::string> names;
  for (const Isa isa : kWidestFirst) {
    if (implements(implemented, isa) && cpu_supports(isa)) names.emplace_back(isa_name(isa));
  }
  return names;
}

}  // namespace spidal
