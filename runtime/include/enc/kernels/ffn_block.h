/* A feed-forward sub-layer a chunk of rows at a time, so that its hidden
 * activations never exist for all rows at once (docs/c-abi.md#memory):
 *
 *   h = act(norm(x) W1^T + b1)                                 (plain)
 *   h = act(norm(x) Wg^T + bg) * (norm(x) Wu^T + bu)           (gated)
 *   y = x + h W2^T + b2
 *
 * (norm only when gamma is not NULL). ENC_FFN_BLOCK_CHUNK_ROWS rows at a
 * time, the hidden rows in a scratch of the calling thread. Each row's
 * result is that of enc_gemm_normed (enc_gemm, enc_gemm_gated[_normed]) and
 * enc_gemm run on all rows, up to the GEMM's summation order. */
#ifndef ENC_KERNELS_FFN_BLOCK_H_
#define ENC_KERNELS_FFN_BLOCK_H_

#include <stdint.h>

#include "enc/kernels/gemm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows per chunk: the scratch is this many rows of d_ff floats per calling
 * thread. */
#define ENC_FFN_BLOCK_CHUNK_ROWS 512

/* norm_kind, gamma, beta, eps: the pre-norm, as enc_gemm_normed's; gamma
 * NULL for none. m: rows. x: [m, ldx]. Exactly one of w1 ([d_ff, d_model]
 * packed) and w_gated (gate and up, [d_ff, d_model] each, packed together)
 * is given; b1: [d_ff] or NULL with w1; with w_gated, b1 is the gate's bias
 * and b_up the up projection's (each [d_ff] or NULL). act: the activation.
 * w2: [d_model, d_ff] packed; b2: [d_model] or NULL. y: [m, ldy]; it may be
 * x itself (ldy == ldx): each chunk reads its rows of x before it writes
 * them. Any other overlap of y with x is refused.
 * ENC_ERR_INPUT (with enc_last_error) on a bad argument, and then y is not
 * written; ENC_ERR_NOMEM if the scratch cannot be allocated. */
enc_status enc_ffn_block(int32_t norm_kind, const float *gamma,
                         const float *beta, float eps, int64_t m,
                         const float *x, int64_t ldx, const enc_packed_b *w1,
                         const enc_packed_gated *w_gated, const float *b1,
                         const float *b_up, enc_activation act,
                         const enc_packed_b *w2, const float *b2, float *y,
                         int64_t ldy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_FFN_BLOCK_H_ */
