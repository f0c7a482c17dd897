// Vector math for the kernels (Highway): Exp, ExpNonPositive, Tanh, Erf,
// Gelu, GeluTanh, Silu, and
// the activations of enc_activation (docs/numerics.md#blocks) in one place:
// the list, its check, and Activation<kAct> for the kernels that apply one.
//
// Include this from another foo-inl.h (inside its per-target section); the
// functions live in enc::HWY_NAMESPACE. Call Exp and Tanh qualified
// (HWY_NAMESPACE::Exp): argument-dependent lookup also finds hwy's own.
// Accuracy in float32 against a float64 reference:
//   Exp       hwy/contrib/math (max ~1 ulp), 0 below -104; clamp x <= 88.
//   ExpNonPositive  x <= 0 only, ~2 ulp, 0 below -87.3; about half the
//             operations of Exp (no overflow or denormal range to handle).
//   Tanh      hwy/contrib/math (max ~3 ulp).
//   Erf       ours, see below: max relative error 1.4e-9 (x < 1) and, for
//             x >= 1, 8e-8 in erfc before float rounding; in float ~2 ulp of
//             erf, and erfc (used by Gelu's negative tail) to ~4e-7.
//   Gelu      0.5 x (1 + erf(x / sqrt 2)) through one cheap erfc for both
//             signs (no cancellation in the negative tail): relative error
//             ~5e-7 (see Gelu); ~30 operations, no blend.
//   GeluTanh  0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi)(x +
//             0.044715 x^3): relative error ~3e-7.
//   Silu      x / (1 + exp(-x)): relative error 1.6e-7 over [-20, 20].

#include "kernels/activation.h"

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(ENC_KERNELS_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_MATH_INL_H_
#undef ENC_KERNELS_MATH_INL_H_
#else
#define ENC_KERNELS_MATH_INL_H_
#endif

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// e^x. Inputs below -104 give 0; inputs are clamped to 88 (e^88 < FLT_MAX).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Exp(D d, V x) {
  return hn::Exp(d, hn::Min(x, hn::Set(d, 88.0f)));
}

template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Tanh(D d, V x) {
  return hn::Tanh(d, x);
}

// e^x for x <= 0 (and -inf), within ~2 ulp: x = n ln2 + r with |r| <= ln2/2
// (Cody-Waite split of ln2), e^r from Cephes' expf polynomial, 2^n through
// the exponent bits. Below -87.3 (where e^x nears the smallest normal float)
// the result is 0.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ExpNonPositive(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V lo = hn::Set(d, -87.3f);
  const V xc = hn::Max(x, lo);
  const V n = hn::Round(hn::Mul(xc, hn::Set(d, 1.44269504088896341f)));
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), xc);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  V p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  const V y = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
  const auto bits =
      hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127)));
  const V scaled = hn::Mul(y, hn::BitCast(d, bits));
  return hn::IfThenZeroElse(hn::Lt(x, lo), scaled);
}

namespace math_detail {

// erf(x) / x = P(x^2) on [0, 1]: least-squares fit on Chebyshev nodes
// (scripted with mpmath); max relative error 1.4e-9.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ErfSmall(D d, V x) {
  const V s = hn::Mul(x, x);
  V p = hn::Set(d, 7.882497110e-05f);
  p = hn::MulAdd(p, s, hn::Set(d, -8.018854993e-04f));
  p = hn::MulAdd(p, s, hn::Set(d, 5.189311943e-03f));
  p = hn::MulAdd(p, s, hn::Set(d, -2.685432880e-02f));
  p = hn::MulAdd(p, s, hn::Set(d, 1.128359746e-01f));
  p = hn::MulAdd(p, s, hn::Set(d, -3.761262690e-01f));
  p = hn::MulAdd(p, s, hn::Set(d, 1.128379166e+00f));
  return hn::Mul(x, p);
}

// Q(s - 0.55) of ErfcLarge: a degree-9 fit of log(erfc(t) / s) + t^2 on s in
// [0.1, 1] (least squares on Chebyshev nodes, scripted with mpmath).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ErfcLargeQ(D d, V s) {
  const V u = hn::Sub(s, hn::Set(d, 0.55f));
  V q = hn::Set(d, -4.627121702e-02f);
  q = hn::MulAdd(q, u, hn::Set(d, 1.131933094e-01f));
  q = hn::MulAdd(q, u, hn::Set(d, -9.903297563e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, 2.212744536e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, 6.289182284e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, -1.358375874e-01f));
  q = hn::MulAdd(q, u, hn::Set(d, 1.690879675e-01f));
  q = hn::MulAdd(q, u, hn::Set(d, -9.781309662e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, -3.384764851e-01f));
  return hn::MulAdd(q, u, hn::Set(d, -6.884514089e-01f));
}

// erfc(t) = s exp(-t^2 + Q(s - 0.55)), s = 1 / t, for t >= 1. exp(-t^2) is
// taken as exp(-hi) exp(-lo) with t^2 = hi + lo exactly (FMA), so that the
// rounding of t^2 costs nothing. Max relative error of erfc 8e-8 before float
// rounding, ~4e-7 in float. t is clamped to 9 (erfc(9) = 4e-37): beyond it,
// exp(-t^2) would be a denormal, and each denormal lane costs a microcode
// assist (it doubled the cost of a GELU epilogue).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ErfcLarge(D d, V t) {
  t = hn::Min(t, hn::Set(d, 9.0f));  // no denormals: see above
  const V s = hn::Div(hn::Set(d, 1.0f), t);
  const V q = ErfcLargeQ(d, s);
  const V hi = hn::Mul(t, t);
  const V lo = hn::MulSub(t, t, hi);  // t * t - hi, exact
  const V e_hi = hn::Exp(d, hn::Neg(hi));
  const V e_rest = hn::Exp(d, hn::Sub(q, lo));
  return hn::Mul(s, hn::Mul(e_hi, e_rest));
}

}  // namespace math_detail

// erf(x), max relative error ~2 ulp (see the file comment).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Erf(D d, V x) {
  const V t = hn::Abs(x);
  const V small = math_detail::ErfSmall(d, t);
  const V large = hn::Sub(hn::Set(d, 1.0f), math_detail::ErfcLarge(d, t));
  const V r = hn::IfThenElse(hn::Lt(t, hn::Set(d, 1.0f)), small, large);
  return hn::CopySignToAbs(r, x);
}

// Exact GELU: 0.5 x (1 + erf(x / sqrt(2))) = 0.5 x erfc(-x / sqrt(2)), from
// one erfc for both signs: erfc(t) for t = |x| / sqrt(2) >= 0 with Numerical
// Recipes' erfcc (Chebyshev fit, fractional error < 1.2e-7 for all t >= 0):
//   erfc(t) = s exp(-t^2 - 1.26551223 + s P(s)),  s = 1 / (1 + t / 2),
// then GELU = x - 0.5 x erfc(t) for x >= 0 and 0.5 x erfc(t) for x < 0 (no
// cancellation in the negative tail), i.e. max(x, 0) - 0.5 |x| erfc(t) for
// both signs, without a blend. One ExpNonPositive (the argument is <= 0), a
// refined reciprocal estimate and 10 FMAs: this runs in a GEMM epilogue.
// Relative error ~5e-7 in float.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Gelu(D d, V x) {
  const V half = hn::Set(d, 0.5f);
  const V ax = hn::Abs(x);
  // t clamped to 9: beyond, exp(-t^2) would be a denormal (see ErfcLarge).
  const V t =
      hn::Min(hn::Mul(ax, hn::Set(d, 0.70710678118654752f)), hn::Set(d, 9.0f));
  const V den = hn::MulAdd(t, half, hn::Set(d, 1.0f));
  const V r0 = hn::ApproximateReciprocal(den);
  const V s = hn::Mul(r0, hn::NegMulAdd(den, r0, hn::Set(d, 2.0f)));
  V p = hn::Set(d, 0.17087277f);
  p = hn::MulAdd(p, s, hn::Set(d, -0.82215223f));
  p = hn::MulAdd(p, s, hn::Set(d, 1.48851587f));
  p = hn::MulAdd(p, s, hn::Set(d, -1.13520398f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.27886807f));
  p = hn::MulAdd(p, s, hn::Set(d, -0.18628806f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.09678418f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.37409196f));
  p = hn::MulAdd(p, s, hn::Set(d, 1.00002368f));
  p = hn::MulAdd(p, s, hn::Set(d, -1.26551223f));
  // -t^2 + p <= 0: erfc(t) <= 1 for t >= 0 (up to rounding near t = 0,
  // where the exponent is ~1e-7 and the clamp in ExpNonPositive is harmless).
  const V e = ExpNonPositive(d, hn::Min(hn::NegMulAdd(t, t, p), hn::Zero(d)));
  const V half_ax_erfc = hn::Mul(hn::Mul(half, ax), hn::Mul(s, e));
  return hn::Sub(hn::Max(x, hn::Zero(d)), half_ax_erfc);
}

// GELU with the tanh approximation, as x / (1 + exp(-2u)).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V GeluTanh(D d, V x) {
  const V x3 = hn::Mul(hn::Mul(x, x), x);
  const V u = hn::Mul(hn::Set(d, 0.79788456080286536f),
                      hn::MulAdd(hn::Set(d, 0.044715f), x3, x));
  const V e = HWY_NAMESPACE::Exp(d, hn::Mul(hn::Set(d, -2.0f), u));
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), e));
}

// SiLU (swish), x * sigmoid(x), as x / (1 + exp(-x)): exp(-x) overflows to
// a large finite value (Exp clamps at 88) for very negative x, giving -0.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Silu(D d, V x) {
  const V e = HWY_NAMESPACE::Exp(d, hn::Neg(x));
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), e));
}

// Activation kAct (an enc_activation) of v.
template <int kAct, class D, class V = hn::VFromD<D>>
HWY_INLINE V Activation(D d, V v) {
  if constexpr (kAct == ENC_ACT_RELU) {
    return hn::Max(v, hn::Zero(d));
  } else if constexpr (kAct == ENC_ACT_GELU) {
    return Gelu(d, v);
  } else if constexpr (kAct == ENC_ACT_GELU_TANH) {
    return GeluTanh(d, v);
  } else if constexpr (kAct == ENC_ACT_SILU) {
    return Silu(d, v);
  } else if constexpr (kAct == ENC_ACT_QUICK_GELU) {
    // x * sigmoid(1.702 x), as Silu computes it (CLIP's quick_gelu).
    const V e = HWY_NAMESPACE::Exp(d, hn::Mul(hn::Set(d, -1.702f), v));
    return hn::Div(v, hn::Add(hn::Set(d, 1.0f), e));
  } else if constexpr (kAct == ENC_ACT_TANH) {
    return HWY_NAMESPACE::Tanh(d, v);
  } else {
    static_assert(kAct == ENC_ACT_NONE, "an activation without a body");
    return v;
  }
}

// Calls f(std::integral_constant<int, act>()) for the activation `act`, which
// IsActivation has accepted: one instantiation per activation, and no switch
// inside the kernel's loop.
template <class F>
HWY_INLINE void WithActivation(int32_t act, const F& f) {
  switch (act) {
    case ENC_ACT_NONE:
      return f(std::integral_constant<int, ENC_ACT_NONE>());
#define ENC_ACTIVATION(A, LangName, Spelling, Formula) \
  case A:                                              \
    return f(std::integral_constant<int, A>());
#include "enc/activations.def"
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_MATH_INL_H_
