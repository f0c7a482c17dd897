// The GEMM's SIMD body (Highway), compiled once per target: the tile shape of
// the target, a register-blocked micro-kernel over the packed W panels of
// kernels/gemm.h with a pluggable epilogue (kernels/gemm_epilogue-inl.h), and
// the cache-blocked loop over one (rows x panels) block of Y.
//
// The same loop runs the gated GEMM (enc_gemm_gated), whose panels hold gate
// and up columns of the same outputs and whose epilogue writes half a panel.
//
// Blocking, in BLIS terms with X as the broadcast operand: the micro-kernel
// keeps a kMr x kPanel tile of Y in registers; per step k it loads the kVecs
// vectors of one W panel row (prefetched ahead) and broadcasts kMr elements of
// X. A panel is exactly one tile wide, so every cache line of W that is
// fetched is used. The kMr x kc slice of X stays in L1 while it sweeps the W
// panels of a chunk; the kc x (chunk of panels) slice of W stays in L2 while
// every row tile of an M block sweeps it. kc, the chunk and the M block come
// from the CPU's cache sizes (src/cpu_caches.h). Y holds the partial sums
// between K blocks, and the epilogue runs on the registers after the last.

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

#include "kernels/gemm.h"
#include "kernels/gemm_epilogue-inl.h"
#include "kernels/gemm_tile-inl.h"
#include "src/cpu_caches.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

// Block sizes for one call, from the cache sizes.
struct Blocking {
  int64_t kc;     // K block
  int64_t chunk;  // panels per chunk
  int64_t mc;     // rows per M block (a multiple of kMr)
};

template <class Shape>
HWY_INLINE Blocking BlockingFor(int64_t k) {
  constexpr size_t kMr = Shape::kMr, kPanel = Shape::kPanel;
  const CacheSizes& cache = GetCacheSizes();
  constexpr int64_t kFloat = sizeof(float);
  Blocking b;
  // The X slice of a row tile (kMr x kc) takes at most half of L1; the rest
  // holds the W panel rows in flight and the tile's Y rows. K is cut into
  // equal blocks (no short last block).
  const int64_t kc_max =
      std::max<int64_t>(64, cache.l1d / 2 / (int64_t{kMr} * kFloat));
  const int64_t k_blocks = (k + kc_max - 1) / kc_max;
  b.kc = (k + k_blocks - 1) / k_blocks;
  // L2 holds the W slice of the chunk being computed (kc x chunk panels),
  // the next one streaming in, and the X slice of the M block (mc x kc): a
  // quarter each. (A half for W, and no prefetch of the next slice, measured
  // 2-10% slower with the weights coming from memory, as in a model.)
  b.chunk = std::max<int64_t>(1, cache.l2 / 4 / (b.kc * kPanel * kFloat));
  b.mc = std::max<int64_t>(1, cache.l2 / 4 / (b.kc * kFloat) / kMr) * kMr;
  return b;
}

// The calling thread's buffer of partial sums for an epilogue whose output
// is narrower than its panels (GatedAct): at least `floats`, grown as needed,
// kept for the thread's next call.
inline float* PartialSums(size_t floats) {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<float, Free> buffer;
  thread_local size_t capacity = 0;
  if (floats > capacity) {
    buffer.reset();
    const size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    buffer.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    capacity = buffer ? floats : 0;
  }
  return buffer.get();
}

// Y rows [m0, m1) x panels [p0, p1), with epilogue Epi. Returns false (and
// computes nothing) only if the partial-sum buffer cannot be allocated.
template <class Epi>
bool Block(const GemmArgs& a, int64_t m0, int64_t m1, int64_t p0, int64_t p1) {
  using Shape = typename Epi::Shape;
  constexpr int64_t kMr = Shape::kMr, kPanel = Shape::kPanel;
  constexpr int64_t kOut = Epi::kOutCols;
  static constexpr std::array<RowTileFn, kMr> kTiles =
      MakeRowTiles<Epi>(std::make_index_sequence<kMr>());
  Blocking bl = BlockingFor<Shape>(a.k);
  // Rows whose X slice (rows x kc) fits in half of L2 make one M block (a
  // sequence of 128 at BERT's widths): the W slices are then streamed once,
  // not once per M block.
  const int64_t rows_up = (m1 - m0 + kMr - 1) / kMr * kMr;
  if (rows_up > bl.mc && rows_up * bl.kc * int64_t{sizeof(float)} <=
                             GetCacheSizes().l2 / 2) {
    bl.mc = rows_up;
  }
  const int64_t last_cols = a.n - (a.n - 1) / kOut * kOut;
  const int64_t last_panel = (a.n - 1) / kOut;
  // Partial sums between K blocks: in Y when a panel's outputs are as wide
  // as the panel, else in a buffer of (M block x chunk) panels.
  float* part = nullptr;
  int64_t ldp = a.ldy;
  if (kOut != kPanel && bl.kc < a.k) {
    ldp = std::min(bl.chunk, p1 - p0) * kPanel;
    part = PartialSums(static_cast<size_t>(std::min(bl.mc, m1 - m0) * ldp));
    if (part == nullptr) return false;
  }

  // M block > panel chunk > K block > row tile (> panel, in the tile): the W
  // slice of a chunk stays in L2 across row tiles, the X slice of a row tile
  // in L1 across panels; Y holds the partial sums across K blocks. While the
  // row tiles compute one W block, they prefetch the next one in this order.
  struct Step {
    int64_t mc0, pc0, k0;
  };
  auto next_step = [&](Step s) {
    s.k0 += bl.kc;
    if (s.k0 < a.k) return s;
    s.k0 = 0;
    s.pc0 += bl.chunk;
    if (s.pc0 < p1) return s;
    s.pc0 = p0;
    s.mc0 += bl.mc;
    return s;
  };
  auto w_block = [&](const Step& s) {
    PrefetchStream stream;
    if (s.mc0 >= m1) return stream;  // nothing follows
    const int64_t kc = std::min(bl.kc, a.k - s.k0);
    stream.run = a.w + s.pc0 * a.k * kPanel + s.k0 * kPanel;
    stream.stride = a.k * kPanel;
    stream.run_lines = (kc * kPanel + kLineFloats - 1) / kLineFloats;
    stream.runs = std::min(p1, s.pc0 + bl.chunk) - s.pc0;
    return stream;
  };
  for (Step s{m0, p0, 0}; s.mc0 < m1; s = next_step(s)) {
    const int64_t mc1 = std::min(m1, s.mc0 + bl.mc);
    const int64_t pc1 = std::min(p1, s.pc0 + bl.chunk);
    PrefetchStream far = w_block(next_step(s));
    const int64_t tiles = (mc1 - s.mc0 + kMr - 1) / kMr;
    RowTileIo t;
    t.ldx = a.ldx;
    t.w = a.w + s.pc0 * a.k * kPanel + s.k0 * kPanel;
    t.w_stride = a.k * kPanel;
    t.kc = std::min(bl.kc, a.k - s.k0);
    t.ldy = a.ldy;
    t.ldp = ldp;
    t.panels = pc1 - s.pc0;
    t.last_cols =
        pc1 - 1 == last_panel ? static_cast<size_t>(last_cols) : kOut;
    t.first = s.k0 == 0;
    t.last = s.k0 + t.kc == a.k;
    t.bias = a.bias ? a.bias + s.pc0 * kOut : nullptr;
    t.bias2 = a.bias2 ? a.bias2 + s.pc0 * kOut : nullptr;
    t.ldr = a.ldr;
    t.far = &far;
    t.far_lines = (far.runs * far.run_lines + tiles - 1) / tiles;
    for (int64_t m = s.mc0, rows = 0; m < mc1; m += rows) {
      // Full tiles, except that a short last tile (fewer than kMr / 2 rows:
      // too few accumulators to hide the FMA latency) shares the rows of the
      // one before it (6 + 2 -> 4 + 4).
      const int64_t left = mc1 - m, mr = kMr;
      rows = left > mr && left - mr < mr / 2 ? (left + 1) / 2
                                             : std::min(mr, left);
      t.x = a.x + m * a.ldx + s.k0;
      t.y = a.y + m * a.ldy + s.pc0 * kOut;
      t.part = part != nullptr ? part + (m - s.mc0) * ldp : t.y;
      t.res = a.residual ? a.residual + m * a.ldr + s.pc0 * kOut : nullptr;
      kTiles[rows - 1](t);
    }
  }
  return true;
}

}  // namespace gemm_detail

// Rows [m0, m1) and panels [p0, p1) of one enc_gemm call on this target.
bool GemmBlock(const GemmArgs& a, int64_t m0, int64_t m1, int64_t p0,
               int64_t p1) {
  using gemm_detail::BiasActResidual;
  using gemm_detail::Block;
  bool ok = false;
  WithActivation(a.act, [&](auto act) {
    ok = Block<BiasActResidual<decltype(act)::value>>(a, m0, m1, p0, p1);
  });
  return ok;
}

// Likewise for one enc_gemm_gated call.
bool GatedBlock(const GemmArgs& a, int64_t m0, int64_t m1, int64_t p0,
                int64_t p1) {
  using gemm_detail::Block;
  using gemm_detail::GatedAct;
  bool ok = false;
  WithActivation(a.act, [&](auto act) {
    ok = Block<GatedAct<decltype(act)::value>>(a, m0, m1, p0, p1);
  });
  return ok;
}

// This target's GEMMs and the packed layouts they read.
GemmKernel GetGemmKernel() {
  using gemm_detail::GatedTile;
  using gemm_detail::PlainTile;
  GemmKernel kernel;
  kernel.plain = {HWY_TARGET, static_cast<int64_t>(PlainTile::kPanel),
                  static_cast<int64_t>(PlainTile::kMr), &GemmBlock};
  kernel.gated = {HWY_TARGET, static_cast<int64_t>(GatedTile::kPanel),
                  static_cast<int64_t>(GatedTile::kMr), &GatedBlock};
  return kernel;
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_INL_H_
