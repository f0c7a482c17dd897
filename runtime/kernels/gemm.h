// The packed weights of every GEMM format (enc_packed_b, enc_packed_gated):
// a handle holds the panels of the one format it was packed in. The formats
// (kernels/gemm_fp32.h, gemm_int8.h, gemm_bf16.h) know nothing of it; it
// includes them.
#ifndef ENC_RUNTIME_KERNELS_GEMM_H_
#define ENC_RUNTIME_KERNELS_GEMM_H_

#include <cstdint>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_bf16.h"
#include "kernels/gemm_fp32.h"
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

namespace enc {
// Columns per panel of w's format and target.
int64_t PanelWidth(const enc_packed_b& w);

// A view of the whole panels of w that hold its output columns [c0, c1)
// (0 <= c0 < c1 <= n), for enc_gemm: Y column j of the view is W's column
// *first_col + j. It borrows w's panels: never freed, valid while w is.
enc_packed_b ColumnPanels(const enc_packed_b& w, int64_t c0, int64_t c1,
                          int64_t* first_col);
}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_H_
