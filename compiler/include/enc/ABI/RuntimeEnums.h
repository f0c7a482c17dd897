//===- RuntimeEnums.h - Dialect enums as the runtime's C enums --*- C++ -*-===//
//
// Each dialect enum the lowering passes to a kernel maps to the runtime's C
// enum by an exhaustive switch with no default, and back by another: a value
// added on either side is a -Wswitch error (with ENC_WERROR) until it is
// mapped, and the static_asserts below check that the two maps agree.
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

constexpr enc_norm_kind toRuntime(NormKind K) {
  switch (K) {
  case NormKind::layernorm:
    return ENC_NORM_LAYER;
  case NormKind::rmsnorm:
    return ENC_NORM_RMS;
  }
  return ENC_NORM_LAYER;
}
constexpr NormKind fromRuntime(enc_norm_kind K) {
  switch (K) {
  case ENC_NORM_LAYER:
    return NormKind::layernorm;
  case ENC_NORM_RMS:
    return NormKind::rmsnorm;
  }
  return NormKind::layernorm;
}

constexpr enc_pool_mode toRuntime(PoolMode M) {
  switch (M) {
  case PoolMode::none:
    return ENC_POOL_NONE;
  case PoolMode::cls:
    return ENC_POOL_CLS;
  case PoolMode::mean:
    return ENC_POOL_MEAN;
  case PoolMode::max:
    return ENC_POOL_MAX;
  case PoolMode::last:
    return ENC_POOL_LAST;
  }
  return ENC_POOL_NONE;
}
constexpr PoolMode fromRuntime(enc_pool_mode M) {
  switch (M) {
  case ENC_POOL_NONE:
    return PoolMode::none;
  case ENC_POOL_CLS:
    return PoolMode::cls;
  case ENC_POOL_MEAN:
    return PoolMode::mean;
  case ENC_POOL_MAX:
    return PoolMode::max;
  case ENC_POOL_LAST:
    return PoolMode::last;
  }
  return PoolMode::none;
}

/// enc_rope_style's ENC_ROPE_NONE means "no RoPE", which the dialect says
/// with AttnPositional instead.
constexpr enc_rope_style toRuntime(RopePairing P) {
  switch (P) {
  case RopePairing::halves:
    return ENC_ROPE_HALVES;
  case RopePairing::interleaved:
    return ENC_ROPE_INTERLEAVED;
  }
  return ENC_ROPE_NONE;
}
constexpr std::optional<RopePairing> fromRuntime(enc_rope_style S) {
  switch (S) {
  case ENC_ROPE_NONE:
    return std::nullopt;
  case ENC_ROPE_HALVES:
    return RopePairing::halves;
  case ENC_ROPE_INTERLEAVED:
    return RopePairing::interleaved;
  }
  return std::nullopt;
}

constexpr enc_precision toRuntime(WeightPrecision P) {
  switch (P) {
  case WeightPrecision::fp32:
    return ENC_PRECISION_FP32;
  case WeightPrecision::int8:
    return ENC_PRECISION_INT8;
  case WeightPrecision::bf16:
    return ENC_PRECISION_BF16;
  }
  return ENC_PRECISION_FP32;
}
constexpr WeightPrecision fromRuntime(enc_precision P) {
  switch (P) {
  case ENC_PRECISION_FP32:
    return WeightPrecision::fp32;
  case ENC_PRECISION_INT8:
    return WeightPrecision::int8;
  case ENC_PRECISION_BF16:
    return WeightPrecision::bf16;
  }
  return WeightPrecision::fp32;
}

constexpr enc_scores toRuntime(ScoresKind S) {
  switch (S) {
  case ScoresKind::none:
    return ENC_SCORES_NONE;
  case ScoresKind::sigmoid:
    return ENC_SCORES_SIGMOID;
  case ScoresKind::softmax:
    return ENC_SCORES_SOFTMAX;
  }
  return ENC_SCORES_NONE;
}
constexpr ScoresKind fromRuntime(enc_scores S) {
  switch (S) {
  case ENC_SCORES_NONE:
    return ScoresKind::none;
  case ENC_SCORES_SIGMOID:
    return ScoresKind::sigmoid;
  case ENC_SCORES_SOFTMAX:
    return ScoresKind::softmax;
  }
  return ScoresKind::none;
}

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
