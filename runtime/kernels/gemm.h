// GEMM internals shared by pack.cc (layout), gemm-inl.h (SIMD body) and
// gemm.cc (validation, partition, dispatch).
#ifndef ENC_RUNTIME_KERNELS_GEMM_H_
#define ENC_RUNTIME_KERNELS_GEMM_H_

#include <cstdint>

#include "enc/kernels/gemm.h"

namespace enc {

// The widest panel of any target (gemm_tile-inl.h checks its own).
inline constexpr int64_t kMaxGemmPanel = 64;

// One enc_gemm or enc_gemm_gated call, validated.
struct GemmArgs {
  int64_t m, n, k;  // n: output columns
  const float* x;
  int64_t ldx;
  const float* w;  // packed panels
  const float* bias;   // enc_gemm's bias, enc_gemm_gated's gate bias
  const float* bias2;  // enc_gemm_gated's up bias (enc_gemm: null)
  enc_activation act;
  const float* residual;
  int64_t ldr;
  float* y;
  int64_t ldy;
};

// Computes rows [m0, m1) and panels [p0, p1) of Y, epilogue included; false
// if it could not allocate its scratch (then it computed nothing).
using GemmBlockFn = bool (*)(const GemmArgs& args, int64_t m0, int64_t m1,
                             int64_t p0, int64_t p1);

// A packed layout and the block function that reads it. The tile (and hence
// the panel width) is a per-target constant: the register file decides it
// (gemm_tile-inl.h).
struct GemmLayout {
  int64_t target;  // the HWY_* target
  int64_t panel;  // packed columns per panel
  int64_t rows;   // rows per micro-tile (the unit of an M split)
  GemmBlockFn block;
};

// The GEMMs of one Highway target: the plain one (enc_gemm) and the gated
// one (enc_gemm_gated), whose panel is half gate, half up columns.
struct GemmKernel {
  GemmLayout plain, gated;
};

// The kernel of the target ENC_DYNAMIC_DISPATCH (src/dispatch.h) chooses now
// (gemm.cc).
GemmKernel ChooseGemmKernel();

// The rows of W as enc_gemm_pack_parts receives them: the row concatenation
// of up to three parts, each row-major with k columns (pack.cc checks them).
struct WeightRows {
  static constexpr int32_t kMaxParts = 3;
  int32_t num_parts;
  const float* parts[kMaxParts];
  int64_t first_row[kMaxParts + 1];  // part i: rows [first_row[i], first_row[i+1])
  int64_t n, k;

  const float* Row(int64_t r) const {
    int32_t i = 0;
    while (r >= first_row[i + 1]) ++i;
    return parts[i] + (r - first_row[i]) * k;
  }
};

// Rows [m0, m1) and panels [p0, p1) of Y for one call, whatever the
// precision; ctx is the precision's own arguments.
using GemmBlocksFn = void (*)(const void* ctx, int64_t m0, int64_t m1,
                              int64_t p0, int64_t p1);

// Runs `block` over rows [0, m) x panels [0, panels) of a call with n x k
// weights on the thread pool: threads by work (m * n * k multiply-adds),
// whole panels per unit, and row blocks (multiples of `rows`, the kernel's
// tile) as well when the panels are too few to balance (gemm.cc).
void RunGemmBlocks(int64_t m, int64_t n, int64_t k, int64_t panels,
                   int64_t rows, GemmBlocksFn block, const void* ctx);

}  // namespace enc

#include "kernels/gemm_bf16.h"
#include "kernels/gemm_int8.h"

// Packed W: panel p holds output columns [p * panel, (p + 1) * panel) as
// [k][panel] floats (column j of the panel, step k at
// data[p * k * panel + k * panel + j]), zero-padded past n, so that a
// micro-kernel step reads one contiguous row of the panel. The layout belongs
// to the target that packed it: enc_gemm runs that target's kernel, never
// another's, so a layout and a kernel cannot mismatch.
//
// A packed matrix of another precision holds its own panels instead
// (enc_gemm_packed_precision): int8 in `int8` (kernels/gemm_int8.h), bf16 in
// `bf16` (kernels/gemm_bf16.h).
struct enc_packed_b {
  int64_t n, k, panels;
  enc_precision precision;
  enc::GemmLayout layout;  // FP32
  float* data;  // FP32: 64-byte aligned, panels * k * layout.panel floats
  enc::Int8Panels int8;  // INT8
  enc::Bf16Panels bf16;  // BF16
  int64_t bytes;         // held, all precisions
};

// Packed gated weight (always FP32): the same panels, of which the first
// half of the columns of panel p are gate rows [p * half, (p + 1) * half) and
// the second half the up rows of the same outputs (half = layout.panel / 2),
// each half zero-padded past n. `packed.n` is n, the outputs (rows of each
// part).
struct enc_packed_gated {
  enc_packed_b packed;
};

#endif  // ENC_RUNTIME_KERNELS_GEMM_H_
