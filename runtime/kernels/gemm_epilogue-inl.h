// GEMM epilogues: what a tile does with its accumulators, in registers.
//
// An epilogue is a policy class, the template parameter Epi of the
// micro-kernel (kernels/gemm_tile-inl.h), with two static members:
//   template <size_t kRows>
//   void Init(D d, const TileView& t, V (&acc)[kRows][kVecs]);
//       the accumulators of the first K block (terms folded in before any
//       partial sum overwrites Y);
//   void Finish(D d, const TileView& t, size_t r, V (&acc)[kVecs]);
//       row r after the last K block: computes the row's output from its
//       kVecs accumulators and stores it (one row at a time, so that an
//       expensive activation has the registers the other rows release).
// A new epilogue (a gated activation over two halves of a panel, a per-row
// dequantisation scale) is a new policy and a new case in GemmBlock.

#if defined(ENC_KERNELS_GEMM_EPILOGUE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_EPILOGUE_INL_H_
#undef ENC_KERNELS_GEMM_EPILOGUE_INL_H_
#else
#define ENC_KERNELS_GEMM_EPILOGUE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_tile-inl.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

template <int kAct>
HWY_INLINE V Activate(D d, V v) {
  if constexpr (kAct == ENC_ACT_RELU) {
    return hn::Max(v, hn::Zero(d));
  } else if constexpr (kAct == ENC_ACT_GELU) {
    return Gelu(d, v);
  } else if constexpr (kAct == ENC_ACT_GELU_TANH) {
    return GeluTanh(d, v);
  } else {
    return v;
  }
}

// Y = act(X W^T + bias) + residual. Without an activation, bias and residual
// start the accumulators instead (then residual may be Y itself: it is read
// before the first partial sum is stored).
template <int kAct>
struct BiasActResidual {
  template <size_t kRows>
  static HWY_INLINE void Init(D d, const TileView& t,
                              V (&acc)[kRows][kVecs]) {
    for (size_t v = 0; v < kVecs; ++v) {
      const V b = kAct == ENC_ACT_NONE && t.bias ? LoadCols(d, t.bias, v, t.cols)
                                                 : hn::Zero(d);
      for (size_t r = 0; r < kRows; ++r) acc[r][v] = b;
    }
    if (kAct == ENC_ACT_NONE && t.res) {
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] =
              hn::Add(acc[r][v], LoadCols(d, t.res + r * t.ldr, v, t.cols));
        }
      }
    }
  }

  static HWY_INLINE void Finish(D d, const TileView& t, size_t r,
                                V (&acc)[kVecs]) {
    float* y = t.y + static_cast<int64_t>(r) * t.ldy;
    for (size_t v = 0; v < kVecs; ++v) {
      V o = acc[v];
      if constexpr (kAct != ENC_ACT_NONE) {
        if (t.bias) o = hn::Add(o, LoadCols(d, t.bias, v, t.cols));
        o = Activate<kAct>(d, o);
        if (t.res) {
          o = hn::Add(o, LoadCols(d, t.res + static_cast<int64_t>(r) * t.ldr,
                                  v, t.cols));
        }
      }
      StoreCols(o, d, y, v, t.cols);
    }
  }
};

}  // namespace gemm_detail
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_EPILOGUE_INL_H_
