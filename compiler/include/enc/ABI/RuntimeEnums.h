//===- RuntimeEnums.h - Dialect enums as the runtime's C enums --*- C++ -*-===//
//
// Each dialect enum the lowering passes to a kernel maps to the runtime's C
// enum by an exhaustive switch with no default, and back by another, both
// generated from one table of pairs: a value added on either side is a
// -Wswitch error (with ENC_WERROR) until the table maps it, and the
// static_asserts below check that the two maps agree.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_ABI_RUNTIMEENUMS_H
#define ENC_ABI_RUNTIMEENUMS_H

#include "enc/Dialect/EncDialect.h"
#include "enc/kernels.h"

namespace enc::abi {

// The dialect's ActivationKind is none then the rows of the activation
// table, as enc_activation is (enc/activations.def): the same numbers.
static_assert(getMaxEnumValForActivationKind() + 1 == ENC_ACT_COUNT,
              "ActivationKind and enc_activation disagree");
constexpr enc_activation toRuntime(ActivationKind K) {
  return static_cast<enc_activation>(static_cast<uint32_t>(K));
}
constexpr ActivationKind fromRuntime(enc_activation A) {
  return static_cast<ActivationKind>(static_cast<uint32_t>(A));
}

// One table per enum pair (RuntimeEnums.def); the two switches of each pair
// below are generated from it, exhaustive and without a default.
#include "enc/ABI/RuntimeEnums.def"

#define ENC_ABI_TO_RUNTIME(Dialect, Runtime)                                   \
  case Dialect:                                                                \
    return Runtime;
#define ENC_ABI_FROM_RUNTIME(Dialect, Runtime)                                 \
  case Runtime:                                                                \
    return Dialect;
// toRuntime(Dialect) and fromRuntime(Runtime) from TABLE; `Fallback` only
// ends a function the switch already covers (GCC asks for a return).
#define ENC_ABI_MAP(Dialect, Runtime, TABLE, Fallback)                         \
  constexpr Runtime toRuntime(Dialect V) {                                     \
    switch (V) { TABLE(ENC_ABI_TO_RUNTIME) }                                   \
    return static_cast<Runtime>(0);                                            \
  }                                                                            \
  constexpr Dialect fromRuntime(Runtime V) {                                   \
    switch (V) { TABLE(ENC_ABI_FROM_RUNTIME) }                                 \
    return Fallback;                                                           \
  }

ENC_ABI_MAP(NormKind, enc_norm_kind, ENC_ABI_NORM_KINDS, NormKind::layernorm)
ENC_ABI_MAP(PoolMode, enc_pool_mode, ENC_ABI_POOL_MODES, PoolMode::none)
ENC_ABI_MAP(WeightPrecision, enc_precision, ENC_ABI_PRECISIONS,
            WeightPrecision::fp32)
ENC_ABI_MAP(ScoresKind, enc_scores, ENC_ABI_SCORES, ScoresKind::none)

/// enc_rope_style's ENC_ROPE_NONE means "no RoPE", which the dialect says
/// with AttnPositional instead.
constexpr enc_rope_style toRuntime(RopePairing P) {
  switch (P) { ENC_ABI_ROPE_PAIRINGS(ENC_ABI_TO_RUNTIME) }
  return ENC_ROPE_NONE;
}
constexpr std::optional<RopePairing> fromRuntime(enc_rope_style S) {
  switch (S) {
  case ENC_ROPE_NONE:
    return std::nullopt;
    ENC_ABI_ROPE_PAIRINGS(ENC_ABI_FROM_RUNTIME)
  }
  return std::nullopt;
}
#undef ENC_ABI_MAP
#undef ENC_ABI_FROM_RUNTIME
#undef ENC_ABI_TO_RUNTIME

namespace detail {
/// Every value of dialect enum E maps to the runtime and back to itself.
template <typename E> constexpr bool roundTrips(unsigned MaxValue) {
  for (unsigned V = 0; V <= MaxValue; ++V)
    if (fromRuntime(toRuntime(static_cast<E>(V))) != static_cast<E>(V))
      return false;
  return true;
}
} // namespace detail
static_assert(
    detail::roundTrips<ActivationKind>(getMaxEnumValForActivationKind()),
    "ActivationKind and enc_activation disagree");
static_assert(detail::roundTrips<NormKind>(getMaxEnumValForNormKind()),
              "NormKind and enc_norm_kind disagree");
static_assert(detail::roundTrips<PoolMode>(getMaxEnumValForPoolMode()),
              "PoolMode and enc_pool_mode disagree");
static_assert(detail::roundTrips<ScoresKind>(getMaxEnumValForScoresKind()),
              "ScoresKind and enc_scores disagree");
static_assert(
    detail::roundTrips<WeightPrecision>(getMaxEnumValForWeightPrecision()),
    "WeightPrecision and enc_precision disagree");
static_assert(detail::roundTrips<RopePairing>(getMaxEnumValForRopePairing()),
              "RopePairing and enc_rope_style disagree");

} // namespace enc::abi

#endif // ENC_ABI_RUNTIMEENUMS_H
