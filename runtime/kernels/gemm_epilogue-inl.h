// GEMM epilogues: what a tile does with its accumulators, in registers.
//
// An epilogue is a policy class, the template parameter Epi of the
// micro-kernel (kernels/gemm_tile-inl.h), with
//   using Shape = ...;                    its tile (TileShape);
//   static constexpr size_t kOutCols;     output columns per panel;
//   template <size_t kRows>
//   void Init(D d, const TileView& t, V (&acc)[kRows][Shape::kVecs]);
//       the accumulators of the first K block (terms folded in before any
//       partial sum overwrites Y);
//   template <size_t kRows, size_t kVecs>
//   void Finish(D d, const TileView& t, V (&acc)[kRows][kVecs]);
//       after the last K block: computes the tile's output from its
//       accumulators and stores it. FinishInGroups provides it, kFinishRows
//       rows at a time (their activations interleave; more rows at once
//       would spill), from the policy's Consts (the per-column vectors of a
//       tile, loaded once) and Group (one group of rows).
// A new epilogue (a per-row dequantisation scale) is a new policy and a new
// case in the GEMM's dispatch (gemm-inl.h).

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

// Vector v of a row of which all columns (kFull) or `cols` are valid.
template <bool kFull>
HWY_INLINE V LoadVec(D d, const float* row, size_t v, size_t cols) {
  if constexpr (kFull) {
    return hn::LoadU(d, row + v * kLanes);
  } else {
    return LoadCols(d, row, v, cols);
  }
}

template <bool kFull>
HWY_INLINE void StoreVec(V x, D d, float* row, size_t v, size_t cols) {
  if constexpr (kFull) {
    hn::StoreU(x, d, row + v * kLanes);
  } else {
    StoreCols(x, d, row, v, cols);
  }
}

// Finish for the policy Epi (CRTP): Epi::Consts<kFull>(d, t) once per tile,
// then Epi::Group<kRows, kFull, kR0>(d, t, acc, consts) for the rows
// [kR0, kR0 + kFinishRows) of each group, unrolled (constant indices keep the
// accumulators in registers).
template <class Epi>
struct FinishInGroups {
  template <size_t kRows, size_t kVecs>
  static HWY_INLINE void Finish(D d, const TileView& t,
                                V (&acc)[kRows][kVecs]) {
    using Groups =
        std::make_index_sequence<(kRows + kFinishRows - 1) / kFinishRows>;
    if (HWY_LIKELY(t.cols == Epi::kOutCols)) {
      Run<kRows, true>(d, t, acc, Groups());
    } else {
      Run<kRows, false>(d, t, acc, Groups());
    }
  }

 private:
  template <size_t kRows, bool kFull, size_t kVecs, size_t... kGroups>
  static HWY_INLINE void Run(D d, const TileView& t, V (&acc)[kRows][kVecs],
                             std::index_sequence<kGroups...>) {
    const auto consts = Epi::template Consts<kFull>(d, t);
    (Epi::template Group<kRows, kFull, kGroups * kFinishRows>(d, t, acc,
                                                              consts),
     ...);
  }
};

// Y = act(X W^T + bias) + residual. Without an activation, bias and residual
// start the accumulators instead (then residual may be Y itself: it is read
// before the first partial sum is stored).
template <int kAct>
struct BiasActResidual : FinishInGroups<BiasActResidual<kAct>> {
  using Shape = PlainTile;
  static constexpr size_t kVecs = Shape::kVecs;
  static constexpr size_t kOutCols = Shape::kPanel;

  template <size_t kRows>
  static HWY_INLINE void Init(D d, const TileView& t, V (&acc)[kRows][kVecs]) {
    for (size_t v = 0; v < kVecs; ++v) {
      const V b = kAct == ENC_ACT_NONE && t.bias
                      ? LoadCols(d, t.bias, v, t.cols)
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

  struct Bias {
    V v[kVecs];
  };
  template <bool kFull>
  static HWY_INLINE Bias Consts(D d, const TileView& t) {
    Bias bias;
    for (size_t v = 0; v < kVecs; ++v) {
      bias.v[v] = kAct != ENC_ACT_NONE && t.bias
                      ? LoadVec<kFull>(d, t.bias, v, t.cols)
                      : hn::Zero(d);
    }
    return bias;
  }

  template <size_t kRows, bool kFull, size_t kR0>
  static HWY_INLINE void Group(D d, const TileView& t, V (&acc)[kRows][kVecs],
                               const Bias& bias) {
    constexpr size_t kR1 = HWY_MIN(kRows, kR0 + kFinishRows);
    V o[kFinishRows][kVecs];
    for (size_t r = kR0; r < kR1; ++r) {
      for (size_t v = 0; v < kVecs; ++v) {
        o[r - kR0][v] = acc[r][v];
        if constexpr (kAct != ENC_ACT_NONE) {
          o[r - kR0][v] =
              Activation<kAct>(d, hn::Add(o[r - kR0][v], bias.v[v]));
        }
      }
    }
    for (size_t r = kR0; r < kR1; ++r) {
      float* y = t.y + static_cast<int64_t>(r) * t.ldy;
      for (size_t v = 0; v < kVecs; ++v) {
        V x = o[r - kR0][v];
        if (kAct != ENC_ACT_NONE && t.res) {
          x = hn::Add(
              x, LoadVec<kFull>(d, t.res + static_cast<int64_t>(r) * t.ldr, v,
                                t.cols));
        }
        StoreVec<kFull>(x, d, y, v, t.cols);
      }
    }
  }
};

// Y = act(X Wg^T + bias) * (X Wu^T + bias2), over a panel packed as kHalf
// gate vectors then kHalf up vectors of the same output columns
// (kernels/gemm.h): accumulator v < kHalf is a gate column block, v + kHalf
// the up block of the same outputs, so the product needs no shuffle. The
// output is half a panel wide; the biases go in here, with the activation.
template <int kAct>
struct GatedAct : FinishInGroups<GatedAct<kAct>> {
  using Shape = GatedTile;
  static constexpr size_t kVecs = Shape::kVecs;
  static constexpr size_t kHalf = kVecs / 2;
  static_assert(kVecs % 2 == 0, "a gated tile has gate and up halves");
  static constexpr size_t kOutCols = kHalf * kLanes;

  template <size_t kRows>
  static HWY_INLINE void Init(D d, const TileView&, V (&acc)[kRows][kVecs]) {
    for (size_t r = 0; r < kRows; ++r) {
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = hn::Zero(d);
    }
  }

  struct Biases {
    V gate[kHalf], up[kHalf];
  };
  template <bool kFull>
  static HWY_INLINE Biases Consts(D d, const TileView& t) {
    Biases b;
    for (size_t v = 0; v < kHalf; ++v) {
      b.gate[v] = t.bias ? LoadVec<kFull>(d, t.bias, v, t.cols) : hn::Zero(d);
      b.up[v] = t.bias2 ? LoadVec<kFull>(d, t.bias2, v, t.cols) : hn::Zero(d);
    }
    return b;
  }

  template <size_t kRows, bool kFull, size_t kR0>
  static HWY_INLINE void Group(D d, const TileView& t, V (&acc)[kRows][kVecs],
                               const Biases& b) {
    constexpr size_t kR1 = HWY_MIN(kRows, kR0 + kFinishRows);
    V o[kFinishRows][kHalf];
    for (size_t r = kR0; r < kR1; ++r) {
      for (size_t v = 0; v < kHalf; ++v) {
        V gate = hn::Add(acc[r][v], b.gate[v]);
        if constexpr (kAct != ENC_ACT_NONE) gate = Activation<kAct>(d, gate);
        o[r - kR0][v] = hn::Mul(gate, hn::Add(acc[r][kHalf + v], b.up[v]));
      }
    }
    for (size_t r = kR0; r < kR1; ++r) {
      float* y = t.y + static_cast<int64_t>(r) * t.ldy;
      for (size_t v = 0; v < kHalf; ++v) {
        StoreVec<kFull>(o[r - kR0][v], d, y, v, t.cols);
      }
    }
  }
};

}  // namespace gemm_detail
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_EPILOGUE_INL_H_
