/* Dense matrix product with a fused epilogue, as generated code calls it
 * (plain C). Weights are packed once, at load, into the panel layout of the
 * micro-kernel; every call then reads them as they are.
 *
 *   Y[m, n] = act(X[m, k] W[n, k]^T + bias[n]) + residual[m, n]
 *
 * W has PyTorch's Linear layout, [out_features, in_features] row-major.
 * Calls are thread-safe: a packed W is read-only and may be shared. */
#ifndef ENC_KERNELS_GEMM_H_
#define ENC_KERNELS_GEMM_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: W packed into micro-kernel panels. */
typedef struct enc_packed_b enc_packed_b;
/* Opaque: a gated FFN's gate and up weights packed together (below). */
typedef struct enc_packed_gated enc_packed_gated;

/* The activations, from the activation table (enc/activations.def, which
 * gives each one's formula): ENC_ACT_RELU, ENC_ACT_GELU (exact, erf),
 * ENC_ACT_GELU_TANH, ENC_ACT_SILU, ... in that order after ENC_ACT_NONE. */
typedef enum {
  ENC_ACT_NONE = 0,
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula) Enumerator,
#include "enc/activations.def"
} enc_activation;
/* How many enc_activation values there are (ENC_ACT_NONE included). */
enum {
  ENC_ACT_COUNT = 1
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula) +1
#include "enc/activations.def"
};

/* How a packed W is stored and multiplied (docs/numerics.md#precision). */
typedef enum {
  ENC_PRECISION_FP32 = 0,
  ENC_PRECISION_INT8 = 1, /* weights s8 per output row (symmetric), activations
                             quantized per row per call, int32 accumulation */
  ENC_PRECISION_BF16 = 2  /* weights bf16, fp32 accumulation */
} enc_precision;

/* Packs W, row-major [n, k] (n, k >= 1), into *out; free it with
 * enc_gemm_packed_free. ENC_ERR_INPUT on a bad argument, ENC_ERR_NOMEM if the
 * allocation fails; *out is NULL on failure. */
enc_status enc_gemm_pack(const float *w, int64_t n, int64_t k,
                         enc_packed_b **out);
/* Packs the row concatenation of num_parts (1..3) matrices, part i
 * row-major [rows[i], k] (rows[i] >= 1), as enc_gemm_pack packs one: a fused
 * Q|K|V projection straight from its three tensors. */
enc_status enc_gemm_pack_parts(int32_t num_parts, const float *const *parts,
                               const int64_t *rows, int64_t k,
                               enc_packed_b **out);
/* As enc_gemm_pack_parts, with the weights stored in `precision`. int8: one
 * scale per row, max |w| / 127, and w rounded to the nearest multiple of it
 * (W must then be finite). ENC_ERR_INPUT for a precision this runtime does
 * not implement, or non-finite weights with int8. */
enc_status enc_gemm_pack_parts_as(enc_precision precision, int32_t num_parts,
                                  const float *const *parts,
                                  const int64_t *rows, int64_t k,
                                  enc_packed_b **out);
enc_precision enc_gemm_packed_precision(const enc_packed_b *p);
/* Bytes the packed matrix holds (panels, padding and scales included). */
int64_t enc_gemm_packed_bytes(const enc_packed_b *p);
void enc_gemm_packed_free(enc_packed_b *p); /* NULL is a no-op */
int64_t enc_gemm_packed_n(const enc_packed_b *p);
int64_t enc_gemm_packed_k(const enc_packed_b *p);

/* Y[m, n] = act(X[m, k] W^T + bias) + residual, with n, k those of `w`,
 * in the precision `w` was packed in (int8: each row of X quantized to s8
 * with its own scale, max |x| / 127, for this call).
 * bias: [n] or NULL. residual: [m, ldr] or NULL, added after the activation
 * (it may be y itself, ldr == ldy, only when act is ENC_ACT_NONE: the
 * partial sums are kept in y; any other overlap is refused). ldx, ldr,
 * ldy: row strides in floats, ldx >= k, ldr >= n, ldy >= n. m == 0 does
 * nothing. Runs on the runtime's thread pool. ENC_ERR_INPUT (with
 * enc_last_error) on a bad argument, and then y is not written. */
enc_status enc_gemm(int64_t m, const float *x, int64_t ldx,
                    const enc_packed_b *w, const float *bias,
                    enc_activation act, const float *residual, int64_t ldr,
                    float *y, int64_t ldy);

/* ---- Gated feed-forward: one GEMM for the gate and up projections -------
 *
 *   Y[m, n] = act(X[m, k] Wg[n, k]^T + bg[n]) * (X Wu[n, k]^T + bu[n])
 *
 * Wg and Wu are packed together once, so that each micro-tile holds the gate
 * and the up columns of the same outputs: X is read once for both, the
 * activation and the product run on the registers, and only Y [m, n] is
 * written (not the two [m, n] projections). */

/* Packs gate and up, each row-major [n, k] (n, k >= 1), into *out; free it
 * with enc_gemm_gated_free. ENC_ERR_INPUT on a bad argument, ENC_ERR_NOMEM if
 * the allocation fails; *out is NULL on failure. */
enc_status enc_gemm_pack_gated(const float *gate, const float *up, int64_t n,
                               int64_t k, enc_packed_gated **out);
void enc_gemm_gated_free(enc_packed_gated *p);       /* NULL is a no-op */
int64_t enc_gemm_gated_n(const enc_packed_gated *p); /* outputs, or 0 */
int64_t enc_gemm_gated_k(const enc_packed_gated *p);

/* Y[m, n] = act(X Wg^T + bias_gate) * (X Wu^T + bias_up), with n, k those of
 * `w`. bias_gate, bias_up: [n] each, or NULL (no bias). ldx >= k, ldy >= n.
 * m == 0 does nothing. Runs on the runtime's thread pool, blocked for the
 * caches as enc_gemm is. ENC_ERR_INPUT (with enc_last_error) on a bad
 * argument, ENC_ERR_NOMEM if a thread cannot allocate its partial sums; y is
 * then not (entirely) written. */
enc_status enc_gemm_gated(int64_t m, const float *x, int64_t ldx,
                          const enc_packed_gated *w, const float *bias_gate,
                          const float *bias_up, enc_activation act, float *y,
                          int64_t ldy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_GEMM_H_ */
