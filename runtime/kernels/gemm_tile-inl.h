// The GEMM micro-kernel of one Highway target: its tile shape, and one row
// tile of Y computed across a run of W panels for one K block, the epilogue
// (a template parameter, see kernels/gemm_epilogue-inl.h) applied to the
// accumulators while they are in registers.

#if defined(ENC_KERNELS_GEMM_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_TILE_INL_H_
#undef ENC_KERNELS_GEMM_TILE_INL_H_
#else
#define ENC_KERNELS_GEMM_TILE_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/gemm_plan.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

constexpr size_t kLanes = hn::MaxLanes(D());

// A tile shape: kMr rows x kVecs vectors of accumulators, which with the
// kVecs vectors of a W panel row and one broadcast of X fill the register
// file. A panel is exactly one tile wide (kPanel columns): every W line
// fetched is used.
template <size_t kRows, size_t kVecsPerRow>
struct TileShape {
  static constexpr size_t kMr = kRows;
  static constexpr size_t kVecs = kVecsPerRow;
  static constexpr size_t kPanel = kVecs * kLanes;
  static_assert(kPanel <= kMaxGemmPanel, "pack.cc packs at most kMaxGemmPanel");
};

// The plain GEMM's tile, and the gated GEMM's: the latter holds gate and up
// columns of the same outputs, so its vectors per row are even (the first
// half gate, the second up; kernels/gemm_epilogue-inl.h).
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// 32 zmm: 8 x 3 = 24 accumulators + 3 + 1.
// (12 x 2, 14 x 2 and 6 x 4 measured the same or up to 8% slower on the
// BERT shapes, on a Xeon with 48 KiB L1 and 2 MiB L2.)
using PlainTile = TileShape<8, 3>;
// 3 vectors do not split in two; 6 x 4 = 24 accumulators + 4 + 1 keeps the
// register file as full, with 10 loads (4 W vectors, 6 broadcasts) per 24
// FMAs, where 12 x 2 would take 14 (2 + 12).
using GatedTile = TileShape<6, 4>;
#else
// 16 registers: 6 x 2 = 12 accumulators + 2 + 1 (6x16 on AVX2, as MLAS and
// BLIS use on FMA3 CPUs); the gated tile splits it 1 gate + 1 up vector.
using PlainTile = TileShape<6, 2>;
using GatedTile = TileShape<6, 2>;
#endif

// Rows whose epilogue runs at once (kernels/gemm_epilogue-inl.h): 2 x kVecs
// activations interleave, and fit the registers the stored rows release.
constexpr size_t kFinishRows = 2;

// Software prefetch distance along a panel, in K steps (panel rows).
constexpr int64_t kPrefetchRows = 24;
constexpr size_t kLineFloats = 64 / sizeof(float);

// One tile of Y, as the epilogue sees it.
struct TileView {
  float* y;  // (row 0, column 0) of the tile
  int64_t ldy;
  size_t cols;         // valid output columns: all of the tile's except in
                       // a last, partial panel
  const float* bias;   // at column 0, or null
  const float* bias2;  // the gated epilogue's up bias, at column 0, or null
  const float* res;    // at (row 0, column 0), or null
  int64_t ldr;
};

// Vector v of a row of which `cols` columns are valid. A vector past the
// valid columns is zero; a vector across the edge goes through a buffer, so
// nothing past the row is read (or written, in StoreCols).
HWY_INLINE V LoadCols(D d, const float* row, size_t v, size_t cols) {
  const size_t c0 = v * kLanes;
  if (HWY_LIKELY(c0 + kLanes <= cols)) return hn::LoadU(d, row + c0);
  HWY_ALIGN float buf[kLanes];
  hn::Store(hn::Zero(d), d, buf);
  for (size_t i = c0; i < cols; ++i) buf[i - c0] = row[i];
  return hn::Load(d, buf);
}

HWY_INLINE void StoreCols(V x, D d, float* row, size_t v, size_t cols) {
  const size_t c0 = v * kLanes;
  if (HWY_LIKELY(c0 + kLanes <= cols)) return hn::StoreU(x, d, row + c0);
  HWY_ALIGN float buf[kLanes];
  hn::Store(x, d, buf);
  for (size_t i = c0; i < cols; ++i) row[i] = buf[i - c0];
}

// Cache lines to bring into L2 ahead of use: `runs` runs of `run_lines`
// lines, `stride` bytes apart (the panels of the next W block). The
// micro-kernel issues a few per row tile, spread over its K steps, so that the
// next block streams in from memory while this one is computed (the
// hardware prefetcher alone leaves the first row tile of a block waiting).
struct PrefetchStream {
  const char* run = nullptr;  // the current run
  int64_t stride = 0;
  int64_t run_lines = 0;
  int64_t runs = 0;  // left, the current one included
  int64_t line = 0;  // next line of the current run

  HWY_INLINE bool Done() const { return runs <= 0; }
  HWY_INLINE void Next() {
    __builtin_prefetch(run + line * int64_t{64}, 0, 2);
    if (++line == run_lines) {
      line = 0;
      run += stride;
      --runs;
    }
  }
};

// One call of the micro-kernel: a row tile across panels [0, panels) of a
// chunk, for one K block. Between K blocks the tile's partial sums (kPanel
// columns per panel) wait in `part`: Y itself when the epilogue writes as
// many columns as a panel has, a scratch buffer when it writes fewer.
struct RowTileIo {
  const float* x;  // X at (row 0 of the tile, k0)
  int64_t ldx;
  const float* w;    // the chunk's first panel at row k0
  int64_t w_stride;  // floats from one panel to the next
  int64_t kc;
  float* y;  // Y at (row 0, output column 0 of the first panel)
  int64_t ldy;
  float* part;  // partial sums at (row 0, column 0 of the first panel)
  int64_t ldp;
  int64_t panels;
  size_t last_cols;    // valid output columns of the last panel
  bool first;          // the first K block: start from Epi::Init
  bool last;           // the last K block: finish with Epi::Finish
  const float* bias;   // at output column 0 of the first panel, or null
  const float* bias2;  // likewise (the gated epilogue's up bias), or null
  const float* res;  // at (row 0, output column 0 of the first panel), or null
  int64_t ldr;
  PrefetchStream* far;  // the next W block, shared by the row tiles
  int64_t far_lines;    // this tile's share of it
};

// Epi (kernels/gemm_epilogue-inl.h) names its tile shape, Epi::Shape, and the
// output columns of a panel, Epi::kOutCols: Shape::kPanel, or half of it for
// the gated epilogue.
template <class Epi, size_t kRows>
HWY_NOINLINE void RowTile(const RowTileIo& t) {
  using Shape = typename Epi::Shape;
  constexpr size_t kVecs = Shape::kVecs, kPanel = Shape::kPanel;
  constexpr int64_t kOut = static_cast<int64_t>(Epi::kOutCols);
  constexpr bool kPartsInY = Epi::kOutCols == kPanel;
  const D d;
  const float* HWY_RESTRICT x[kRows];
  for (size_t r = 0; r < kRows; ++r) x[r] = t.x + r * t.ldx;
  // The far prefetches, one every `segment` K steps.
  int64_t far_left = t.far != nullptr ? t.far_lines : 0;
  const int64_t steps = t.kc * t.panels;
  const int64_t segment =
      far_left > 0 ? std::max<int64_t>(1, steps / far_left) : t.kc;
  for (int64_t p = 0; p < t.panels; ++p) {
    TileView view;
    view.y = t.y + p * kOut;
    view.ldy = t.ldy;
    view.cols = p + 1 == t.panels ? t.last_cols : Epi::kOutCols;
    view.bias = t.bias ? t.bias + p * kOut : nullptr;
    view.bias2 = t.bias2 ? t.bias2 + p * kOut : nullptr;
    view.res = t.res ? t.res + p * kOut : nullptr;
    view.ldr = t.ldr;
    float* part = t.part + p * static_cast<int64_t>(kPanel);
    const size_t part_cols = kPartsInY ? view.cols : kPanel;

    V acc[kRows][kVecs];
    if (t.first) {
      Epi::template Init<kRows>(d, view, acc);
    } else {  // the partial sums of the earlier K blocks
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] = LoadCols(d, part + r * t.ldp, v, part_cols);
        }
      }
    }

    const float* HWY_RESTRICT b = t.w + p * t.w_stride;
    // K steps run in segments, one far prefetch after each.
    for (int64_t k = 0; k < t.kc;) {
      const int64_t k_end = std::min(t.kc, k + segment);
      for (; k < k_end; ++k, b += kPanel) {
        // The panel row kPrefetchRows steps ahead: past this panel's K block
        // it is the next panel's start, or harmlessly more of this one.
        for (size_t line = 0; line < kPanel; line += kLineFloats) {
          hwy::Prefetch(b + kPrefetchRows * static_cast<int64_t>(kPanel) +
                        line);
        }
        V bv[kVecs];
        for (size_t v = 0; v < kVecs; ++v) bv[v] = hn::Load(d, b + v * kLanes);
        for (size_t r = 0; r < kRows; ++r) {
          const V xr = hn::Set(d, x[r][k]);
          for (size_t v = 0; v < kVecs; ++v) {
            acc[r][v] = hn::MulAdd(xr, bv[v], acc[r][v]);
          }
        }
      }
      if (far_left > 0 && !t.far->Done()) {
        t.far->Next();
        --far_left;
      }
    }

    if (t.last) {
      Epi::template Finish<kRows>(d, view, acc);
    } else {
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          StoreCols(acc[r][v], d, part + r * t.ldp, v, part_cols);
        }
      }
    }
  }
}

using RowTileFn = void (*)(const RowTileIo&);

// RowTile<Epi, 1> ... RowTile<Epi, Epi::Shape::kMr>, indexed by rows - 1.
template <class Epi, size_t... kRowsMinus1>
constexpr std::array<RowTileFn, sizeof...(kRowsMinus1)> MakeRowTiles(
    std::index_sequence<kRowsMinus1...>) {
  return {{&RowTile<Epi, kRowsMinus1 + 1>...}};
}

}  // namespace gemm_detail
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_TILE_INL_H_
