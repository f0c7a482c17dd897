// Pre-norm projections, chunk by chunk: enc_norm into a per-thread scratch,
// then the GEMM on it (enc/kernels/norm_gemm.h).
#include "enc/kernels/norm_gemm.h"

#include <algorithm>

#include "enc/kernels/norm.h"
#include "src/overlap.h"
#include "src/status.h"
#include "src/thread_scratch.h"

namespace enc {
namespace {

// The checks whose failure must leave y unwritten and that no single chunk's
// call sees whole: y against x, over all m rows.
enc_status CheckWhole(const char* fn, int64_t m, const float* x, int64_t ldx,
                      int64_t k, const float* y, int64_t ldy, int64_t n) {
  if (m < 0) {
    return Fail(ENC_ERR_INPUT, "%s: m (%lld) < 0", fn,
                static_cast<long long>(m));
  }
  if (m > 0 && x != nullptr && y != nullptr && ldx >= k && ldy >= n &&
      Overlap(x, (m - 1) * ldx + k, y, (m - 1) * ldy + n)) {
    return Fail(ENC_ERR_INPUT, "%s: x overlaps y", fn);
  }
  return ENC_OK;
}

// The pre-norm's own arguments: gamma must be set here, unlike in the
// kernels that take NULL for "no norm".
enc_status CheckNorm(const char* fn, int32_t norm_kind, const float* gamma,
                     const float* beta, float eps) {
  if (gamma == nullptr) return Fail(ENC_ERR_INPUT, "%s: gamma is NULL", fn);
  return CheckNormPrologue(fn, norm_kind, gamma, beta, eps);
}

}  // namespace
}  // namespace enc

extern "C" enc_status enc_gemm_normed(int32_t norm_kind, const float* gamma,
                                      const float* beta, float eps, int64_t m,
                                      const float* x, int64_t ldx,
                                      const enc_packed_b* w, const float* bias,
                                      enc_activation act, const float* residual,
                                      int64_t ldr, float* y, int64_t ldy) {
  const char* fn = "enc_gemm_normed";
  if (w == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
  const int64_t k = enc_gemm_packed_k(w), n = enc_gemm_packed_n(w);
  if (k < 1) return enc::Fail(ENC_ERR_INPUT, "%s: w is not packed", fn);
  if (enc_status s = enc::CheckWhole(fn, m, x, ldx, k, y, ldy, n)) return s;
  if (enc_status s = enc::CheckNorm(fn, norm_kind, gamma, beta, eps)) return s;
  // As enc_gemm's, over all rows: each chunk's call sees its own rows only.
  if (m > 0 && residual != nullptr && y != nullptr && ldr >= n && ldy >= n &&
      enc::Overlap(residual, (m - 1) * ldr + n, y, (m - 1) * ldy + n) &&
      !(residual == y && ldr == ldy && act == ENC_ACT_NONE)) {
    return enc::Fail(ENC_ERR_INPUT,
                     "%s: residual overlaps y without being y itself (with "
                     "no activation)",
                     fn);
  }
  return enc::ForEachNormedChunk(
      fn, norm_kind, gamma, beta, eps, m, ENC_NORM_GEMM_CHUNK_ROWS, x, ldx, k,
      [&](int64_t row0, int64_t rows, const float* normed, int64_t ld) {
        return enc_gemm(rows, normed, ld, w, bias, act,
                        residual ? residual + row0 * ldr : nullptr, ldr,
                        y + row0 * ldy, ldy);
      });
}

extern "C" enc_status enc_gemm_gated_normed(
    int32_t norm_kind, const float* gamma, const float* beta, float eps,
    int64_t m, const float* x, int64_t ldx, const enc_packed_gated* w,
    const float* bias_gate, const float* bias_up, enc_activation act, float* y,
    int64_t ldy) {
  const char* fn = "enc_gemm_gated_normed";
  if (w == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
  const int64_t k = enc_gemm_gated_k(w), n = enc_gemm_gated_n(w);
  if (k < 1) return enc::Fail(ENC_ERR_INPUT, "%s: w is not packed", fn);
  if (enc_status s = enc::CheckWhole(fn, m, x, ldx, k, y, ldy, n)) return s;
  if (enc_status s = enc::CheckNorm(fn, norm_kind, gamma, beta, eps)) return s;
  return enc::ForEachNormedChunk(
      fn, norm_kind, gamma, beta, eps, m, ENC_NORM_GEMM_CHUNK_ROWS, x, ldx, k,
      [&](int64_t row0, int64_t rows, const float* normed, int64_t ld) {
        return enc_gemm_gated(rows, normed, ld, w, bias_gate, bias_up, act,
                              y + row0 * ldy, ldy);
      });
}
