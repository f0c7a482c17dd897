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

#include "kernels/gemm.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

constexpr size_t kLanes = hn::MaxLanes(D());

// The tile: kMr rows x kVecs vectors of accumulators, which with the kVecs
// vectors of a W panel row and one broadcast of X fill the register file.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// 32 zmm: 8 x 3 = 24 accumulators + 3 + 1.
// (12 x 2, 14 x 2 and 6 x 4 measured the same or up to 8% slower on the
// BERT shapes, on a Xeon with 48 KiB L1 and 2 MiB L2.)
constexpr size_t kVecs = 3;
constexpr size_t kMr = 8;
#else
// 16 registers: 6 x 2 = 12 accumulators + 2 + 1 (6x16 on AVX2, as MLAS and
// BLIS use on FMA3 CPUs).
constexpr size_t kVecs = 2;
constexpr size_t kMr = 6;
#endif
// Columns per tile and per packed panel: every W line fetched is used.
constexpr size_t kPanel = kVecs * kLanes;
static_assert(kPanel <= kMaxGemmPanel, "pack.cc packs at most kMaxGemmPanel");

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
  size_t cols;        // valid columns: kPanel except in a last, partial panel
  const float* bias;  // at column 0, or null
  const float* res;   // at (row 0, column 0), or null
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
// lines, `stride` floats apart (the panels of the next W block). The
// micro-kernel issues a few per row tile, spread over its K steps, so that the
// next block streams in from memory while this one is computed (the
// hardware prefetcher alone leaves the first row tile of a block waiting).
struct PrefetchStream {
  const float* run = nullptr;  // the current run
  int64_t stride = 0;
  int64_t run_lines = 0;
  int64_t runs = 0;  // left, the current one included
  int64_t line = 0;  // next line of the current run

  HWY_INLINE bool Done() const { return runs <= 0; }
  HWY_INLINE void Next() {
    __builtin_prefetch(run + line * static_cast<int64_t>(kLineFloats), 0, 2);
    if (++line == run_lines) {
      line = 0;
      run += stride;
      --runs;
    }
  }
};

// One call of the micro-kernel: a row tile across panels [0, panels) of a
// chunk, for one K block.
struct RowTileIo {
  const float* x;  // X at (row 0 of the tile, k0)
  int64_t ldx;
  const float* w;  // the chunk's first panel at row k0
  int64_t w_stride;  // floats from one panel to the next
  int64_t kc;
  float* y;  // Y at (row 0, column 0 of the first panel)
  int64_t ldy;
  int64_t panels;
  size_t last_cols;  // valid columns of the last panel
  bool first;        // the first K block: start from Epi::Init
  bool last;         // the last K block: finish with Epi::Finish
  const float* bias;  // at column 0 of the first panel, or null
  const float* res;   // at (row 0, column 0 of the first panel), or null
  int64_t ldr;
  PrefetchStream* far;  // the next W block, shared by the row tiles
  int64_t far_lines;    // this tile's share of it
};

template <class Epi, size_t kRows>
HWY_NOINLINE void RowTile(const RowTileIo& t) {
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
    view.y = t.y + p * static_cast<int64_t>(kPanel);
    view.ldy = t.ldy;
    view.cols = p + 1 == t.panels ? t.last_cols : kPanel;
    view.bias = t.bias ? t.bias + p * static_cast<int64_t>(kPanel) : nullptr;
    view.res = t.res ? t.res + p * static_cast<int64_t>(kPanel) : nullptr;
    view.ldr = t.ldr;

    V acc[kRows][kVecs];
    if (t.first) {
      Epi::template Init<kRows>(d, view, acc);
    } else {  // the partial sums of the earlier K blocks
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] = LoadCols(d, view.y + r * view.ldy, v, view.cols);
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
          hwy::Prefetch(b + kPrefetchRows * static_cast<int64_t>(kPanel) + line);
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
          StoreCols(acc[r][v], d, view.y + r * view.ldy, v, view.cols);
        }
      }
    }
  }
}

using RowTileFn = void (*)(const RowTileIo&);

// RowTile<Epi, 1> ... RowTile<Epi, kMr>, indexed by rows - 1.
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
