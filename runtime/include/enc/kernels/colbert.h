/* A ColBERT head (docs/language.md#heads): every valid token's vector
 * projected without bias and L2-normalised, from the packed layout of
 * enc/kernels/layout.h to the caller's padded one:
 *   out row b*seq_len + i = v / max(||v||_2, 1e-12) with v = W x_i of
 *   sequence b for i < len[b], zero for i >= len[b].
 * The projection runs through enc_gemm, in the precision W was packed in,
 * straight into `out`, which the rows are then unpacked in place in. */
#ifndef ENC_KERNELS_COLBERT_H_
#define ENC_KERNELS_COLBERT_H_

#include <stdint.h>

#include "enc/kernels/gemm.h"
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x: [sum(len) rows, ld_x] with d columns read; lengths [batch] or NULL.
 * w: [dim, d] packed. out: [batch * seq_len, dim]; it must not overlap x. */
enc_status enc_colbert(int32_t batch, int32_t seq_len, int64_t d,
                       const int32_t *lengths, const float *x, int64_t ld_x,
                       const enc_packed_b *w, float *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_COLBERT_H_ */
