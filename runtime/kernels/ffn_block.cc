// A feed-forward sub-layer, a chunk of rows at a time
// (enc/kernels/ffn_block.h): the hidden activations of one chunk exist at
// once, never those of every row.
#include "enc/kernels/ffn_block.h"

#include <algorithm>

#include "enc/kernels/norm.h"
#include "enc/kernels/norm_gemm.h"
#include "src/status.h"
#include "src/target.h"
#include "src/thread_scratch.h"

namespace enc {
namespace {

bool KnownActivation(enc_activation act) {
  const int a = static_cast<int>(act);
  return a >= 0 && a < static_cast<int>(ENC_ACT_COUNT);
}

}  // namespace
}  // namespace enc

extern "C" enc_status enc_ffn_block(int32_t norm_kind, const float* gamma,
                                    const float* beta, float eps, int64_t m,
                                    const float* x, int64_t ldx,
                                    const enc_packed_b* w1,
                                    const enc_packed_gated* w_gated,
                                    const float* b1, const float* b_up,
                                    enc_activation act, const enc_packed_b* w2,
                                    const float* b2, float* y, int64_t ldy) {
  using enc::Fail;
  const char* fn = "enc_ffn_block";
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (m < 0) return Fail(ENC_ERR_INPUT, "%s: m (%lld) < 0", fn, (long long)m);
  if ((w1 == nullptr) == (w_gated == nullptr)) {
    return Fail(ENC_ERR_INPUT, "%s: give exactly one of w1 and w_gated", fn);
  }
  if (w2 == nullptr || x == nullptr || y == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                w2 == nullptr  ? "w2"
                : x == nullptr ? "x"
                               : "y");
  }
  if (w1 != nullptr && b_up != nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: b_up is for w_gated only", fn);
  }
  const int64_t d_ff = w1 ? enc_gemm_packed_n(w1) : enc_gemm_gated_n(w_gated);
  const int64_t d_in = w1 ? enc_gemm_packed_k(w1) : enc_gemm_gated_k(w_gated);
  const int64_t d_model = enc_gemm_packed_n(w2);
  if (d_ff < 1 || d_in != d_model || enc_gemm_packed_k(w2) != d_ff) {
    return Fail(ENC_ERR_INPUT,
                "%s: the hidden projection is [%lld, %lld] and w2 [%lld, "
                "%lld]; they must be [d_ff, d_model] and [d_model, d_ff]",
                fn, (long long)d_ff, (long long)d_in, (long long)d_model,
                (long long)enc_gemm_packed_k(w2));
  }
  if (ldx < d_model || ldy < d_model) {
    return Fail(ENC_ERR_INPUT, "%s: ldx (%lld) or ldy (%lld) < d_model (%lld)",
                fn, (long long)ldx, (long long)ldy, (long long)d_model);
  }
  if (!enc::KnownActivation(act)) {
    return Fail(ENC_ERR_INPUT, "%s: unknown activation %d", fn,
                static_cast<int>(act));
  }
  if (enc_status s = enc::CheckNormPrologue(fn, norm_kind, gamma, beta, eps))
    return s;
  if (m == 0) return ENC_OK;
  if (enc_status s = enc::CheckInPlaceOrApart(fn, x, ldx, y, ldy, m, d_model))
    return s;
  return enc::ForEachChunk<enc::BlockRows>(
      fn, m, ENC_FFN_BLOCK_CHUNK_ROWS, d_ff,
      [&](int64_t r0, int64_t n, float* h) {
        const float* xr = x + r0 * ldx;
        enc_status s =
            w1 != nullptr ? enc::GemmAfterNorm(norm_kind, gamma, beta, eps, n,
                                               xr, ldx, w1, b1, act, h, d_ff)
            : gamma != nullptr
                ? enc_gemm_gated_normed(norm_kind, gamma, beta, eps, n, xr, ldx,
                                        w_gated, b1, b_up, act, h, d_ff)
                : enc_gemm_gated(n, xr, ldx, w_gated, b1, b_up, act, h, d_ff);
        if (s != ENC_OK) return s;
        return enc_gemm(n, h, d_ff, w2, b2, ENC_ACT_NONE, xr, ldx, y + r0 * ldy,
                        ldy);
      });
}
