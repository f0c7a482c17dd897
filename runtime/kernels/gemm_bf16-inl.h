// The bf16 GEMM's SIMD body (Highway), compiled once per target: Y = X W^T
// with W stored bf16 (kernels/gemm_bf16.h: K pairs interleaved per column),
// X and the accumulators fp32, the fp32 GEMM's tile shape and epilogues
// (kernels/gemm_tile-inl.h, kernels/gemm_epilogue-inl.h).
//
// Widening kernel (every target): one load of a panel's K pair row gives, per
// 32-bit lane, w[k] in the low half and w[k + 1] in the high half; a shift
// left by 16 makes w[k] an fp32 and a mask of the low half makes w[k + 1] one,
// exactly (bf16 is the upper half of an fp32). The products are fp32 FMAs, as
// in the fp32 kernel: the weights read from memory halve, the arithmetic does
// not change, so the speed follows the memory bandwidth the fp32 GEMM needed.
//
// Dot kernel (AVX-512 targets, on CPUs with AVX512_BF16, checked at run time):
// vdpbf16ps multiplies bf16 pairs and adds both products to an fp32 lane, so
// the same packed pairs are used as they are and X is rounded to bf16 pairs
// (round to nearest even, RoundRowsBf16) once per call, on the thread pool.
// Twice the products per instruction; X loses its low 16 mantissa bits.
// (Rounding X inside each row tile, once per tile and K block in scalar
// code, cost as much as the products: the dot kernel ran at fp32's speed
// on one thread and at 0.6x of it on two.)
//
// AMX kernel (AVX3_DL, on CPUs with AMX-BF16, checked at run time): tdpbf16ps
// on 16-row tiles of the same X pairs and 16 x 16 tiles of the same W pairs
// (below: AmxBf16Format); the products and their fp32 sums as vdpbf16ps's.

#if defined(ENC_KERNELS_GEMM_BF16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_BF16_INL_H_
#undef ENC_KERNELS_GEMM_BF16_INL_H_
#else
#define ENC_KERNELS_GEMM_BF16_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/gemm_bf16.h"
#include "kernels/gemm_driver-inl.h"
#include "kernels/gemm_epilogue-inl.h"
#include "kernels/gemm_tile-inl.h"
#include "kernels/math-inl.h"

#if HWY_TARGET == HWY_AVX3_DL
#include "kernels/amx.h"
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>
#define ENC_GEMM_BF16_DOT 1
#else
#define ENC_GEMM_BF16_DOT 0
#endif

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace bf16_detail {

namespace hn = hwy::HWY_NAMESPACE;
using gemm_detail::D;
using gemm_detail::kLanes;
// The fp32 GEMM's plain tile: the bf16 tile shares its epilogue
// (kernels/gemm_epilogue-inl.h), and with it the shape.
constexpr size_t kMr = gemm_detail::PlainTile::kMr;
constexpr size_t kVecs = gemm_detail::PlainTile::kVecs;
constexpr size_t kPanel = gemm_detail::PlainTile::kPanel;
using gemm_detail::LoadCols;
using gemm_detail::StoreCols;
using gemm_detail::TileView;
using gemm_detail::V;
using DU = hn::RebindToUnsigned<D>;

// Pair rows (kPanel u32 each) prefetched ahead along a panel.
constexpr int64_t kPrefetchPairs = 16;
constexpr int64_t kLineWords = 64 / sizeof(uint32_t);

// One call of a micro-kernel: a row tile across the panels of a chunk for
// one K block [k0, k0 + kc), k0 even.
struct TileIo {
  const float* x;  // X at (row 0 of the tile, k0)
  int64_t ldx;
  const uint32_t* xb;  // the dot kernel's X pairs at (row 0, pair k0 / 2)
  int64_t ldxb;
  const uint32_t* w;  // the chunk's first panel at pair k0 / 2
  int64_t w_stride;   // u32 from one panel to the next
  int64_t kc;
  float* y;
  int64_t ldy;
  int64_t panels;
  size_t last_cols;
  bool first, last;
  const float* bias;
  const float* res;
  int64_t ldr;
};

HWY_INLINE TileView ViewOf(const TileIo& t, int64_t p) {
  TileView view;
  view.y = t.y + p * static_cast<int64_t>(kPanel);
  view.ldy = t.ldy;
  view.cols = p + 1 == t.panels ? t.last_cols : kPanel;
  view.bias = t.bias ? t.bias + p * static_cast<int64_t>(kPanel) : nullptr;
  view.res = t.res ? t.res + p * static_cast<int64_t>(kPanel) : nullptr;
  view.ldr = t.ldr;
  return view;
}

// A tile's edge over K (kStart: its beginning, else its end). Between K
// blocks the partial sums wait in Y: a first block starts from the
// epilogue's Init and a last one ends in its Finish; the others load the
// earlier blocks' sums from Y, or store theirs there.
template <class Epi, size_t kRows, bool kStart>
HWY_INLINE void TileEdge(D d, const TileView& view, bool outermost,
                         V (&acc)[kRows][kVecs]) {
  if (outermost) {
    if constexpr (kStart) {
      Epi::template Init<kRows>(d, view, acc);
    } else {
      Epi::template Finish<kRows>(d, view, acc);
    }
    return;
  }
  for (size_t r = 0; r < kRows; ++r) {
    float* row = view.y + r * view.ldy;
    for (size_t v = 0; v < kVecs; ++v) {
      if constexpr (kStart) {
        acc[r][v] = LoadCols(d, row, v, view.cols);
      } else {
        StoreCols(acc[r][v], d, row, v, view.cols);
      }
    }
  }
}
template <class Epi, size_t kRows>
HWY_INLINE void StartTile(D d, const TileView& view, bool first,
                          V (&acc)[kRows][kVecs]) {
  TileEdge<Epi, kRows, true>(d, view, first, acc);
}
template <class Epi, size_t kRows>
HWY_INLINE void EndTile(D d, const TileView& view, bool last,
                        V (&acc)[kRows][kVecs]) {
  TileEdge<Epi, kRows, false>(d, view, last, acc);
}

// acc += x[r][kk] * (the panel row of one K step, widened), every row r.
template <size_t kRows>
HWY_INLINE void Step(const V (&w)[kVecs], const float* HWY_RESTRICT const* x,
                     int64_t kk, V (&acc)[kRows][kVecs]) {
  const D d;
  for (size_t r = 0; r < kRows; ++r) {
    const V xr = hn::Set(d, x[r][kk]);
    for (size_t v = 0; v < kVecs; ++v)
      acc[r][v] = hn::MulAdd(xr, w[v], acc[r][v]);
  }
}

template <class Epi, size_t kRows>
HWY_NOINLINE void RowTileWiden(const TileIo& t) {
  const D d;
  const DU du;
  const auto high = hn::Set(du, 0xFFFF0000u);
  const float* HWY_RESTRICT x[kRows];
  for (size_t r = 0; r < kRows; ++r) x[r] = t.x + r * t.ldx;
  const int64_t pairs = t.kc / 2;
  for (int64_t p = 0; p < t.panels; ++p) {
    const TileView view = ViewOf(t, p);
    V acc[kRows][kVecs];
    StartTile<Epi, kRows>(d, view, t.first, acc);
    const uint32_t* HWY_RESTRICT b = t.w + p * t.w_stride;
    V w[kVecs];
    for (int64_t q = 0; q < pairs; ++q, b += kPanel) {
      for (size_t line = 0; line < kPanel; line += kLineWords) {
        hwy::Prefetch(b + kPrefetchPairs * static_cast<int64_t>(kPanel) + line);
      }
      for (size_t v = 0; v < kVecs; ++v) {
        w[v] = hn::BitCast(d, hn::ShiftLeft<16>(hn::Load(du, b + v * kLanes)));
      }
      Step<kRows>(w, x, 2 * q, acc);
      for (size_t v = 0; v < kVecs; ++v) {
        w[v] = hn::BitCast(d, hn::And(hn::Load(du, b + v * kLanes), high));
      }
      Step<kRows>(w, x, 2 * q + 1, acc);
    }
    if (t.kc & 1) {  // odd K: the last pair's high half is padding
      for (size_t v = 0; v < kVecs; ++v) {
        w[v] = hn::BitCast(d, hn::ShiftLeft<16>(hn::Load(du, b + v * kLanes)));
      }
      Step<kRows>(w, x, 2 * pairs, acc);
    }
    EndTile<Epi, kRows>(d, view, t.last, acc);
  }
}

#if ENC_GEMM_BF16_DOT
// vdpbf16ps on the packed pairs and X rounded to bf16 pairs. Compiled for
// AVX512_BF16 on top of the target's own instructions (clang replaces the
// target's feature list with a function's own, so the list is spelled out in
// full: the target's helpers inline into it); called only when the CPU has it
// (CpuHasAvx512Bf16).
template <class Epi, size_t kRows>
__attribute__((target(HWY_TARGET_STR ",avx512bf16"))) HWY_NOINLINE void
RowTileDot(const TileIo& t) {
  const D d;
  const int64_t pairs = (t.kc + 1) / 2;
  const uint32_t* HWY_RESTRICT xb[kRows];
  for (size_t r = 0; r < kRows; ++r) xb[r] = t.xb + r * t.ldxb;
  for (int64_t p = 0; p < t.panels; ++p) {
    const TileView view = ViewOf(t, p);
    V acc[kRows][kVecs];
    StartTile<Epi, kRows>(d, view, t.first, acc);
    const uint32_t* HWY_RESTRICT b = t.w + p * t.w_stride;
    for (int64_t q = 0; q < pairs; ++q, b += kPanel) {
      for (size_t line = 0; line < kPanel; line += kLineWords) {
        hwy::Prefetch(b + kPrefetchPairs * static_cast<int64_t>(kPanel) + line);
      }
      __m512bh w[kVecs];
      for (size_t v = 0; v < kVecs; ++v) {
        w[v] = reinterpret_cast<__m512bh>(_mm512_load_si512(b + v * kLanes));
      }
      for (size_t r = 0; r < kRows; ++r) {
        const __m512bh xr = reinterpret_cast<__m512bh>(
            _mm512_set1_epi32(static_cast<int>(xb[r][q])));
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v].raw = _mm512_dpbf16_ps(acc[r][v].raw, xr, w[v]);
        }
      }
    }
    EndTile<Epi, kRows>(d, view, t.last, acc);
  }
}
#endif  // ENC_GEMM_BF16_DOT

// The bf16 formats, widening (kDot false) or vdpbf16ps: W in bf16 pairs, X
// fp32 as the tile reads it (the dot tile rounds its own copy), K blocks
// even (a pair never straddles two) and, for the dot tile, at most its X
// buffer's length.
template <bool kDot>
struct Bf16Format
    : gemm_detail::FormatTraits<sizeof(float), sizeof(uint16_t), 2,
                                /*kBlocks=*/true, /*kFar=*/false> {
  using Call = Bf16Args;

  template <class Epi, size_t kTileRows>
  static void Tile(const Bf16Args& a, const gemm_detail::TileJob& j) {
    const TileIo t = Io(a, j);
#if ENC_GEMM_BF16_DOT
    if constexpr (kDot) return RowTileDot<Epi, kTileRows>(t);
#endif
    RowTileWiden<Epi, kTileRows>(t);
  }

  // The tile's view of a call and a job.
  static TileIo Io(const Bf16Args& a, const gemm_detail::TileJob& j) {
    constexpr int64_t kP = static_cast<int64_t>(kPanel);
    const int64_t kpairs = a.kpairs;
    TileIo t;
    t.x = a.x + j.m * a.ldx + j.k0;
    t.ldx = a.ldx;
    t.xb = a.xb ? a.xb + j.m * a.ldxb + j.k0 / 2 : nullptr;
    t.ldxb = a.ldxb;
    t.w_stride = kpairs * kP;
    t.w = a.w + j.pc0 * t.w_stride + j.k0 / 2 * kP;
    t.kc = j.kc;
    t.y = a.y + j.m * a.ldy + j.pc0 * kP;
    t.ldy = a.ldy;
    t.panels = j.panels;
    t.last_cols = j.last_cols;
    t.first = j.first;
    t.last = j.last;
    t.bias = a.bias ? a.bias + j.pc0 * kP : nullptr;
    t.res = a.residual ? a.residual + j.m * a.ldr + j.pc0 * kP : nullptr;
    t.ldr = a.ldr;
    return t;
  }
};

#if HWY_TARGET == HWY_AVX3_DL
// ---- AMX (kernels/amx.h) ---------------------------------------------------
// The same panels with pairs padded to whole tiles (16 pairs, 32 K steps)
// and X in bf16 pairs, multiplied by tdpbf16ps. A tile of Y is 16 rows x one
// panel (3 tiles of 16 columns): tmm0..2 accumulate, tmm3 holds 16 rows of
// X, tmm4..6 the panel's 3 W tiles of the same K. K blocks are whole tiles;
// between them the partial sums wait in Y, as the other tiles' do.
constexpr size_t kAmxRows = 16;
constexpr int64_t kAmxPairs = 16;  // pairs per tile
static_assert(kPanel == 48, "the AMX tile holds a panel as 3 tiles of 16");

// Rows [kR0, kR0 + kR) of a tile: the earlier K blocks' partial sums (or the
// epilogue's start) plus this block's sums in acc, then stored or finished.
template <class Epi, size_t kR0, size_t kR>
HWY_INLINE void AmxFinishRows(const TileIo& t, int64_t p, const float* acc) {
  if constexpr (kR > 0) {
    const D d;
    TileView view = ViewOf(t, p);
    view.y += kR0 * view.ldy;
    if (view.res) view.res += kR0 * view.ldr;
    V sums[kR][kVecs];
    StartTile<Epi, kR>(d, view, t.first, sums);
    for (size_t r = 0; r < kR; ++r) {
      for (size_t v = 0; v < kVecs; ++v) {
        sums[r][v] = hn::Add(
            sums[r][v], hn::Load(d, acc + (kR0 + r) * kPanel + v * kLanes));
      }
    }
    EndTile<Epi, kR>(d, view, t.last, sums);
  }
}

template <class Epi, size_t kTileRows>
HWY_NOINLINE void AmxRowTile(const TileIo& t) {
  static_assert(kTileRows <= kAmxRows, "a tile is 16 rows");
  static const AmxTileConfig config = FullTiles();
  AmxLoadConfig(config);
  HWY_ALIGN float acc[kAmxRows * kPanel];
  // The pairs of this K block, up to the tile's zero padding past k.
  const int64_t pairs =
      ((t.kc + 1) / 2 + kAmxPairs - 1) / kAmxPairs * kAmxPairs;
  // The epilogue in groups of at most 8 rows (as the register tile's).
  constexpr size_t kFirst = kTileRows < 8 ? kTileRows : 8;
  for (int64_t p = 0; p < t.panels; ++p) {
    AmxPanelSums<AmxDot::kBf16>(t.xb,
                                t.ldxb * static_cast<int64_t>(sizeof(uint32_t)),
                                t.w + p * t.w_stride, pairs / kAmxPairs, acc);
    AmxFinishRows<Epi, 0, kFirst>(t, p, acc);
    AmxFinishRows<Epi, kFirst, kTileRows - kFirst>(t, p, acc);
  }
}

// The AMX bf16 format: the dot format's call and panels, 16-row tiles, X read
// as bf16 pairs (2 bytes per K step), K blocks of whole tiles.
struct AmxBf16Format : Bf16Format<true> {
  template <class Shape>
  static constexpr size_t kRows = kAmxRows;
  static constexpr int64_t kXBytes = sizeof(uint16_t);
  static constexpr int64_t kKStep = 2 * kAmxPairs;

  template <class Epi, size_t kTileRows>
  static void Tile(const Bf16Args& a, const gemm_detail::TileJob& j) {
    AmxRowTile<Epi, kTileRows>(Io(a, j));
  }
};
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace bf16_detail

// This target's bf16 GEMM: the panel width of its fp32 tile, and the dot
// kernel where the target has one, the CPU has AVX512_BF16 and `widen_only`
// does not ask for the widening kernel.
Bf16Kernel GetBf16Kernel(bool widen_only) {
  Bf16Kernel k;
  k.target = HWY_TARGET;
  k.panel = static_cast<int64_t>(bf16_detail::kPanel);
  k.rows = static_cast<int64_t>(bf16_detail::kMr);
  k.dot = false;
  k.block = &gemm_detail::RunWithActivation<bf16_detail::Bf16Format<false>,
                                            gemm_detail::BiasActResidual>;
#if ENC_GEMM_BF16_DOT
  if (!widen_only && CpuHasAvx512Bf16()) {
    k.dot = true;
    k.block = &gemm_detail::RunWithActivation<bf16_detail::Bf16Format<true>,
                                              gemm_detail::BiasActResidual>;
  }
#else
  (void)widen_only;
#endif
  return k;
}

// This target's AMX bf16 GEMM: AVX3_DL only; elsewhere a kernel whose block
// is null (gemm_bf16.cc then takes GetBf16Kernel's).
Bf16Kernel GetAmxBf16Kernel() {
  Bf16Kernel k{};
#if HWY_TARGET == HWY_AVX3_DL
  k.target = HWY_TARGET;
  k.panel = static_cast<int64_t>(bf16_detail::kPanel);
  k.rows = static_cast<int64_t>(bf16_detail::kAmxRows);
  k.block = &gemm_detail::RunWithActivation<bf16_detail::AmxBf16Format,
                                            gemm_detail::BiasActResidual>;
  k.group_multiple = bf16_detail::kAmxPairs;
  k.pad_rows = static_cast<int64_t>(bf16_detail::kAmxRows) - 1;
  k.dot = true;  // X in bf16 pairs, as the tile reads it
#endif
  return k;
}

// Rows [r0, r1) of X [.., k] (row stride ldx) rounded to bf16 as Bf16Bits
// rounds (to nearest even, a NaN stays a NaN), stored in pairs as W's are:
// xb + r * ldxb, ldxb >= (k + 1) / 2 words, zero past an odd k.
void RoundRowsBf16(const float* x, int64_t ldx, int64_t k, int64_t r0,
                   int64_t r1, uint32_t* xb, int64_t ldxb) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Rebind<uint16_t, decltype(du)> d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  const auto one = hn::Set(du, 1u), bias = hn::Set(du, 0x7FFFu);
  const auto abs_mask = hn::Set(du, 0x7FFFFFFFu);
  const auto inf = hn::Set(du, 0x7F800000u), quiet = hn::Set(du, 0x40u);
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = x + r * ldx;
    auto* out = reinterpret_cast<uint16_t*>(xb + r * ldxb);
    int64_t i = 0;
    for (; i + lanes <= k; i += lanes) {
      const auto u =
          hn::BitCast(du, hn::LoadU(hn::ScalableTag<float>(), row + i));
      const auto high = hn::ShiftRight<16>(u);
      const auto rounded =
          hn::ShiftRight<16>(hn::Add(u, hn::Add(bias, hn::And(high, one))));
      const auto nan = hn::Gt(hn::And(u, abs_mask), inf);
      const auto bits = hn::IfThenElse(nan, hn::Or(high, quiet), rounded);
      hn::StoreU(hn::TruncateTo(d16, bits), d16, out + i);
    }
    for (; i < k; ++i) out[i] = Bf16Bits(row[i]);
    for (; i < 2 * ldxb; ++i) out[i] = 0;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#undef ENC_GEMM_BF16_DOT
#endif  // ENC_KERNELS_GEMM_BF16_INL_H_
