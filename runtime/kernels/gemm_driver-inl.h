// The one GEMM driver (Highway, compiled once per target): the cache-blocked
// walk over one (rows x panels) block of Y, for every weight format. The
// blocks come from the one plan (kernels/gemm_plan.h: BlockingFor); what a
// format brings is its micro-tile and its costs.
//
// A weight format is a class F with
//   using Call = ...;   one validated call: at least n, k (and, for an
//                       epilogue narrower than its panels, ldy);
//   template <class Shape> static constexpr size_t kRows;
//                       rows of its micro-tile for the epilogue's tile shape;
//   static constexpr int64_t kXBytes, kWBytes, kKStep, kMaxKc;
//   static constexpr bool kBlocksK, kFarPrefetch;   (kernels/gemm_plan.h's
//                       GemmCosts, and whether the tile takes far prefetches)
//   template <class Epi, size_t kTileRows>
//   static void Tile(const Call&, const TileJob&);
//                       kTileRows rows of Y at job.m across the job's panels
//                       for one K block, with epilogue Epi
//                       (kernels/gemm_epilogue-inl.h) after the last;
//   template <class Shape>
//   static const char* WeightsAt(const Call&, int64_t panel, int64_t k0);
//   template <class Shape>
//   static int64_t PanelBytes(const Call&);
//                       where its W panels lie (with kFarPrefetch only).
//
// Walk: M block > panel chunk > K block > row tile (> panel, in the tile).
// The W slice of a chunk stays in L2 across the row tiles of an M block, the
// X slice of a row tile in L1 across the panels of a chunk; partial sums wait
// in Y between K blocks (or in a per-thread buffer when the epilogue writes
// fewer columns than a panel holds). While the row tiles compute one W block
// they prefetch the next one in this order (kFarPrefetch).

#if defined(ENC_KERNELS_GEMM_DRIVER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_DRIVER_INL_H_
#undef ENC_KERNELS_GEMM_DRIVER_INL_H_
#else
#define ENC_KERNELS_GEMM_DRIVER_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

#include "kernels/gemm_plan.h"
#include "kernels/gemm_tile-inl.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

// The costs and traits a format states (above), as one base: the rows of
// its tile default to the epilogue shape's, and a tile sets no K limit of
// its own unless it overrides kMaxKc.
template <int64_t kX, int64_t kW, int64_t kStep, bool kBlocks, bool kFar>
struct FormatTraits {
  template <class Shape>
  static constexpr size_t kRows = Shape::kMr;
  static constexpr int64_t kXBytes = kX, kWBytes = kW;
  static constexpr int64_t kKStep = kStep, kMaxKc = 0;
  static constexpr bool kBlocksK = kBlocks, kFarPrefetch = kFar;
};

// One call of a format's micro-tile: its rows of Y start at row m; it
// covers panels [pc0, pc0 + panels) for K steps [k0, k0 + kc).
struct TileJob {
  int64_t m;
  int64_t pc0, panels;
  int64_t k0, kc;
  size_t last_cols;  // valid output columns of the last panel of the run
  bool first;        // the first K block: start from Epi::Init
  bool last;         // the last K block: finish with Epi::Finish
  float* part;       // partial sums at (row m, panel pc0), or null: in Y
  int64_t ldp;
  PrefetchStream* far;  // the next W block (kFarPrefetch), or null
  int64_t far_lines;    // this tile's share of it
};

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

// F's costs for the tile shape of Epi, as the plan reads them.
template <class F, class Epi>
constexpr GemmCosts CostsOf() {
  using Shape = typename Epi::Shape;
  return GemmCosts{static_cast<int64_t>(F::template kRows<Shape>),
                   static_cast<int64_t>(Shape::kPanel),
                   F::kXBytes,
                   F::kWBytes,
                   F::kKStep,
                   F::kMaxKc,
                   F::kBlocksK};
}

template <class F, class Epi>
using TileFn = void (*)(const typename F::Call&, const TileJob&);

// F::Tile<Epi, 1> ... F::Tile<Epi, kRows>, indexed by rows - 1.
template <class F, class Epi, size_t... kRowsMinus1>
constexpr std::array<TileFn<F, Epi>, sizeof...(kRowsMinus1)> TilesOf(
    std::index_sequence<kRowsMinus1...>) {
  return {{&F::template Tile<Epi, kRowsMinus1 + 1>...}};
}

// Y rows [m0, m1) x panels [p0, p1) of one call of format F, epilogue Epi.
// Returns false (and computes nothing) only if the partial-sum buffer cannot
// be allocated.
template <class F, class Epi>
bool RunBlock(const typename F::Call& c, int64_t m0, int64_t m1, int64_t p0,
              int64_t p1) {
  using Shape = typename Epi::Shape;
  constexpr size_t kTileRows = F::template kRows<Shape>;
  constexpr int64_t kMr = kTileRows, kPanel = Shape::kPanel;
  constexpr int64_t kOut = Epi::kOutCols;
  constexpr GemmCosts kCosts = CostsOf<F, Epi>();
  static constexpr std::array<TileFn<F, Epi>, kTileRows> kTiles =
      TilesOf<F, Epi>(std::make_index_sequence<kTileRows>());
  const GemmBlocking bl = BlockingFor(kCosts, c.k, m1 - m0);
  const int64_t last_cols = c.n - (c.n - 1) / kOut * kOut;
  const int64_t last_panel = (c.n - 1) / kOut;
  // Partial sums between K blocks: in Y when a panel's outputs are as wide
  // as the panel, else in a buffer of (M block x chunk) panels.
  float* part = nullptr;
  int64_t ldp = 0;
  if constexpr (kOut != kPanel) {
    if (bl.kc < c.k) {
      ldp = std::min(bl.chunk, p1 - p0) * kPanel;
      part = PartialSums(static_cast<size_t>(std::min(bl.mc, m1 - m0) * ldp));
      if (part == nullptr) return false;
    }
  }

  struct Step {
    int64_t mc0, pc0, k0;
  };
  auto next_step = [&](Step s) {
    s.k0 += bl.kc;
    if (s.k0 < c.k) return s;
    s.k0 = 0;
    s.pc0 += bl.chunk;
    if (s.pc0 < p1) return s;
    s.pc0 = p0;
    s.mc0 += bl.mc;
    return s;
  };
  // The W block of step s, as cache-line runs to prefetch.
  auto w_block = [&](const Step& s) {
    PrefetchStream stream;
    if constexpr (F::kFarPrefetch) {
      if (s.mc0 >= m1) return stream;  // nothing follows
      const int64_t kc = std::min(bl.kc, c.k - s.k0);
      stream.run = F::template WeightsAt<Shape>(c, s.pc0, s.k0);
      stream.stride = F::template PanelBytes<Shape>(c);
      stream.run_lines = (kc * kPanel * F::kWBytes + 63) / 64;
      stream.runs = std::min(p1, s.pc0 + bl.chunk) - s.pc0;
    }
    return stream;
  };
  for (Step s{m0, p0, 0}; s.mc0 < m1; s = next_step(s)) {
    const int64_t mc1 = std::min(m1, s.mc0 + bl.mc);
    const int64_t pc1 = std::min(p1, s.pc0 + bl.chunk);
    PrefetchStream far = w_block(next_step(s));
    const int64_t tiles = (mc1 - s.mc0 + kMr - 1) / kMr;
    TileJob job;
    job.pc0 = s.pc0;
    job.panels = pc1 - s.pc0;
    job.k0 = s.k0;
    job.kc = std::min(bl.kc, c.k - s.k0);
    job.last_cols =
        pc1 - 1 == last_panel ? static_cast<size_t>(last_cols) : kOut;
    job.first = s.k0 == 0;
    job.last = s.k0 + job.kc == c.k;
    job.ldp = ldp;
    job.far = F::kFarPrefetch ? &far : nullptr;
    job.far_lines = (far.runs * far.run_lines + tiles - 1) / tiles;
    for (int64_t m = s.mc0, rows = 0; m < mc1; m += rows) {
      // Full tiles, except that a short last tile (fewer than kMr / 2 rows:
      // too few accumulators to hide the latency) shares the rows of the
      // one before it (6 + 2 -> 4 + 4).
      const int64_t left = mc1 - m;
      rows = left > kMr && left - kMr < kMr / 2 ? (left + 1) / 2
                                                : std::min(kMr, left);
      job.m = m;
      job.part = part != nullptr ? part + (m - s.mc0) * ldp : nullptr;
      kTiles[rows - 1](c, job);
    }
  }
  return true;
}

// RunBlock with the epilogue Epi<act> of the call's activation (c.act, which
// the call's validation has checked): the block function of a format's
// kernel (FormatBlockFn).
template <class F, template <int> class Epi>
bool RunWithActivation(const typename F::Call& c, int64_t m0, int64_t m1,
                       int64_t p0, int64_t p1) {
  bool ok = false;
  WithActivation(c.act, [&](auto act) {
    ok = RunBlock<F, Epi<decltype(act)::value>>(c, m0, m1, p0, p1);
  });
  return ok;
}

}  // namespace gemm_detail
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_DRIVER_INL_H_
