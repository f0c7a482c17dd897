/* Output pooling (docs/numerics.md#output), from the packed layout of
 * enc/kernels/layout.h (sequence b at rows first_row(b) + i, i < len[b]) to
 * the caller's padded one:
 *   none: out row b*seq_len + i = x row first_row(b) + i, zero for i >= len[b]
 *   cls:  out row b = x row first_row(b) (zero when len[b] == 0)
 *   mean: out row b = mean of the len[b] valid rows (zero when len[b] == 0)
 *   max:  out row b = per-column maximum of the valid rows (zero when none)
 *   last: out row b = x row first_row(b) + len[b] - 1 (zero when len[b] == 0)
 * Pooled modes read the first d columns of each row: with d below the model's
 * width (ld_x) the pooled vector is cut to its first d values (Matryoshka),
 * which commutes with every mode, before it is normalised.
 * With normalize, each output row that is not padding then becomes
 * v / max(||v||_2, 1e-12) (sentence embeddings): zero rows stay zero. */
#ifndef ENC_KERNELS_POOL_H_
#define ENC_KERNELS_POOL_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENC_POOL_NONE = 0,
  ENC_POOL_CLS = 1,
  ENC_POOL_MEAN = 2,
  ENC_POOL_MAX = 3,
  ENC_POOL_LAST = 4
} enc_pool_mode;

/* mode: enc_pool_mode; normalize: 0 or 1.
 * x: [sum(len) rows, ld_x]; lengths [batch] in [0, seq_len] or NULL.
 * out: [batch*seq_len rows, ld_out] (none) or [batch rows, ld_out]; it must
 * not overlap x, except that none pooling with out == x and ld_out == ld_x
 * unpacks the packed rows in place (a forward that keeps its hidden states
 * in the caller's out, docs/c-abi.md#memory). */
enc_status enc_pool(int32_t mode, int32_t normalize, int32_t batch,
                    int32_t seq_len, int64_t d, const int32_t *lengths,
                    const float *x, int64_t ld_x, float *out, int64_t ld_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_POOL_H_ */
