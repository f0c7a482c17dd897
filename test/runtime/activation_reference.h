// The activations of the activation table (enc/activations.def) in double,
// for the kernels' tests (docs/numerics.md#blocks). Exhaustive: a new row
// fails to compile here (-Wswitch) until the tests know its formula.
#ifndef ENC_TEST_RUNTIME_ACTIVATION_REFERENCE_H_
#define ENC_TEST_RUNTIME_ACTIVATION_REFERENCE_H_

#include <cmath>

#include "enc/kernels/gemm.h"

namespace enc_test {

inline double RefAct(double v, enc_activation act) {
  switch (act) {
    case ENC_ACT_NONE:
      return v;
    case ENC_ACT_RELU:
      return v > 0 ? v : 0;
    case ENC_ACT_GELU:
      return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    case ENC_ACT_GELU_TANH:
      return 0.5 * v *
             (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    case ENC_ACT_SILU:
      return v / (1 + std::exp(-v));
    case ENC_ACT_QUICK_GELU:
      return v / (1 + std::exp(-1.702 * v));
    case ENC_ACT_TANH:
      return std::tanh(v);
  }
  return NAN;
}

// Every activation, ENC_ACT_NONE first.
inline constexpr enc_activation kActivations[] = {
    ENC_ACT_NONE,
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula) Enumerator,
#include "enc/activations.def"
};

// The activation's name as tests print it: its `activation = ...` spelling.
inline const char* ActName(enc_activation act) {
  switch (act) {
    case ENC_ACT_NONE:
      return "none";
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula) \
  case Enumerator:                                              \
    return Spelling;
#include "enc/activations.def"
  }
  return "?";
}

}  // namespace enc_test

#endif  // ENC_TEST_RUNTIME_ACTIVATION_REFERENCE_H_
