// The GEMM's blocking plan and its split over the thread pool
// (kernels/gemm_plan.h), shared by every weight format.
#include "kernels/gemm_plan.h"

#include <algorithm>
#include <cstdint>

#include "enc/kernels/threads.h"
#include "src/cpu_caches.h"
#include "src/threads.h"

namespace enc {
namespace {

// Multiply-adds per thread below which another thread costs more than it
// saves: the wake-up and join of a pool loop are a few microseconds, about
// 0.5 M multiply-adds on one core. (The smallest GEMM of tiny b1s128,
// 128 x 128 x 128 = 2 M, runs faster on 2 threads than on 1 in gemm_bench.)
constexpr double kMinMacsPerThread = 512.0 * 1024;

// The work units of one call: row blocks x panels, row-block-major (a unit
// is one panel of one row block); a range of units is a few runs of panels.
struct Partition {
  GemmBlocksFn block;
  const void* ctx;
  int64_t m;
  int64_t panels;
  int64_t row_step;  // rows per row block, a multiple of the tile's rows
};

void RunUnits(void* ctx, int64_t begin, int64_t end) {
  const Partition& part = *static_cast<const Partition*>(ctx);
  while (begin < end) {
    const int64_t rb = begin / part.panels, p0 = begin % part.panels;
    const int64_t p1 = std::min(part.panels, p0 + (end - begin));
    const int64_t m0 = rb * part.row_step;
    const int64_t m1 = std::min(part.m, m0 + part.row_step);
    part.block(part.ctx, m0, m1, p0, p1);
    begin += p1 - p0;
  }
}

}  // namespace

GemmBlocking BlockingFor(const GemmCosts& c, int64_t k, int64_t rows) {
  const CacheSizes& cache = GetCacheSizes();
  GemmBlocking b;
  if (c.blocks_k) {
    int64_t kc_max =
        std::max<int64_t>(64, cache.l1d / 2 / (c.tile_rows * c.x_bytes));
    if (c.max_kc > 0) kc_max = std::min(kc_max, c.max_kc);
    const int64_t k_blocks = (k + kc_max - 1) / kc_max;
    b.kc = (k + k_blocks - 1) / k_blocks;
    b.kc = (b.kc + c.k_step - 1) / c.k_step * c.k_step;
  } else {
    b.kc = k;
  }
  // (A half of L2 for W, and no prefetch of the next slice, measured 2-10%
  // slower with the weights coming from memory, as in a model.)
  b.chunk = std::max<int64_t>(1, cache.l2 / 4 / (b.kc * c.panel * c.w_bytes));
  b.mc = std::max<int64_t>(1, cache.l2 / 4 / (b.kc * c.x_bytes) / c.tile_rows) *
         c.tile_rows;
  // A sequence of 128 at BERT's widths is one M block: the W slices are then
  // streamed once, not once per M block.
  const int64_t rows_up = (rows + c.tile_rows - 1) / c.tile_rows * c.tile_rows;
  if (rows_up > b.mc && rows_up * b.kc * c.x_bytes <= cache.l2 / 2) {
    b.mc = rows_up;
  }
  return b;
}

void RunGemmBlocks(int64_t m, int64_t n, int64_t k, int64_t panels,
                   int64_t rows, GemmBlocksFn block, const void* ctx) {
  // Threads by work: each one gets at least kMinMacsPerThread.
  const double macs = static_cast<double>(m) * n * k;
  const int threads = static_cast<int>(std::max<double>(
      1, std::min<double>(enc_threads_count(), macs / kMinMacsPerThread)));
  // Units: whole panels (each thread then reads only its part of W), and row
  // blocks as well when there are too few panels for the guided split to
  // balance (a unit should be at most ~1/8 of a thread's share).
  Partition part;
  part.block = block;
  part.ctx = ctx;
  part.m = m;
  part.panels = panels;
  const int64_t tiles = (m + rows - 1) / rows;
  int64_t row_blocks = 1;
  if (threads > 1) {
    const int64_t want = 8 * int64_t{threads};
    row_blocks = std::min(tiles, (want + panels - 1) / panels);
  }
  part.row_step = (tiles + row_blocks - 1) / row_blocks * rows;
  row_blocks = (m + part.row_step - 1) / part.row_step;
  ParallelForGuided(row_blocks * panels, 1, threads, &RunUnits, &part);
}

}  // namespace enc
