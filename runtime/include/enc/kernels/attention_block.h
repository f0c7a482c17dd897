/* An attention sub-layer that never holds the queries, keys and values of
 * every head of every row at once (docs/c-abi.md#memory):
 *
 *   q = norm(x) Wq^T + bq,  [k | v] = norm(x) Wkv^T + bkv
 *                                  (norm only when gamma is not NULL)
 *   y = x + attention(q, k, v) Wo^T + bo
 *
 * While the keys and values of every row take at most
 * ENC_ATTENTION_BLOCK_KV_BYTES, they are projected into a scratch of the
 * calling thread; the queries of ENC_ATTENTION_BLOCK_CHUNK_ROWS packed rows
 * at a time are projected into another, attend to the keys they see, and the
 * output projection adds them to their rows of y. Past that (long inputs),
 * the heads go a group at a time: the keys and values of every row of as
 * many heads as ENC_ATTENTION_BLOCK_GROUP_BYTES holds, counted in the fewest
 * heads whose columns fill whole panels of the packed weights (at least
 * those), then the group's queries a chunk at a time; each group's attention
 * output goes to its columns of a scratch of every row's output (heads * d_k
 * floats a row), and x is read, not written, until the output projection
 * adds that to y.
 * Each row's result is that of enc_gemm_normed (enc_gemm), enc_attention and
 * enc_gemm run on all rows, up to the GEMM's summation order. */
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
/* The most bytes the keys and values of every row take at once; more rows
 * go a head group at a time. */
#define ENC_ATTENTION_BLOCK_KV_BYTES (32 << 20)
/* The most bytes one head group's keys and values of every row take, unless
 * the fewest heads that fill whole weight panels take more. */
#define ENC_ATTENTION_BLOCK_GROUP_BYTES (8 << 20)

/* params, batch, seq_len, lengths: as enc_attention's (rows in the packed
 * layout of enc/kernels/layout.h).
 * norm_kind, gamma, beta, eps: the pre-norm of the queries, as
 * enc_gemm_normed's; gamma NULL for none.
 * x: [rows, ldx], the sub-layer's input and residual. wq: [heads * d_k,
 * d_model] packed; bq: [heads * d_k] or NULL. wkv: [2 * heads * d_k,
 * d_model] packed, the keys' rows then the values' (head h at rows h * d_k
 * of each); bkv: [2 * heads * d_k] or NULL. wo: [d_model, heads * d_k]
 * packed; bo: [d_model] or NULL. y: [rows, ldy]; it may be x itself (ldy ==
 * ldx): x's rows are read before they are written. Any other overlap of y
 * with x is refused.
 * ENC_ERR_INPUT (with enc_last_error) on a bad argument, and then y is not
 * written; ENC_ERR_NOMEM if a scratch cannot be allocated. */
enc_status enc_attention_block(const enc_attention_params *params,
                               int32_t batch, int32_t seq_len,
                               const int32_t *lengths, int32_t norm_kind,
                               const float *gamma, const float *beta, float eps,
                               const float *x, int64_t ldx,
                               const enc_packed_b *wq, const float *bq,
                               const enc_packed_b *wkv, const float *bkv,
                               const enc_packed_b *wo, const float *bo,
                               float *y, int64_t ldy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_ATTENTION_BLOCK_H_ */
