// Whether two float ranges share memory: the kernels' argument checks refuse
// the overlaps their loops cannot take.
#ifndef ENC_SRC_OVERLAP_H_
#define ENC_SRC_OVERLAP_H_

#include <cstdint>

namespace enc {

// Whether [a, a + a_len) and [b, b + b_len) (in floats) overlap.
inline bool Overlap(const float* a, int64_t a_len, const float* b,
                    int64_t b_len) {
  const auto pa = reinterpret_cast<uintptr_t>(a);
  const auto pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

}  // namespace enc

#endif  // ENC_SRC_OVERLAP_H_
