// GEMM internals shared by pack.cc (layout), gemm-inl.h (SIMD body) and
// gemm.cc (validation, partition, dispatch).
#ifndef ENC_RUNTIME_KERNELS_GEMM_H_
#define ENC_RUNTIME_KERNELS_GEMM_H_

#include <cstdint>

#include "enc/kernels/gemm.h"

// Packed W: panel p holds output columns [p * kGemmPanel, (p + 1) * kGemmPanel)
// as [k][kGemmPanel] floats (column j of the panel, step k at
// data[p * k * kGemmPanel + k * kGemmPanel + j]), zero-padded past n, so that a
// micro-kernel step reads one contiguous row of the panel.
struct enc_packed_b {
  int64_t n, k, panels;
  float* data;  // 64-byte aligned, panels * k * kGemmPanel floats
};

namespace enc {

inline constexpr int64_t kGemmPanel = 48;  // 3 AVX-512 vectors

// One enc_gemm call, validated.
struct GemmArgs {
  int64_t m, n, k;
  const float* x;
  int64_t ldx;
  const float* w;  // packed panels
  const float* bias;
  enc_activation act;
  const float* residual;
  int64_t ldr;
  float* y;
  int64_t ldy;
};

// Computes rows [m0, m1) and panels [p0, p1) of Y, epilogue included.
using GemmBlockFn = void (*)(const GemmArgs& args, int64_t m0, int64_t m1,
                             int64_t p0, int64_t p1);

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_H_
