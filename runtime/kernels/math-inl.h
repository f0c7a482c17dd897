// Vector math for the kernels (Highway): Exp, Tanh, Erf, Gelu, GeluTanh.
//
// Include this from another foo-inl.h (inside its per-target section); the
// functions live in enc::HWY_NAMESPACE. Call Exp and Tanh qualified
// (HWY_NAMESPACE::Exp): argument-dependent lookup also finds hwy's own. Accuracy, float32, measured against a
// float64 reference over the whole float range of interest:
//   Exp       hwy/contrib/math (max ~1 ulp), 0 below -104; clamp x <= 88.
//   Tanh      hwy/contrib/math (max ~3 ulp).
//   Erf       ours, see below: max relative error 1.4e-9 (x < 1) and, for
//             x >= 1, 8e-8 in erfc before float rounding; in float ~2 ulp of
//             erf, and erfc (used by Gelu's negative tail) to ~4e-7.
//   Gelu      0.5 x (1 + erf(x / sqrt 2)), for x < 0 through erfc, so without
//             cancellation, and with a cheaper erfc (one Exp, no division):
//             relative error ~1e-6 (~1.5e-6 in the far negative tail).
//   GeluTanh  0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi)(x +
//             0.044715 x^3): relative error ~3e-7.

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(ENC_KERNELS_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_MATH_INL_H_
#undef ENC_KERNELS_MATH_INL_H_
#else
#define ENC_KERNELS_MATH_INL_H_
#endif

#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

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

// erfc(t) = s exp(-t^2 + Q(s - 0.55)), s = 1 / t, for t >= 1. t is clamped to
// 9 (erfc(9) = 4e-37): beyond it, exp(-t^2) would be a denormal, which costs
// a microcode assist per lane (it made a GELU epilogue 4x slower). Q: a degree-9 fit of
// log(erfc(t) / s) + t^2 on s in [0.1, 1]. exp(-t^2) is taken as
// exp(-hi) exp(-lo) with t^2 = hi + lo exactly (FMA), so that the rounding of
// t^2 costs nothing. Max relative error of erfc 8e-8 before float rounding,
// ~4e-7 in float.
// Q(s - 0.55) of ErfcLarge; s = 1 / t.
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

// ErfcLarge with one Exp and no division, for Gelu (where erfc is scaled by
// x / 2): t^2 is rounded (relative error of erfc up to 1.5e-6 at t = 4, where
// erfc(4) = 1.5e-8) and 1 / t is a refined reciprocal estimate.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ErfcLargeFast(D d, V t) {
  t = hn::Min(t, hn::Set(d, 9.0f));  // no denormals: see above
  const V r0 = hn::ApproximateReciprocal(t);
  // One Newton step: r0 (2 - t r0); r0 has >= 12 bits, the result ~23.
  const V s = hn::Mul(r0, hn::NegMulAdd(t, r0, hn::Set(d, 2.0f)));
  const V q = ErfcLargeQ(d, s);
  return hn::Mul(s, hn::Exp(d, hn::NegMulAdd(t, t, q)));
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

// Exact GELU: 0.5 x (1 + erf(x / sqrt(2))). For x < 0, 1 + erf(z) is
// evaluated as erfc(|z|) so that the negative tail keeps its relative accuracy.
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V Gelu(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V z = hn::Mul(x, hn::Set(d, 0.70710678118654752f));
  const V t = hn::Abs(z);
  const V erf_small = math_detail::ErfSmall(d, t);
  const V erfc_large = math_detail::ErfcLargeFast(d, t);
  const auto is_small = hn::Lt(t, one);
  // erf(|z|) and erfc(|z|).
  const V erf_t = hn::IfThenElse(is_small, erf_small, hn::Sub(one, erfc_large));
  const V erfc_t = hn::IfThenElse(is_small, hn::Sub(one, erf_small), erfc_large);
  // 1 + erf(z): 1 + erf(|z|) for z >= 0, erfc(|z|) for z < 0.
  const V one_plus = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), erfc_t,
                                    hn::Add(one, erf_t));
  return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), one_plus);
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

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_MATH_INL_H_
