/* The masked-LM decoder and SPLADE's pooling over it (docs/language.md#heads).
 * x holds the head's transformed tokens (dense, activation, norm: ordinary
 * ops before this call) in the packed layout of enc/kernels/layout.h; W is
 * the decoder [vocab, d] (often the token embeddings, tied), bias [vocab].
 *
 *   enc_mlm:    out row b*seq_len + i = W x_i + bias for i < len[b] of
 *               sequence b, zero for i >= len[b]   ([batch * seq_len, vocab])
 *   enc_splade: out row b = max over i < len[b] of log(1 + relu(W x_i +
 *               bias)), zero for an empty sequence  ([batch, vocab])
 *
 * The projection runs through enc_gemm in the precision W was packed in.
 * enc_splade never holds [tokens, vocab]: log(1 + relu(.)) is monotonic and
 * the bias is the same down a column, so it keeps the running maximum of the
 * raw products over row chunks of a bounded scratch (at most 32 MiB) and
 * applies bias, relu and log1p once per output value. */
#ifndef ENC_KERNELS_MLM_H_
#define ENC_KERNELS_MLM_H_

#include <stdint.h>

#include "enc/kernels/gemm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x: [sum(len) rows, ld_x] with d columns read; lengths [batch] or NULL (all
 * seq_len). w: [vocab, d] packed; bias: [vocab] or NULL. out must not overlap
 * x. ENC_ERR_INPUT on a bad argument, ENC_ERR_NOMEM when enc_splade's scratch
 * cannot be allocated. */
enc_status enc_mlm(int32_t batch, int32_t seq_len, int64_t d,
                   const int32_t *lengths, const float *x, int64_t ld_x,
                   const enc_packed_b *w, const float *bias, float *out);
enc_status enc_splade(int32_t batch, int32_t seq_len, int64_t d,
                      const int32_t *lengths, const float *x, int64_t ld_x,
                      const enc_packed_b *w, const float *bias, float *out);

/* A sparse form of rows of term weights (SPLADE's [batch, vocab]): for each
 * row r of dense [rows, cols], its entries > threshold, the top_k largest of
 * them when top_k > 0 (ties to the lower index), in decreasing weight, as
 * CSR: row r's entries are [offsets[r], offsets[r + 1]) of indices / values.
 * offsets: [rows + 1]. indices, values: `capacity` entries each; with too
 * few, ENC_ERR_INPUT and *needed (when not NULL) says how many it takes;
 * indices and values may be NULL with capacity 0 to ask for that count. */
enc_status enc_sparse_rows(const float *dense, int64_t rows, int64_t cols,
                           int32_t top_k, float threshold, int64_t *offsets,
                           int32_t *indices, float *values, int64_t capacity,
                           int64_t *needed);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_MLM_H_ */
