/* A classification head (docs/language.md#heads), from the packed layout of
 * enc/kernels/layout.h to [batch, labels] logits:
 *   p = enc_pool(mode) of each sequence (zero for an empty one);
 *   h = act(p Wd^T + bd) when `dense` is given, else p; then, with
 *   norm_gamma, h = enc_norm(norm_kind, h, norm_gamma, norm_beta, eps)
 *   (ModernBERT's head.norm);
 *   logits = h Wo^T + bo;
 * then, with `scores`, sigmoid of each logit or softmax over the labels.
 * Both projections run through enc_gemm in the precision they were packed
 * in. */
#ifndef ENC_KERNELS_CLASSIFIER_H_
#define ENC_KERNELS_CLASSIFIER_H_

#include <stdint.h>

#include "enc/kernels/gemm.h"
#include "enc/kernels/norm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENC_SCORES_NONE = 0,    /* the logits */
  ENC_SCORES_SIGMOID = 1, /* 1 / (1 + exp(-logit)) each */
  ENC_SCORES_SOFTMAX = 2  /* softmax over the labels of a row */
} enc_scores;

/* mode: an enc_pool_mode other than ENC_POOL_NONE. x: [sum(len) rows, ld_x]
 * with d columns read; lengths [batch] or NULL. dense: [d, d] packed, or
 * NULL for none (dense_bias, act and the norm then unused; dense_bias may be
 * NULL). norm_kind: enc_norm_kind; norm_gamma [d] or NULL for no norm,
 * norm_beta [d] or NULL.
 * out_w: [labels, d] packed; out_bias [labels] or NULL. out: [batch, ld_out]
 * with ld_out >= labels. */
enc_status enc_classifier(int32_t mode, int32_t batch, int32_t seq_len,
                          int64_t d, const int32_t *lengths, const float *x,
                          int64_t ld_x, const enc_packed_b *dense,
                          const float *dense_bias, enc_activation act,
                          int32_t norm_kind, const float *norm_gamma,
                          const float *norm_beta, float eps,
                          const enc_packed_b *out_w, const float *out_bias,
                          int32_t scores, float *out, int64_t ld_out);

/* A projection of the pooled vector (sentence-transformers' Dense module):
 * out row b = act(p W^T + bias) with p = enc_pool(mode) of sequence b, then,
 * with normalize, v / max(||v||_2, 1e-12). w: [dim, d] packed; bias [dim]
 * or NULL; act ENC_ACT_NONE (identity) or another activation; out: [batch,
 * ld_out] with ld_out >= dim. Other arguments as enc_classifier's. */
enc_status enc_dense_head(int32_t mode, int32_t normalize, int32_t batch,
                          int32_t seq_len, int64_t d, const int32_t *lengths,
                          const float *x, int64_t ld_x, const enc_packed_b *w,
                          const float *bias, enc_activation act, float *out,
                          int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_CLASSIFIER_H_ */
