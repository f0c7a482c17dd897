// Whether two float ranges share memory: the kernels' argument checks refuse
// the overlaps their loops cannot take.
#ifndef ENC_SRC_OVERLAP_H_
#define ENC_SRC_OVERLAP_H_

#include <cstdint>

namespace enc {

// Whether the byte ranges [a, a + a_bytes) and [b, b + b_bytes) overlap;
// addresses are compared as integers, which is defined for unrelated arrays.
inline bool OverlapBytes(const void* a, uint64_t a_bytes, const void* b,
                         uint64_t b_bytes) {
  const auto pa = reinterpret_cast<uintptr_t>(a);
  const auto pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// Whether [a, a + a_len) and [b, b + b_len) (in floats) overlap.
inline bool Overlap(const float* a, int64_t a_len, const float* b,
                    int64_t b_len) {
  return OverlapBytes(a, a_len * sizeof(float), b, b_len * sizeof(float));
}

}  // namespace enc

#endif  // ENC_SRC_OVERLAP_H_
