/* Multi-head scaled dot-product attention for encoders (docs/numerics.md).
 *
 * One call handles a whole batch: per (sequence, head) it computes
 *   scores = rope(Q_h) rope(K_h)^T * scale + bias,  keys j >= len[b] masked
 *            (and, with a window, keys j with |i - j| > window / 2),
 *   out_h  = softmax_j(scores) V_h
 * with a numerically stable (max-subtracted) softmax. Q, K and V are usually
 * column slices of one fused QKV projection [batch*seq_len, 3*d_model]
 * (q = qkv, k = qkv + d_model, v = qkv + 2*d_model, ld_in = 3*d_model). Head h
 * reads and writes columns [h*d_k, (h+1)*d_k). Rows are in the packed layout
 * of enc/kernels/layout.h: sequence b is rows [first_row(b), first_row(b) +
 * len[b]), and a sequence of length 0 has no rows. */
#ifndef ENC_KERNELS_ATTENTION_H_
#define ENC_KERNELS_ATTENTION_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENC_ROPE_NONE = 0,
  ENC_ROPE_HALVES = 1,     /* rotates the pair (k, k + d_k/2) */
  ENC_ROPE_INTERLEAVED = 2 /* rotates the pair (2k, 2k + 1) */
} enc_rope_style;

typedef struct {
  int32_t heads;   /* >= 1 */
  int32_t d_k;     /* >= 1; d_model = heads * d_k */
  int32_t max_len; /* >= 1; seq_len must not exceed it */
  float scale;     /* usually 1/sqrt(d_k) */
  /* RoPE: cos/sin tables [max_len, d_k/2] of p * base^(-2k/d_k); d_k even. */
  int32_t rope_style; /* enc_rope_style */
  const float *rope_cos;
  const float *rope_sin;
  /* ALiBi: bias -slope[h] * |i - j|; NULL for none. */
  const float *alibi_slopes; /* [heads] */
  /* Relative (T5): bias rel_table[rel_bucket[(j - i) + max_len - 1] * heads +
   * h]; rel_bucket NULL for none. */
  const int32_t *rel_bucket; /* [2*max_len - 1], values in [0, rel_buckets) */
  const float *rel_table;    /* [rel_buckets, heads] */
  int32_t rel_buckets;
  /* Local attention: 0 for none; > 0: query i sees only the keys j with
   * |i - j| <= window / 2. The keys outside are skipped (neither scored nor
   * summed), not computed and discarded. */
  int32_t window;
  /* NULL, or where to write the probabilities softmax_j(scores):
   * [batch, heads, seq_len, seq_len], 0 on rows i >= len[b] and columns
   * j >= len[b] (NAME_forward_attention). */
  float *probs;
} enc_attention_params;

/* q, k, v: [sum(len) rows, ld_in], head h at columns h*d_k.
 * lengths: [batch] in [0, seq_len], or NULL when every sequence is full.
 * out: [sum(len) rows, ld_out]. It may be q itself (out == q, ld_out ==
 * ld_in) when k and v are other columns of the same rows, as in a fused QKV
 * buffer: the result then replaces the queries. Any other overlap of out
 * with q, k or v is refused.
 * Returns ENC_ERR_INPUT (see enc_last_error) on a bad argument, writing
 * nothing; ENC_ERR_NOMEM if scratch memory cannot be allocated. */
enc_status enc_attention(const enc_attention_params *params, int32_t batch,
                         int32_t seq_len, const int32_t *lengths,
                         const float *q, const float *k, const float *v,
                         int64_t ld_in, float *out, int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_ATTENTION_H_ */
