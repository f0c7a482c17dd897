// The bf16 GEMM (precision = bf16, docs/numerics.md#precision): weights
// stored bf16, products accumulated in fp32.
#ifndef ENC_RUNTIME_KERNELS_GEMM_BF16_H_
#define ENC_RUNTIME_KERNELS_GEMM_BF16_H_

#include <cstdint>

#include "enc/kernels/gemm.h"

namespace enc {

// Packs the row concatenation of parts into a bf16 packed matrix (pack.cc
// calls it for BF16, after checking the arguments).
enc_status PackBf16(int32_t num_parts, const float* const* parts,
                    const int64_t* rows, int64_t k, enc_packed_b** out);
// enc_gemm for a bf16 packed matrix (gemm.cc calls it after validating
// arguments).
enc_status GemmBf16(int64_t m, const float* x, int64_t ldx,
                    const enc_packed_b* w, const float* bias,
                    enc_activation act, const float* residual, int64_t ldr,
                    float* y, int64_t ldy);

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_BF16_H_
