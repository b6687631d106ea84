// std::vector storage aligned for the widest vector loads (64 bytes, AVX-512).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace swg {

inline constexpr std::size_t kVectorAlignment = 64;

template <class T>
struct VectorAlignedAllocator {
  using value_type = T;
  VectorAlignedAllocator() = default;
  template <class U>
  VectorAlignedAllocator(const VectorAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kVectorAlignment}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{kVectorAlignment}); }
  bool operator==(const VectorAlignedAllocator&) const { return true; }
};

template <class T>
using AlignedVector = std::vector<T, VectorAlignedAllocator<T>>;

}  // namespace swg
