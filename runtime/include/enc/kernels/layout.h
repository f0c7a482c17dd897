/* The row layout of activations inside a forward call.
 *
 * The caller's tensors are padded: position i of sequence b is row
 * b * seq_len + i, valid or not. Inside a forward call only valid positions
 * have rows: sequence b occupies rows [first_row(b), first_row(b) + len[b]),
 * first_row(b) = len[0] + ... + len[b-1], so the GEMMs, norms and
 * elementwise kernels see sum(len) rows and padding costs nothing. The
 * embedding kernels read the padded layout and write this one; the pooling
 * kernel reads this one and writes the padded output; attention works on it
 * per sequence. Without lengths (NULL) every len[b] is seq_len and the two
 * layouts are the same. */
#ifndef ENC_KERNELS_LAYOUT_H_
#define ENC_KERNELS_LAYOUT_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sum(len[b]) over the batch: batch * seq_len when lengths is NULL. The
 * arguments must already be valid (enc_check_input): batch >= 0,
 * seq_len >= 1, each lengths[b] in 0..seq_len. */
int64_t enc_valid_rows(int32_t batch, int32_t seq_len, const int32_t *lengths);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_LAYOUT_H_ */
