/* The embedding layer (docs/numerics.md#embedding):
 *   tokens: x[b,i] = scale * E_tok[ids[b,i]] + E_type[types[b,i]] + PE[i]
 *   floats: x[b,i] = in[b,i] + PE[i]
 * PE is a table [pos_rows >= seq_len, d] or NULL (none, RoPE, ALiBi, ...).
 * The input is in the caller's padded layout; the output is in the packed
 * layout of enc/kernels/layout.h: position i < len[b] of sequence b is row
 * first_row(b) + i, and padded positions get no row. */
#ifndef ENC_KERNELS_EMBED_H_
#define ENC_KERNELS_EMBED_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ids, types: [batch, seq_len]. types may be NULL (type 0 everywhere);
 * type_table NULL means no type embedding (types are then ignored).
 * lengths: [batch] in [0, seq_len] or NULL (full); positions i >= len[b] are
 * neither checked nor written.
 * Every id and type is checked before anything is written: an id outside
 * [0, vocab) or a type outside [0, type_vocab) returns ENC_ERR_INPUT naming
 * the batch row, the position and the value. */
enc_status enc_embed_tokens(int32_t batch, int32_t seq_len, const int32_t *ids,
                            const int32_t *types, const int32_t *lengths,
                            const float *tok_table, int32_t vocab, float scale,
                            const float *type_table, int32_t type_vocab,
                            const float *pos_table, int64_t pos_rows, int64_t d,
                            float *out, int64_t ld_out);

/* in: [batch*seq_len rows, ld_in], padded. May equal out (same stride): rows
 * only move towards the start, in order. lengths as for enc_embed_tokens. */
enc_status enc_embed_floats(int32_t batch, int32_t seq_len, const float *in,
                            int64_t ld_in, const int32_t *lengths,
                            const float *pos_table, int64_t pos_rows, int64_t d,
                            float *out, int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_EMBED_H_ */
