/* An attention sub-layer a chunk of query rows at a time, so that the
 * queries and the attention output of all rows never exist at once
 * (docs/c-abi.md#memory):
 *
 *   q = norm(x) Wq^T + bq          (norm only when gamma is not NULL)
 *   y = x + attention(q, k, v) Wo^T + bo
 *
 * k and v, the keys and values of every row, come from the caller (one
 * projection of all rows before this call); the queries of
 * ENC_ATTENTION_BLOCK_CHUNK_ROWS packed rows at a time are projected into a
 * scratch of the calling thread, attend to the keys they see, and the output
 * projection adds them to their rows of y. Each row's result is that of
 * enc_gemm_normed (enc_gemm), enc_attention and enc_gemm run on all rows, up
 * to the GEMM's summation order. */
#ifndef ENC_KERNELS_ATTENTION_BLOCK_H_
#define ENC_KERNELS_ATTENTION_BLOCK_H_

#include <stdint.h>

#include "enc/kernels/attention.h"
#include "enc/kernels/gemm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Query rows per chunk: the scratch is this many rows of heads * d_k floats
 * per calling thread. */
#define ENC_ATTENTION_BLOCK_CHUNK_ROWS 1024

/* params, batch, seq_len, lengths: as enc_attention's (rows in the packed
 * layout of enc/kernels/layout.h).
 * norm_kind, gamma, beta, eps: the pre-norm of the queries, as
 * enc_gemm_normed's; gamma NULL for none.
 * x: [rows, ldx], the sub-layer's input and residual. wq: [heads * d_k,
 * d_model] packed; bq: [heads * d_k] or NULL. k, v: [rows, ld_kv], head h
 * at columns h * d_k. wo: [d_model, heads * d_k] packed; bo: [d_model] or
 * NULL. y: [rows, ldy]; it may be x itself (ldy == ldx): each chunk reads
 * its rows of x before it writes them. Any other overlap of y with x, k or
 * v is refused.
 * ENC_ERR_INPUT (with enc_last_error) on a bad argument, and then y is not
 * written; ENC_ERR_NOMEM if the scratch cannot be allocated. */
enc_status enc_attention_block(const enc_attention_params *params,
                               int32_t batch, int32_t seq_len,
                               const int32_t *lengths, int32_t norm_kind,
                               const float *gamma, const float *beta, float eps,
                               const float *x, int64_t ldx,
                               const enc_packed_b *wq, const float *bq,
                               const float *k, const float *v, int64_t ld_kv,
                               const enc_packed_b *wo, const float *bo,
                               float *y, int64_t ldy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_ATTENTION_BLOCK_H_ */
