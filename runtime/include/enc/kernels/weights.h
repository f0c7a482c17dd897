/* Weights for generated code: a safetensors file (docs/weights.md), mapped
 * into memory and validated at open; tensors are converted to float on get.
 * Errors name the file and the tensor (see enc_last_error):
 *   ENC_ERR_IO       the file cannot be opened, is a directory, or cannot be
 * read ENC_ERR_FORMAT   the file is not valid safetensors ENC_ERR_WEIGHTS  a
 * tensor is missing or has the wrong shape or dtype A handle may be read from
 * several threads at once. */
#ifndef ENC_KERNELS_WEIGHTS_H_
#define ENC_KERNELS_WEIGHTS_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct enc_weights enc_weights;

enc_status enc_weights_open(const char *path, enc_weights **out);

/* Copies tensor `name`, which must have exactly `ndim` dimensions `shape`
 * and dtype F32, F16 or BF16, into dst (product(shape) floats). */
enc_status enc_weights_get(enc_weights *w, const char *name, int ndim,
                           const int64_t *shape, float *dst);

/* Like enc_weights_get, but the tensor's first dimension may be larger than
 * shape[0] (ndim >= 1): only its first shape[0] rows are copied. Used for
 * `embed.positions`, which may hold more rows than max_len. */
enc_status enc_weights_get_rows(enc_weights *w, const char *name, int ndim,
                                const int64_t *shape, float *dst);

/* Checks tensor `name` as enc_weights_get does; when it is F32 with 4-byte
 * aligned data, *data points at its floats inside the mapped file (no copy),
 * otherwise *data is NULL and enc_weights_get converts it. The pointer stays
 * valid until enc_weights_close. */
enc_status enc_weights_view_f32(enc_weights *w, const char *name, int ndim,
                                const int64_t *shape, const float **data);

/* Drops tensor `name`'s file pages from the process's resident set once its
 * data has been consumed (enc_weights_get does this itself). Unknown names
 * and NULL are ignored. */
void enc_weights_release(enc_weights *w, const char *name);

/* 1 if the file holds a tensor `name`, else 0. */
int enc_weights_has(const enc_weights *w, const char *name);

/* Writes the tensor's rank to *ndim and up to max_ndim dimensions to shape.
 * ENC_ERR_WEIGHTS if it is missing. */
enc_status enc_weights_shape(const enc_weights *w, const char *name,
                             int max_ndim, int *ndim, int64_t *shape);

/* The path given to enc_weights_open. */
const char *enc_weights_path(const enc_weights *w);

void enc_weights_close(enc_weights *w); /* NULL is allowed */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_WEIGHTS_H_ */
