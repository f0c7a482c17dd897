// LayerNorm / RMSNorm row kernels (SIMD body, compiled once per target).
//
// Statistics are computed in float with several vector accumulators (so each
// lane sums a short, strided part of the row) and in two passes: a shifted
// mean (shift = the row's first value, so a large common offset cancels
// exactly), then the corrected two-pass variance sum(dev^2) - sum(dev)^2/d.
// A constant row gives dev == 0 exactly, hence y == beta. Pass 2 and the
// output pass read the row again (from L1/L2), never a stored copy. A row
// whose float sums overflow (values beyond ~1e19) is redone in double.

#ifndef ENC_KERNELS_NORM_ARGS_
#define ENC_KERNELS_NORM_ARGS_
#include <stdint.h>
#include <stddef.h>

namespace enc {
struct NormArgs {
  int32_t kind;  // enc_norm_kind
  int64_t rows, d;
  const float* x;
  int64_t ld_x;
  const float* gamma;
  const float* beta;  // or nullptr
  float eps;
  float* y;
  int64_t ld_y;
};
}  // namespace enc
#endif  // ENC_KERNELS_NORM_ARGS_

#if defined(ENC_KERNELS_NORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_NORM_INL_H_
#undef ENC_KERNELS_NORM_INL_H_
#else
#define ENC_KERNELS_NORM_INL_H_
#endif

#include <cmath>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One row of x.
struct RowSrc {
  const float* HWY_RESTRICT x;
  template <class D>
  HWY_INLINE hn::Vec<D> Load(D d, size_t i) const {
    return hn::LoadU(d, x + i);
  }
  HWY_INLINE float At(size_t i) const { return x[i]; }
};

// Sum over the row of f(v) where f is applied to vectors and scalars.
template <class Src, class FV, class FS>
HWY_INLINE float RowSum(const Src& src, size_t n, const FV& fv, const FS& fs) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    a0 = hn::Add(a0, fv(src.Load(d, i)));
    a1 = hn::Add(a1, fv(src.Load(d, i + N)));
    a2 = hn::Add(a2, fv(src.Load(d, i + 2 * N)));
    a3 = hn::Add(a3, fv(src.Load(d, i + 3 * N)));
  }
  for (; i + N <= n; i += N) a0 = hn::Add(a0, fv(src.Load(d, i)));
  a0 = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
  float sum = hn::GetLane(hn::SumOfLanes(d, a0));
  float tail = 0.0f;
  for (; i < n; ++i) tail += fs(src.At(i));
  return sum + tail;
}

// The row in double, for rows whose float statistics overflowed: squares of
// values above ~1.8e19 exceed FLT_MAX, while in double no finite float row
// can overflow (d * FLT_MAX^2 < DBL_MAX). Off the fast path: only such rows
// (or rows holding inf / NaN, which give NaN either way) come here.
HWY_NOINLINE void NormRowDouble(const NormArgs& a, const RowSrc& src,
                                float* HWY_RESTRICT y) {
  const size_t n = static_cast<size_t>(a.d);
  double mean = 0.0;
  if (a.kind != 1) {
    for (size_t i = 0; i < n; ++i) mean += src.At(i);
    mean /= static_cast<double>(n);
  }
  double ss = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double dev = src.At(i) - mean;
    ss += dev * dev;
  }
  const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(n) + a.eps);
  for (size_t i = 0; i < n; ++i) {
    const double v = (src.At(i) - mean) * rstd * a.gamma[i];
    y[i] = static_cast<float>(a.beta != nullptr && a.kind != 1 ? v + a.beta[i]
                                                               : v);
  }
}

HWY_INLINE void NormRow(const NormArgs& a, const RowSrc& src,
                        float* HWY_RESTRICT y) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t n = static_cast<size_t>(a.d);
  const float* HWY_RESTRICT gamma = a.gamma;
  const float* HWY_RESTRICT beta = a.beta;
  const float inv_n = 1.0f / static_cast<float>(n);
  if (a.kind == 1) {  // RMSNorm
    const float ss = RowSum(
        src, n, [](hn::Vec<decltype(d)> v) { return hn::Mul(v, v); },
        [](float v) { return v * v; });
    if (!std::isfinite(ss)) return NormRowDouble(a, src, y);
    const float rs = 1.0f / std::sqrt(ss * inv_n + a.eps);
    const auto vrs = hn::Set(d, rs);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto v = hn::Mul(src.Load(d, i), vrs);
      hn::StoreU(hn::Mul(v, hn::LoadU(d, gamma + i)), d, y + i);
    }
    for (; i < n; ++i) y[i] = src.At(i) * rs * gamma[i];
    return;
  }
  // LayerNorm. The mean is kept as shift + mdev (shift = the first value):
  // v - shift is exact for values near the shift, so a large common offset
  // costs no precision, and a constant row gives dev == 0 exactly.
  const float shift = src.At(0);
  const auto vshift = hn::Set(d, shift);
  const float s1 = RowSum(
      src, n, [&](hn::Vec<decltype(d)> v) { return hn::Sub(v, vshift); },
      [&](float v) { return v - shift; });
  const float mdev = s1 * inv_n;
  const auto vmdev = hn::Set(d, mdev);
  auto dev_v = [&](hn::Vec<decltype(d)> v) {
    return hn::Sub(hn::Sub(v, vshift), vmdev);
  };
  auto dev_s = [&](float v) { return (v - shift) - mdev; };
  float s2, sc;  // sum(dev^2) and sum(dev), in one pass
  {
    auto q0 = hn::Zero(d), q1 = hn::Zero(d), c0 = hn::Zero(d), c1 = hn::Zero(d);
    size_t i = 0;
    for (; i + 2 * N <= n; i += 2 * N) {
      const auto e0 = dev_v(src.Load(d, i));
      const auto e1 = dev_v(src.Load(d, i + N));
      q0 = hn::MulAdd(e0, e0, q0);
      q1 = hn::MulAdd(e1, e1, q1);
      c0 = hn::Add(c0, e0);
      c1 = hn::Add(c1, e1);
    }
    for (; i + N <= n; i += N) {
      const auto e0 = dev_v(src.Load(d, i));
      q0 = hn::MulAdd(e0, e0, q0);
      c0 = hn::Add(c0, e0);
    }
    s2 = hn::GetLane(hn::SumOfLanes(d, hn::Add(q0, q1)));
    sc = hn::GetLane(hn::SumOfLanes(d, hn::Add(c0, c1)));
    float t2 = 0.0f, tc = 0.0f;
    for (; i < n; ++i) {
      const float e = dev_s(src.At(i));
      t2 += e * e;
      tc += e;
    }
    s2 += t2;
    sc += tc;
  }
  float var = (s2 - sc * sc * inv_n) * inv_n;
  if (!std::isfinite(s1) || !std::isfinite(var))
    return NormRowDouble(a, src, y);
  if (!(var > 0.0f)) var = 0.0f;
  const float rstd = 1.0f / std::sqrt(var + a.eps);
  const auto vrstd = hn::Set(d, rstd);
  size_t i = 0;
  if (beta != nullptr) {
    for (; i + N <= n; i += N) {
      const auto v = hn::Mul(dev_v(src.Load(d, i)), vrstd);
      hn::StoreU(hn::MulAdd(v, hn::LoadU(d, gamma + i), hn::LoadU(d, beta + i)),
                 d, y + i);
    }
    for (; i < n; ++i) y[i] = dev_s(src.At(i)) * rstd * gamma[i] + beta[i];
  } else {
    for (; i + N <= n; i += N) {
      const auto v = hn::Mul(dev_v(src.Load(d, i)), vrstd);
      hn::StoreU(hn::Mul(v, hn::LoadU(d, gamma + i)), d, y + i);
    }
    for (; i < n; ++i) y[i] = dev_s(src.At(i)) * rstd * gamma[i];
  }
}

// Normalises rows [begin, end).
HWY_INLINE void NormRange(const NormArgs& a, int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    NormRow(a, RowSrc{a.x + row * a.ld_x}, a.y + row * a.ld_y);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_NORM_INL_H_
