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

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sinusoidal table's entry at position p, column i, for d_model d
 * (docs/numerics.md#positions): angle = p / 10000^(2 floor(i/2) / d), sin at
 * even i and cos at odd i, computed in double and rounded once to float. The
 * compiler's table and the runtime's rows past it both come from here. */
static inline double enc_sinusoid_divisor(int64_t i, int64_t d) {
  return pow(10000.0, (double)(2 * (i / 2)) / (double)d);
}
static inline float enc_sinusoid_at(int64_t p, int64_t i, double divisor) {
  const double angle = (double)p / divisor;
  return (float)(i % 2 == 0 ? sin(angle) : cos(angle));
}
static inline float enc_sinusoid(int64_t p, int64_t i, int64_t d) {
  return enc_sinusoid_at(p, i, enc_sinusoid_divisor(i, d));
}

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

/* The rows of a sinusoidal table a compiled model keeps in its object when
 * max_len is longer (docs/numerics.md#positions): 512 x d_model floats
 * (1.5 MiB at 768) instead of 24 MiB at max_len 8,192. */
#define ENC_SINUSOID_OBJECT_ROWS 512

/* enc_embed_floats with sinusoidal positions whose table holds only the first
 * pos_rows rows (the object keeps no more): positions at or past pos_rows
 * get enc_sinusoid's values, computed here, so the result is the one a full
 * table gives, bit for bit. Any seq_len >= 1 is accepted; otherwise as
 * enc_embed_floats (in may equal out). */
enc_status enc_embed_floats_sinusoidal(int32_t batch, int32_t seq_len,
                                       const float *in, int64_t ld_in,
                                       const int32_t *lengths,
                                       const float *pos_table, int64_t pos_rows,
                                       int64_t d, float *out, int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_EMBED_H_ */
