// The one blocking plan of every GEMM weight format (plain C++, no Highway):
// the block sizes one call uses (BlockingFor, from the caches of the CPU it
// runs on), the split of a call over the thread pool (RunGemmBlocks), and the
// rows of W as the pack functions receive them. The per-target driver that
// walks the blocks is kernels/gemm_driver-inl.h; a format adds only its
// micro-tile and its pack (docs/adding-a-feature.md#a-new-gemm-weight-format).
#ifndef ENC_RUNTIME_KERNELS_GEMM_PLAN_H_
#define ENC_RUNTIME_KERNELS_GEMM_PLAN_H_

#include <atomic>
#include <cstdint>

#include "enc/kernels/gemm.h"  // enc_activation, enc_packed_b, enc_status

namespace enc {

// The widest panel of any target and format (gemm_tile-inl.h checks its own).
inline constexpr int64_t kMaxGemmPanel = 64;

// enc_gemm for a matrix packed in one format, after gemm.cc validated the
// arguments: every format's entry point has this type.
using FormatGemm = enc_status(int64_t m, const float* x, int64_t ldx,
                              const enc_packed_b* w, const float* bias,
                              enc_activation act, const float* residual,
                              int64_t ldr, float* y, int64_t ldy);

// What a weight format's micro-tile costs the caches, per K step.
struct GemmCosts {
  int64_t tile_rows;  // rows of Y per micro-tile
  int64_t panel;      // packed columns per panel
  int64_t x_bytes;    // bytes of X one row reads per K step (as the tile reads
                      // it: fp32 4; int8 2, the value and its |x|)
  int64_t w_bytes;    // bytes of W one column holds per K step
  int64_t k_step;     // K blocks are multiples of it (bf16 pairs: 2)
  int64_t max_kc;     // the tile's own limit on a K block, 0 for none
  bool blocks_k;      // false: K is never blocked (int32 accumulators that
                      // cannot wait in Y between blocks)
};

// Block sizes for one call.
struct GemmBlocking {
  int64_t kc;     // K block
  int64_t chunk;  // panels per chunk
  int64_t mc;     // rows per M block (a multiple of the tile's rows)
};

// The plan of a call with k columns of X and `rows` rows of Y in one unit of
// the thread split. M block > panel chunk > K block > row tile (> panel, in
// the tile): the X slice of a row tile (tile_rows x kc) takes at most half of
// L1; K is cut into equal blocks; L2 holds a quarter each of the W slice of a
// chunk (kc x chunk panels), of the next one streaming in and of the X slice
// of an M block (mc x kc). Rows whose X slice fits in half of L2 make one M
// block, so that W is streamed once.
GemmBlocking BlockingFor(const GemmCosts& costs, int64_t k, int64_t rows);

// The rows of W as enc_gemm_pack_parts receives them: the row concatenation
// of up to three parts, each row-major with k columns (pack.cc checks them).
struct WeightRows {
  static constexpr int32_t kMaxParts = 3;
  int32_t num_parts;
  const float* parts[kMaxParts];
  int64_t
      first_row[kMaxParts + 1];  // part i: rows [first_row[i], first_row[i+1])
  int64_t n, k;

  const float* Row(int64_t r) const {
    int32_t i = 0;
    while (r >= first_row[i + 1]) ++i;
    return parts[i] + (r - first_row[i]) * k;
  }
};

// Rows [m0, m1) and panels [p0, p1) of Y for one call, whatever the format;
// ctx is the format's own call.
using GemmBlocksFn = void (*)(const void* ctx, int64_t m0, int64_t m1,
                              int64_t p0, int64_t p1);

// Runs `block` over rows [0, m) x panels [0, panels) of a call with n x k
// weights on the thread pool: threads by work (m * n * k multiply-adds),
// whole panels per unit, and row blocks (multiples of `rows`, the kernel's
// tile) as well when the panels are too few to balance.
void RunGemmBlocks(int64_t m, int64_t n, int64_t k, int64_t panels,
                   int64_t rows, GemmBlocksFn block, const void* ctx);

// What every format's epilogue reads and writes, Y = act(acc + bias) +
// residual: the tail of each format's validated call (kernels/gemm_fp32.h,
// gemm_int8.h, gemm_bf16.h derive from it).
struct GemmOutputArgs {
  const float* bias;  // at output column 0, or null
  enc_activation act;
  const float* residual;  // or null
  int64_t ldr;
  float* y;
  int64_t ldy;
};

// Computes rows [m0, m1) and panels [p0, p1) of Y for one call of a format,
// epilogue included; false if it could not allocate its scratch (then it
// computed nothing).
template <class Args>
using FormatBlockFn = bool (*)(const Args& args, int64_t m0, int64_t m1,
                               int64_t p0, int64_t p1);

// A format's kernel on one Highway target and the packed layout it reads:
// the tile (and so the panel width) is a per-target constant.
template <class Args>
struct FormatKernel {
  int64_t target;  // the HWY_* target
  int64_t panel;   // packed columns per panel
  int64_t rows;    // rows per micro-tile (the unit of an M split)
  FormatBlockFn<Args> block;
  // The packed K groups (a format's unit of K: int8 4 steps, bf16 a pair)
  // are a multiple of it: 1, or AMX's 16, the K of one tile.
  int64_t group_multiple = 1;
  // Rows of X past m that the tile reads, zero (AMX: a tile is 16 rows,
  // whatever the rows it computes).
  int64_t pad_rows = 0;
};

// The panels of W [n, k] in `kernel`'s layout and its packed depth:
// k_units (the format's units of K) rounded up to the group multiple.
template <class Args>
void PlanPanels(const FormatKernel<Args>& kernel, int64_t n, int64_t k_units,
                int64_t* panels, int64_t* depth) {
  const int64_t multiple = kernel.group_multiple;
  *panels = (n + kernel.panel - 1) / kernel.panel;
  *depth = (k_units + multiple - 1) / multiple * multiple;
}

// Runs one validated call of a format over the thread pool, in units of
// `panels` panels of W [n, k]; false if a block could not allocate its
// partial sums.
template <class Args>
bool RunFormat(const Args& args, const FormatKernel<Args>& kernel, int64_t m,
               int64_t n, int64_t k, int64_t panels) {
  struct Call {
    const Args& args;
    FormatBlockFn<Args> block;
    mutable std::atomic<bool> failed{false};
  } call{args, kernel.block};
  RunGemmBlocks(
      m, n, k, panels, kernel.rows,
      [](const void* ctx, int64_t m0, int64_t m1, int64_t p0, int64_t p1) {
        const Call& c = *static_cast<const Call*>(ctx);
        if (c.failed.load(std::memory_order_relaxed)) return;
        if (!c.block(c.args, m0, m1, p0, p1)) {
          c.failed.store(true, std::memory_order_relaxed);
        }
      },
      &call);
  return !call.failed.load();
}

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_PLAN_H_
