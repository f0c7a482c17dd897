// GEMM epilogues: what a tile does with its accumulators, in registers.
//
// An epilogue is a policy class, the template parameter Epi of the
// micro-kernel (kernels/gemm_tile-inl.h), with two static members:
//   template <size_t kRows>
//   void Init(D d, const TileView& t, V (&acc)[kRows][kVecs]);
//       the accumulators of the first K block (terms folded in before any
//       partial sum overwrites Y);
//   template <size_t kRows>
//   void Finish(D d, const TileView& t, V (&acc)[kRows][kVecs]);
//       after the last K block: computes the tile's output from its
//       accumulators and stores it, kFinishRows rows at a time (their
//       activations interleave; more rows at once would spill).
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
#include <utility>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_tile-inl.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

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

  template <size_t kRows>
  static HWY_INLINE void Finish(D d, const TileView& t,
                                V (&acc)[kRows][kVecs]) {
    if (HWY_LIKELY(t.cols == kPanel)) {
      FinishRows<kRows, true>(d, t, acc, std::make_index_sequence<
                                             (kRows + kFinishRows - 1) /
                                             kFinishRows>());
    } else {
      FinishRows<kRows, false>(d, t, acc, std::make_index_sequence<
                                              (kRows + kFinishRows - 1) /
                                              kFinishRows>());
    }
  }

 private:
  // Rows [g * kFinishRows, ...) for each group g, unrolled (constant indices
  // keep the accumulators in registers).
  template <size_t kRows, bool kFull, size_t... kGroups>
  static HWY_INLINE void FinishRows(D d, const TileView& t,
                                    V (&acc)[kRows][kVecs],
                                    std::index_sequence<kGroups...>) {
    V bias[kVecs];
    for (size_t v = 0; v < kVecs; ++v) {
      bias[v] = kAct != ENC_ACT_NONE && t.bias ? Load<kFull>(d, t.bias, v, t.cols)
                                               : hn::Zero(d);
    }
    (FinishGroup<kRows, kFull, kGroups * kFinishRows>(d, t, acc, bias), ...);
  }

  template <size_t kRows, bool kFull, size_t kR0>
  static HWY_INLINE void FinishGroup(D d, const TileView& t,
                                     V (&acc)[kRows][kVecs],
                                     const V (&bias)[kVecs]) {
    constexpr size_t kR1 = HWY_MIN(kRows, kR0 + kFinishRows);
    V o[kFinishRows][kVecs];
    for (size_t r = kR0; r < kR1; ++r) {
      for (size_t v = 0; v < kVecs; ++v) {
        o[r - kR0][v] = acc[r][v];
        if constexpr (kAct != ENC_ACT_NONE) {
          o[r - kR0][v] = Activation<kAct>(d, hn::Add(o[r - kR0][v], bias[v]));
        }
      }
    }
    for (size_t r = kR0; r < kR1; ++r) {
      float* y = t.y + static_cast<int64_t>(r) * t.ldy;
      for (size_t v = 0; v < kVecs; ++v) {
        V x = o[r - kR0][v];
        if (kAct != ENC_ACT_NONE && t.res) {
          x = hn::Add(x, Load<kFull>(d, t.res + static_cast<int64_t>(r) * t.ldr,
                                     v, t.cols));
        }
        Store<kFull>(x, d, y, v, t.cols);
      }
    }
  }

  template <bool kFull>
  static HWY_INLINE V Load(D d, const float* row, size_t v, size_t cols) {
    if constexpr (kFull) {
      return hn::LoadU(d, row + v * kLanes);
    } else {
      return LoadCols(d, row, v, cols);
    }
  }

  template <bool kFull>
  static HWY_INLINE void Store(V x, D d, float* row, size_t v, size_t cols) {
    if constexpr (kFull) {
      hn::StoreU(x, d, row + v * kLanes);
    } else {
      StoreCols(x, d, row, v, cols);
    }
  }
};

}  // namespace gemm_detail
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_EPILOGUE_INL_H_
