// SIMD bodies of the elementwise kernels (activation, add) over rows.
#if defined(ENC_KERNELS_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_ELEMENTWISE_INL_H_
#undef ENC_KERNELS_ELEMENTWISE_INL_H_
#else
#define ENC_KERNELS_ELEMENTWISE_INL_H_
#endif

#include <stdint.h>

#include <hwy/highway.h>

#include "enc/kernels/gemm.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V>
HWY_INLINE V Activate(D d, int32_t act, V v) {
  switch (act) {
    case ENC_ACT_RELU: return hn::Max(v, hn::Zero(d));
    case ENC_ACT_GELU: return Gelu(d, v);
    case ENC_ACT_GELU_TANH: return GeluTanh(d, v);
    default: return v;
  }
}

inline void ActivationRows(int32_t act, int64_t rows, int64_t d,
                           const float* x, int64_t ld_x, float* y,
                           int64_t ld_y) {
  const hn::ScalableTag<float> df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ld_x;
    float* yr = y + r * ld_y;
    int64_t i = 0;
    for (; i + n <= d; i += n) {
      hn::StoreU(Activate(df, act, hn::LoadU(df, xr + i)), df, yr + i);
    }
    if (i < d) {  // the tail through a zero-padded vector (no LoadN in 1.0)
      HWY_ALIGN float tail[hn::MaxLanes(df)] = {};
      for (int64_t k = i; k < d; ++k) tail[k - i] = xr[k];
      hn::Store(Activate(df, act, hn::Load(df, tail)), df, tail);
      for (int64_t k = i; k < d; ++k) yr[k] = tail[k - i];
    }
  }
}

inline void AddRows(int64_t rows, int64_t d, const float* a, int64_t ld_a,
                    const float* b, int64_t ld_b, float* y, int64_t ld_y) {
  const hn::ScalableTag<float> df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * ld_a;
    const float* br = b + r * ld_b;
    float* yr = y + r * ld_y;
    int64_t i = 0;
    for (; i + n <= d; i += n) {
      hn::StoreU(hn::Add(hn::LoadU(df, ar + i), hn::LoadU(df, br + i)), df,
                 yr + i);
    }
    for (; i < d; ++i) yr[i] = ar[i] + br[i];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_ELEMENTWISE_INL_H_
