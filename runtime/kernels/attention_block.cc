// An attention sub-layer, a chunk of query rows at a time
// (enc/kernels/attention_block.h): the queries of one chunk exist at once,
// never those of every row.
#include "enc/kernels/attention_block.h"

#include <algorithm>

#include "enc/kernels/norm_gemm.h"
#include "kernels/attention_args.h"
#include "src/layout.h"
#include "src/overlap.h"
#include "src/status.h"
#include "src/target.h"
#include "src/thread_scratch.h"

namespace enc {
namespace {

struct QueryChunk {};  // ThreadScratch's tag: one chunk's queries

enc_status CheckArgs(const char* fn, const enc_attention_params* params,
                     int32_t batch, int32_t seq_len, const int32_t* lengths,
                     const float* x, int64_t ldx, const enc_packed_b* wq,
                     const float* k, const float* v, int64_t ld_kv,
                     const enc_packed_b* wo, const float* y, int64_t ldy) {
  if (enc_status s = CheckAttentionParams(fn, params, batch, seq_len)) return s;
  if (x == nullptr || k == nullptr || v == nullptr || y == nullptr ||
      wq == nullptr || wo == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                x == nullptr    ? "x"
                : k == nullptr  ? "k"
                : v == nullptr  ? "v"
                : y == nullptr  ? "y"
                : wq == nullptr ? "wq"
                                : "wo");
  }
  const int64_t d = static_cast<int64_t>(params->heads) * params->d_k;
  const int64_t d_model = enc_gemm_packed_n(wo);
  if (enc_gemm_packed_k(wo) != d || enc_gemm_packed_n(wq) != d ||
      enc_gemm_packed_k(wq) != d_model) {
    return Fail(ENC_ERR_INPUT,
                "%s: wq is [%lld, %lld] and wo [%lld, %lld]; with heads * d_k "
                "= %lld they must be [%lld, d_model] and [d_model, %lld]",
                fn, (long long)enc_gemm_packed_n(wq),
                (long long)enc_gemm_packed_k(wq), (long long)d_model,
                (long long)enc_gemm_packed_k(wo), (long long)d, (long long)d,
                (long long)d);
  }
  if (ldx < d_model || ldy < d_model || ld_kv < d) {
    return Fail(ENC_ERR_INPUT,
                "%s: strides ldx %lld, ldy %lld (>= d_model %lld), ld_kv %lld "
                "(>= heads * d_k %lld)",
                fn, (long long)ldx, (long long)ldy, (long long)d_model,
                (long long)ld_kv, (long long)d);
  }
  return CheckLengths(fn, batch, seq_len, lengths);
}

}  // namespace
}  // namespace enc

extern "C" enc_status enc_attention_block(
    const enc_attention_params* params, int32_t batch, int32_t seq_len,
    const int32_t* lengths, int32_t norm_kind, const float* gamma,
    const float* beta, float eps, const float* x, int64_t ldx,
    const enc_packed_b* wq, const float* bq, const float* k, const float* v,
    int64_t ld_kv, const enc_packed_b* wo, const float* bo, float* y,
    int64_t ldy) {
  using enc::Fail;
  const char* fn = "enc_attention_block";
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (enc_status s = enc::CheckArgs(fn, params, batch, seq_len, lengths, x, ldx,
                                    wq, k, v, ld_kv, wo, y, ldy)) {
    return s;
  }
  if (enc_status s = enc::CheckNormPrologue(fn, norm_kind, gamma, beta, eps))
    return s;
  if (batch == 0) return ENC_OK;
  int64_t rows = 0;
  const int64_t* first_row = enc::FirstRows(batch, seq_len, lengths, &rows);
  if (rows == 0) {
    // Nothing to compute, but the probabilities of padding are still zeroed.
    enc::AttentionArgs a{*params, batch,   seq_len, lengths, first_row, k, v,
                         ld_kv,   nullptr, 0,       nullptr, 0,         0, 0};
    enc::RunAttention(a);
    return ENC_OK;
  }
  const int64_t d = static_cast<int64_t>(params->heads) * params->d_k;
  const int64_t d_model = enc_gemm_packed_n(wo);
  const int64_t kv_len = (rows - 1) * ld_kv + d;
  const int64_t y_len = (rows - 1) * ldy + d_model;
  if (enc::Overlap(k, kv_len, y, y_len) || enc::Overlap(v, kv_len, y, y_len)) {
    return Fail(ENC_ERR_INPUT, "%s: y overlaps k or v", fn);
  }
  if (enc_status s =
          enc::CheckInPlaceOrApart(fn, x, ldx, y, ldy, rows, d_model))
    return s;
  return enc::ForEachChunk<enc::QueryChunk>(
      fn, rows, ENC_ATTENTION_BLOCK_CHUNK_ROWS, d,
      [&](int64_t r0, int64_t n, float* q) {
        const float* xr = x + r0 * ldx;
        enc_status s = enc::GemmAfterNorm(norm_kind, gamma, beta, eps, n, xr,
                                          ldx, wq, bq, ENC_ACT_NONE, q, d);
        if (s != ENC_OK) return s;
        // first_row is the calling thread's; the GEMMs above do not touch it.
        enc::AttentionArgs a{*params, batch, seq_len, lengths, first_row,
                             k,       v,     ld_kv,   q,       d,
                             q,       d,     r0,      r0 + n};
        a.zero_padding_probs = r0 == 0;
        if (!enc::RunAttention(a)) {
          return Fail(ENC_ERR_NOMEM, "%s: cannot allocate attention scratch",
                      fn);
        }
        return enc_gemm(n, q, d, wo, bo, ENC_ACT_NONE, xr, ldx, y + r0 * ldy,
                        ldy);
      });
}
