/* LayerNorm and RMSNorm over rows (docs/numerics.md#norms):
 *
 *   LayerNorm: y = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta
 *              (biased variance; beta may be NULL)
 *   RMSNorm:   y = x / sqrt(mean(x^2) + eps) * gamma
 *
 * Rows are `d` floats; x and y have their own row strides (>= d). y may be
 * the very same pointer (with the same stride) as x: the kernel works
 * row by row. Partial overlaps are not allowed. A row of constant values
 * yields beta (LayerNorm), never NaN. */
#ifndef ENC_KERNELS_NORM_H_
#define ENC_KERNELS_NORM_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ENC_NORM_LAYER = 0, ENC_NORM_RMS = 1 } enc_norm_kind;

/* kind: enc_norm_kind. rows >= 0, d >= 1, eps > 0 (finite).
 * x, gamma, y required; beta optional (NULL).
 * Returns ENC_ERR_INPUT on a bad argument, writing nothing. */
enc_status enc_norm(int32_t kind, int64_t rows, int64_t d, const float *x,
                    int64_t ld_x, const float *gamma, const float *beta,
                    float eps, float *y, int64_t ld_y);

/* Shorthands for the common case of contiguous rows (all strides = d). */
enc_status enc_layer_norm(int64_t rows, int64_t d, const float *x,
                          const float *gamma, const float *beta, float eps,
                          float *y);
enc_status enc_rms_norm(int64_t rows, int64_t d, const float *x,
                        const float *gamma, float eps, float *y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_NORM_H_ */
