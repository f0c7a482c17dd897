// The fp32 GEMM's format (plain and gated): its validated call and its kernel
// per Highway target, shared by pack.cc (layout), gemm-inl.h (the format's
// micro-tile, run by the driver of kernels/gemm_driver-inl.h) and gemm.cc
// (validation, dispatch).
#ifndef ENC_RUNTIME_KERNELS_GEMM_FP32_H_
#define ENC_RUNTIME_KERNELS_GEMM_FP32_H_

#include <cstdint>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_plan.h"

namespace enc {

// One enc_gemm or enc_gemm_gated call, validated; `bias` is enc_gemm's bias
// and enc_gemm_gated's gate bias.
struct GemmArgs : GemmOutputArgs {
  int64_t m, n, k;  // n: output columns
  const float* x;
  int64_t ldx;
  const float* w;      // packed panels
  const float* bias2;  // enc_gemm_gated's up bias (enc_gemm: null)
};

using GemmBlockFn = FormatBlockFn<GemmArgs>;
using GemmLayout = FormatKernel<GemmArgs>;

// The GEMMs of one Highway target: the plain one (enc_gemm) and the gated
// one (enc_gemm_gated), whose panel is half gate, half up columns.
struct GemmKernel {
  GemmLayout plain, gated;
};

// The kernel of the target ENC_DYNAMIC_DISPATCH (src/dispatch.h) chooses now
// (gemm.cc).
GemmKernel ChooseGemmKernel();

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_FP32_H_
