/* Pre-norm projections: Y = GEMM(norm(X)) without the normed rows ever
 * existing whole (docs/c-abi.md#memory).
 *
 * A pre-norm block reads norm(x) once, in the projection after the norm.
 * These run the norm of enc/kernels/norm.h over a chunk of rows into a
 * per-thread scratch, then the GEMM of enc/kernels/gemm.h over that chunk,
 * chunk after chunk: the scratch is a few hundred rows whatever m is, and the
 * results are those of enc_norm followed by enc_gemm (enc_gemm_gated), bit for
 * bit, since every output row depends on its own input row alone. */
#ifndef ENC_KERNELS_NORM_GEMM_H_
#define ENC_KERNELS_NORM_GEMM_H_

#include <stdint.h>

#include "enc/kernels/gemm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows per chunk: the scratch is this many rows of k floats per thread. */
#define ENC_NORM_GEMM_CHUNK_ROWS 512

/* Y = act(norm(X) W^T + bias) + residual: enc_norm(norm_kind, m, k, x, ldx,
 * gamma, beta, eps, ...) into the scratch, then enc_gemm on it, per chunk.
 * The arguments are those of the two (k is w's); y must not overlap x, and
 * the residual may be y itself as enc_gemm allows. ENC_ERR_INPUT (with
 * enc_last_error) on a bad argument, and then y is not written;
 * ENC_ERR_NOMEM if the scratch cannot be allocated. */
enc_status enc_gemm_normed(int32_t norm_kind, const float *gamma,
                           const float *beta, float eps, int64_t m,
                           const float *x, int64_t ldx, const enc_packed_b *w,
                           const float *bias, enc_activation act,
                           const float *residual, int64_t ldr, float *y,
                           int64_t ldy);

/* Y = act(norm(X) Wg^T + bias_gate) * (norm(X) Wu^T + bias_up), chunk by
 * chunk as enc_gemm_normed: enc_norm then enc_gemm_gated. */
enc_status enc_gemm_gated_normed(int32_t norm_kind, const float *gamma,
                                 const float *beta, float eps, int64_t m,
                                 const float *x, int64_t ldx,
                                 const enc_packed_gated *w,
                                 const float *bias_gate, const float *bias_up,
                                 enc_activation act, float *y, int64_t ldy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_NORM_GEMM_H_ */
