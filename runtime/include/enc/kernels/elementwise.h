/* Elementwise kernels for what fusion did not fold into a GEMM (at -O0 the
 * compiler keeps activations, residual adds and a gated FFN's products as
 * their own ops).
 * Rows are [rows, d] with row strides ld_* in floats; y may equal an input
 * with the same stride (in place). */
#ifndef ENC_KERNELS_ELEMENTWISE_H_
#define ENC_KERNELS_ELEMENTWISE_H_

#include <stdint.h>

#include "enc/kernels/gemm.h" /* enc_activation */
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = act(x); act is an enc_activation (ENC_ACT_NONE copies). */
enc_status enc_activation_rows(int32_t act, int64_t rows, int64_t d,
                               const float *x, int64_t ld_x, float *y,
                               int64_t ld_y);

/* y = a + b. */
enc_status enc_add_rows(int64_t rows, int64_t d, const float *a, int64_t ld_a,
                        const float *b, int64_t ld_b, float *y, int64_t ld_y);

/* y = a * b, elementwise (a gated feed-forward layer's gate times its up
 * projection, when fusion did not fold it into the GEMM). */
enc_status enc_mul_rows(int64_t rows, int64_t d, const float *a, int64_t ld_a,
                        const float *b, int64_t ld_b, float *y, int64_t ld_y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_ELEMENTWISE_H_ */
