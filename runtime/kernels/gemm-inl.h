// The fp32 GEMM's SIMD body (Highway), compiled once per target: the fp32
// weight format of the one GEMM driver (kernels/gemm_driver-inl.h), whose
// micro-tile is the register-blocked kernel of kernels/gemm_tile-inl.h over
// the packed panels of kernels/gemm.h, with a pluggable epilogue
// (kernels/gemm_epilogue-inl.h).
//
// The same format runs the gated GEMM (enc_gemm_gated), whose panels hold gate
// and up columns of the same outputs and whose epilogue writes half a panel.
//
// In BLIS terms with X as the broadcast operand: the micro-kernel keeps a
// kMr x kPanel tile of Y in registers; per step k it loads the kVecs vectors
// of one W panel row (prefetched ahead) and broadcasts kMr elements of X. A
// panel is exactly one tile wide, so every cache line of W that is fetched is
// used. The blocks around it are the plan's (kernels/gemm_plan.h).

#if defined(ENC_KERNELS_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_INL_H_
#undef ENC_KERNELS_GEMM_INL_H_
#else
#define ENC_KERNELS_GEMM_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

#include "kernels/gemm_driver-inl.h"
#include "kernels/gemm_epilogue-inl.h"
#include "kernels/gemm_fp32.h"
#include "kernels/gemm_tile-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

// The fp32 format: W in fp32 panels (kernels/gemm.h), X read as it is, the
// register tile of kernels/gemm_tile-inl.h.
struct Fp32Format : FormatTraits<sizeof(float), sizeof(float), 1,
                                 /*kBlocks=*/true, /*kFar=*/true> {
  using Call = GemmArgs;

  template <class Shape>
  static const char* WeightsAt(const GemmArgs& a, int64_t panel, int64_t k0) {
    constexpr int64_t kPanel = Shape::kPanel;
    return reinterpret_cast<const char*>(a.w + panel * a.k * kPanel +
                                         k0 * kPanel);
  }
  template <class Shape>
  static int64_t PanelBytes(const GemmArgs& a) {
    return a.k * static_cast<int64_t>(Shape::kPanel * sizeof(float));
  }

  template <class Epi, size_t kTileRows>
  static void Tile(const GemmArgs& a, const TileJob& j) {
    constexpr int64_t kPanel = Epi::Shape::kPanel, kOut = Epi::kOutCols;
    RowTileIo t;
    t.x = a.x + j.m * a.ldx + j.k0;
    t.ldx = a.ldx;
    t.w = a.w + j.pc0 * a.k * kPanel + j.k0 * kPanel;
    t.w_stride = a.k * kPanel;
    t.kc = j.kc;
    t.y = a.y + j.m * a.ldy + j.pc0 * kOut;
    t.ldy = a.ldy;
    t.part = j.part != nullptr ? j.part : t.y;
    t.ldp = j.part != nullptr ? j.ldp : a.ldy;
    t.panels = j.panels;
    t.last_cols = j.last_cols;
    t.first = j.first;
    t.last = j.last;
    t.bias = a.bias ? a.bias + j.pc0 * kOut : nullptr;
    t.bias2 = a.bias2 ? a.bias2 + j.pc0 * kOut : nullptr;
    t.res = a.residual ? a.residual + j.m * a.ldr + j.pc0 * kOut : nullptr;
    t.ldr = a.ldr;
    t.far = j.far;
    t.far_lines = j.far_lines;
    RowTile<Epi, kTileRows>(t);
  }
};

}  // namespace gemm_detail

// This target's GEMMs and the packed layouts they read.
GemmKernel GetGemmKernel() {
  using namespace gemm_detail;  // NOLINT: the tiles, format and epilogues
  GemmKernel kernel;
  kernel.plain = {HWY_TARGET,
                  static_cast<int64_t>(PlainTile::kPanel),
                  static_cast<int64_t>(PlainTile::kMr),
                  &RunWithActivation<Fp32Format, BiasActResidual>,
                  1,
                  0};
  kernel.gated = {HWY_TARGET,
                  static_cast<int64_t>(GatedTile::kPanel),
                  static_cast<int64_t>(GatedTile::kMr),
                  &RunWithActivation<Fp32Format, GatedAct>,
                  1,
                  0};
  return kernel;
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_INL_H_
