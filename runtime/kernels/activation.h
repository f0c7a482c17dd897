// The list of enc_activation values (plain C++, no Highway): what the
// argument checks of every kernel taking an activation accept, and what the
// SIMD bodies (math-inl.h) instantiate.
#ifndef ENC_RUNTIME_KERNELS_ACTIVATION_H_
#define ENC_RUNTIME_KERNELS_ACTIVATION_H_
#include <stdint.h>

#include "enc/kernels/gemm.h"  // enc_activation

// Every value of enc_activation. A value added to gemm.h fails to compile
// (-Wswitch in IsListed) until it is listed here and given a body in
// math-inl.h's Activation.
#define ENC_ACTIVATIONS(X) \
  X(ENC_ACT_NONE)          \
  X(ENC_ACT_RELU)          \
  X(ENC_ACT_GELU)          \
  X(ENC_ACT_GELU_TANH)     \
  X(ENC_ACT_SILU)

namespace enc {
// Whether `act`, an int from C, is an enc_activation.
constexpr bool IsActivation(int32_t act) {
#define ENC_ACTIVATION_IS(A) act == A ||
  return ENC_ACTIVATIONS(ENC_ACTIVATION_IS) false;
#undef ENC_ACTIVATION_IS
}
constexpr bool IsListed(enc_activation act) {
  switch (act) {
#define ENC_ACTIVATION_CASE(A) case A:
    ENC_ACTIVATIONS(ENC_ACTIVATION_CASE)
#undef ENC_ACTIVATION_CASE
    return true;
  }
  return false;
}
}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_ACTIVATION_H_
