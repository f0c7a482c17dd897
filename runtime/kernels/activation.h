// The enc_activation values (plain C++, no Highway) that the argument checks
// of every kernel taking an activation accept; math-inl.h instantiates a body
// for each row of the activation table.
#ifndef ENC_RUNTIME_KERNELS_ACTIVATION_H_
#define ENC_RUNTIME_KERNELS_ACTIVATION_H_
#include <stdint.h>

#include "enc/kernels/gemm.h"  // enc_activation

namespace enc {
// Whether `act`, an int from C, is an enc_activation (the activation table,
// enc/activations.def, gives the enum; ENC_ACT_COUNT ends it).
constexpr bool IsActivation(int32_t act) {
  return act >= ENC_ACT_NONE && act < ENC_ACT_COUNT;
}
}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_ACTIVATION_H_
