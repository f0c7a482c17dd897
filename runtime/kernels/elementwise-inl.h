// SIMD bodies of the elementwise kernels (activation, add, mul) over rows. The
// activations are math-inl.h's.
#if defined(ENC_KERNELS_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_ELEMENTWISE_INL_H_
#undef ENC_KERNELS_ELEMENTWISE_INL_H_
#else
#define ENC_KERNELS_ELEMENTWISE_INL_H_
#endif

#include <stdint.h>

#include <hwy/highway.h>

#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int kAct>
HWY_INLINE void ActivationRowsOf(int64_t rows, int64_t d, const float* x,
                                 int64_t ld_x, float* y, int64_t ld_y) {
  const hn::ScalableTag<float> df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ld_x;
    float* yr = y + r * ld_y;
    int64_t i = 0;
    for (; i + n <= d; i += n) {
      hn::StoreU(Activation<kAct>(df, hn::LoadU(df, xr + i)), df, yr + i);
    }
    if (i < d) {  // the tail through a zero-padded vector (no LoadN in 1.0)
      HWY_ALIGN float tail[hn::MaxLanes(df)] = {};
      for (int64_t k = i; k < d; ++k) tail[k - i] = xr[k];
      hn::Store(Activation<kAct>(df, hn::Load(df, tail)), df, tail);
      for (int64_t k = i; k < d; ++k) yr[k] = tail[k - i];
    }
  }
}

inline void ActivationRows(int32_t act, int64_t rows, int64_t d, const float* x,
                           int64_t ld_x, float* y, int64_t ld_y) {
  WithActivation(act, [&](auto kind) {
    ActivationRowsOf<decltype(kind)::value>(rows, d, x, ld_x, y, ld_y);
  });
}

// y = op(a, b) over rows, op being Add or Mul (its vector and scalar forms).
template <class VecOp, class ScalarOp>
HWY_INLINE void BinaryRows(int64_t rows, int64_t d, const float* a,
                           int64_t ld_a, const float* b, int64_t ld_b, float* y,
                           int64_t ld_y, VecOp vec_op, ScalarOp scalar_op) {
  const hn::ScalableTag<float> df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * ld_a;
    const float* br = b + r * ld_b;
    float* yr = y + r * ld_y;
    int64_t i = 0;
    for (; i + n <= d; i += n) {
      hn::StoreU(vec_op(hn::LoadU(df, ar + i), hn::LoadU(df, br + i)), df,
                 yr + i);
    }
    for (; i < d; ++i) yr[i] = scalar_op(ar[i], br[i]);
  }
}

inline void AddRows(int64_t rows, int64_t d, const float* a, int64_t ld_a,
                    const float* b, int64_t ld_b, float* y, int64_t ld_y) {
  BinaryRows(
      rows, d, a, ld_a, b, ld_b, y, ld_y,
      [](auto u, auto v) { return hn::Add(u, v); },
      [](float u, float v) { return u + v; });
}

inline void MulRows(int64_t rows, int64_t d, const float* a, int64_t ld_a,
                    const float* b, int64_t ld_b, float* y, int64_t ld_y) {
  BinaryRows(
      rows, d, a, ld_a, b, ld_b, y, ld_y,
      [](auto u, auto v) { return hn::Mul(u, v); },
      [](float u, float v) { return u * v; });
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_ELEMENTWISE_INL_H_
