// An attention sub-layer without the queries, keys and values of every head
// of every row at once (enc/kernels/attention_block.h): the keys and values
// of every row and the queries of one chunk, or, for many rows, the queries,
// keys and values of one group of heads at a time.
#include "enc/kernels/attention_block.h"

#include <algorithm>

#include "enc/kernels/norm.h"
#include "enc/kernels/norm_gemm.h"
#include "kernels/attention_args.h"
#include "kernels/gemm.h"
#include "src/layout.h"
#include "src/status.h"
#include "src/target.h"
#include "src/thread_scratch.h"

namespace enc {
namespace {

// ThreadScratch's tags.
struct QueryChunk {};    // one chunk's queries
struct KeysValues {};    // the keys and values of every row
struct AttentionOut {};  // the attention output of every row
struct GroupColumns {};  // one head group's queries, keys and values
struct GroupNormed {};   // one chunk of normed rows
struct GroupPanels {};   // one chunk's projection onto whole panels

int64_t heads_per_group_for_test = 0;

enc_status CheckArgs(const char* fn, const enc_attention_params* params,
                     int32_t batch, int32_t seq_len, const int32_t* lengths,
                     const float* x, int64_t ldx, const enc_packed_b* wq,
                     const enc_packed_b* wkv, const enc_packed_b* wo,
                     const float* y, int64_t ldy) {
  if (enc_status s = CheckAttentionParams(fn, params, batch, seq_len)) return s;
  if (x == nullptr || y == nullptr || wq == nullptr || wkv == nullptr ||
      wo == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                x == nullptr     ? "x"
                : y == nullptr   ? "y"
                : wq == nullptr  ? "wq"
                : wkv == nullptr ? "wkv"
                                 : "wo");
  }
  const int64_t d = static_cast<int64_t>(params->heads) * params->d_k;
  const int64_t d_model = enc_gemm_packed_n(wo);
  if (enc_gemm_packed_k(wo) != d || enc_gemm_packed_n(wq) != d ||
      enc_gemm_packed_k(wq) != d_model || enc_gemm_packed_n(wkv) != 2 * d ||
      enc_gemm_packed_k(wkv) != d_model) {
    return Fail(
        ENC_ERR_INPUT,
        "%s: wq is [%lld, %lld], wkv [%lld, %lld] and wo [%lld, "
        "%lld]; with heads * d_k = %lld they must be [%lld, d_model], "
        "[%lld, d_model] and [d_model, %lld]",
        fn, (long long)enc_gemm_packed_n(wq), (long long)enc_gemm_packed_k(wq),
        (long long)enc_gemm_packed_n(wkv), (long long)enc_gemm_packed_k(wkv),
        (long long)d_model, (long long)enc_gemm_packed_k(wo), (long long)d,
        (long long)d, (long long)(2 * d), (long long)d);
  }
  if (ldx < d_model || ldy < d_model) {
    return Fail(ENC_ERR_INPUT,
                "%s: strides ldx %lld, ldy %lld (>= d_model %lld)", fn,
                (long long)ldx, (long long)ldy, (long long)d_model);
  }
  return CheckLengths(fn, batch, seq_len, lengths);
}

// The heads whose queries, keys and values exist at once for `rows` rows:
// all of them while the keys and values of every row fit in
// ENC_ATTENTION_BLOCK_KV_BYTES, else as many as fit in
// ENC_ATTENTION_BLOCK_GROUP_BYTES (at least one).
int64_t HeadsPerGroup(int64_t rows, int64_t heads, int64_t d_k) {
  if (heads_per_group_for_test > 0) {
    return std::min<int64_t>(heads_per_group_for_test, heads);
  }
  const int64_t head_bytes = rows * d_k * int64_t{sizeof(float)};
  if (2 * heads * head_bytes <= ENC_ATTENTION_BLOCK_KV_BYTES) return heads;
  return std::clamp<int64_t>(ENC_ATTENTION_BLOCK_GROUP_BYTES / (3 * head_bytes),
                             1, heads);
}

// One projection of a head group: the view of W's whole panels that hold
// columns [c0, c1), and where those columns go.
struct GroupProjection {
  enc_packed_b view;
  const float* bias;  // of the view's columns, or nullptr
  int64_t skip;       // view columns before c0
  float* out;         // [rows, ld]: c1 - c0 columns a row

  GroupProjection(const enc_packed_b& w, const float* b, int64_t c0, int64_t c1,
                  float* o)
      : out(o) {
    int64_t first = 0;
    view = ColumnPanels(w, c0, c1, &first);
    bias = b != nullptr ? b + first : nullptr;
    skip = c0 - first;
  }
};

// Projects every row's queries, keys and values of a head group into their
// proj[i].out ([rows, 3 * width] apart: q, k, v of a row side by side), a
// chunk of (normed) rows at a time through a scratch of the views' whole
// panels.
enc_status ProjectGroup(const char* fn, int32_t norm_kind, const float* gamma,
                        const float* beta, float eps, int64_t rows,
                        const float* x, int64_t ldx, int64_t d_model,
                        const GroupProjection (&proj)[3], int64_t width) {
  const int64_t ld = 3 * width;
  int64_t panel_cols = 0;
  for (const GroupProjection& p : proj) {
    panel_cols = std::max(panel_cols, p.view.n);
  }
  const int64_t chunk = std::min<int64_t>(rows, ENC_NORM_GEMM_CHUNK_ROWS);
  float* wide = ChunkScratch<GroupPanels>(fn, chunk, panel_cols);
  if (wide == nullptr) return ENC_ERR_NOMEM;
  const int64_t normed_width = gamma != nullptr ? d_model : 1;  // 1: unused
  return ForEachChunk<GroupNormed>(
      fn, rows, chunk, normed_width, [&](int64_t r0, int64_t n, float* normed) {
        const float* in = x + r0 * ldx;
        int64_t ld_in = ldx;
        if (gamma != nullptr) {
          if (enc_status s = enc_norm(norm_kind, n, d_model, in, ldx, gamma,
                                      beta, eps, normed, d_model)) {
            return s;
          }
          in = normed;
          ld_in = d_model;
        }
        for (const GroupProjection& p : proj) {
          if (enc_status s =
                  enc_gemm(n, in, ld_in, &p.view, p.bias, ENC_ACT_NONE, nullptr,
                           0, wide, p.view.n)) {
            return s;
          }
          for (int64_t r = 0; r < n; ++r) {
            const float* from = wide + r * p.view.n + p.skip;
            std::copy(from, from + width, p.out + (r0 + r) * ld);
          }
        }
        return ENC_OK;
      });
}

// Every row, a head group at a time: the group's queries, keys and values
// of every row, its attention into its columns of ctx; then the output
// projection of ctx adds to y.
enc_status Grouped(const char* fn, const enc_attention_params& params,
                   int32_t batch, int32_t seq_len, const int32_t* lengths,
                   const int64_t* first_row, int64_t rows, int64_t group,
                   int32_t norm_kind, const float* gamma, const float* beta,
                   float eps, const float* x, int64_t ldx,
                   const enc_packed_b& wq, const float* bq,
                   const enc_packed_b& wkv, const float* bkv,
                   const enc_packed_b& wo, const float* bo, float* y,
                   int64_t ldy) {
  const int64_t dk = params.d_k, d = params.heads * dk, d_model = wo.n;
  float* ctx = ChunkScratch<AttentionOut>(fn, rows, d);
  if (ctx == nullptr) return ENC_ERR_NOMEM;
  float* cols = ChunkScratch<GroupColumns>(fn, rows, 3 * group * dk);
  if (cols == nullptr) return ENC_ERR_NOMEM;
  for (int64_t h0 = 0; h0 < params.heads; h0 += group) {
    const int64_t h1 = std::min<int64_t>(h0 + group, params.heads);
    const int64_t c0 = h0 * dk, c1 = h1 * dk, width = c1 - c0;
    GroupProjection proj[3] = {
        GroupProjection(wq, bq, c0, c1, cols),
        GroupProjection(wkv, bkv, c0, c1, cols + width),
        GroupProjection(wkv, bkv, d + c0, d + c1, cols + 2 * width)};
    if (enc_status s = ProjectGroup(fn, norm_kind, gamma, beta, eps, rows, x,
                                    ldx, d_model, proj, width)) {
      return s;
    }
    AttentionArgs a{params,      batch,       seq_len,   lengths, first_row,
                    proj[1].out, proj[2].out, 3 * width, cols,    3 * width,
                    ctx + c0,    d,           0,         rows};
    a.head0 = h0;
    a.head_end = h1;
    if (!RunAttention(a)) {
      return Fail(ENC_ERR_NOMEM, "%s: cannot allocate attention scratch", fn);
    }
  }
  return enc_gemm(rows, ctx, d, &wo, bo, ENC_ACT_NONE, x, ldx, y, ldy);
}

// Every head at once: the keys and values of every row, then the queries of
// one chunk of rows after another.
enc_status AllHeads(const char* fn, const enc_attention_params& params,
                    int32_t batch, int32_t seq_len, const int32_t* lengths,
                    const int64_t* first_row, int64_t rows, int32_t norm_kind,
                    const float* gamma, const float* beta, float eps,
                    const float* x, int64_t ldx, const enc_packed_b* wq,
                    const float* bq, const enc_packed_b* wkv, const float* bkv,
                    const enc_packed_b* wo, const float* bo, float* y,
                    int64_t ldy) {
  const int64_t d = static_cast<int64_t>(params.heads) * params.d_k;
  float* kv = ChunkScratch<KeysValues>(fn, rows, 2 * d);
  if (kv == nullptr) return ENC_ERR_NOMEM;
  if (enc_status s = GemmAfterNorm(norm_kind, gamma, beta, eps, rows, x, ldx,
                                   wkv, bkv, ENC_ACT_NONE, kv, 2 * d)) {
    return s;
  }
  return ForEachChunk<QueryChunk>(
      fn, rows, ENC_ATTENTION_BLOCK_CHUNK_ROWS, d,
      [&](int64_t r0, int64_t n, float* q) {
        const float* xr = x + r0 * ldx;
        enc_status s = GemmAfterNorm(norm_kind, gamma, beta, eps, n, xr, ldx,
                                     wq, bq, ENC_ACT_NONE, q, d);
        if (s != ENC_OK) return s;
        // first_row is the calling thread's; the GEMMs above do not touch it.
        AttentionArgs a{params, batch, seq_len, lengths, first_row, kv, kv + d,
                        2 * d,  q,     d,       q,       d,         r0, r0 + n};
        a.zero_padding_probs = r0 == 0;
        if (!RunAttention(a)) {
          return Fail(ENC_ERR_NOMEM, "%s: cannot allocate attention scratch",
                      fn);
        }
        return enc_gemm(n, q, d, wo, bo, ENC_ACT_NONE, xr, ldx, y + r0 * ldy,
                        ldy);
      });
}

}  // namespace

void SetAttentionBlockHeadsPerGroupForTest(int64_t heads) {
  heads_per_group_for_test = heads;
}

}  // namespace enc

extern "C" enc_status enc_attention_block(
    const enc_attention_params* params, int32_t batch, int32_t seq_len,
    const int32_t* lengths, int32_t norm_kind, const float* gamma,
    const float* beta, float eps, const float* x, int64_t ldx,
    const enc_packed_b* wq, const float* bq, const enc_packed_b* wkv,
    const float* bkv, const enc_packed_b* wo, const float* bo, float* y,
    int64_t ldy) {
  const char* fn = "enc_attention_block";
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (enc_status s = enc::CheckArgs(fn, params, batch, seq_len, lengths, x, ldx,
                                    wq, wkv, wo, y, ldy)) {
    return s;
  }
  if (enc_status s = enc::CheckNormPrologue(fn, norm_kind, gamma, beta, eps))
    return s;
  if (batch == 0) return ENC_OK;
  int64_t rows = 0;
  const int64_t* first_row = enc::FirstRows(batch, seq_len, lengths, &rows);
  if (rows == 0) {
    // Nothing to compute, but the probabilities of padding are still zeroed.
    enc::AttentionArgs a{*params, batch,   seq_len, lengths, first_row,
                         nullptr, nullptr, 0,       nullptr, 0,
                         nullptr, 0,       0,       0};
    enc::RunAttention(a);
    return ENC_OK;
  }
  const int64_t d_model = enc_gemm_packed_n(wo);
  if (enc_status s =
          enc::CheckInPlaceOrApart(fn, x, ldx, y, ldy, rows, d_model))
    return s;
  const int64_t group = enc::HeadsPerGroup(rows, params->heads, params->d_k);
  if (group == params->heads) {
    return enc::AllHeads(fn, *params, batch, seq_len, lengths, first_row, rows,
                         norm_kind, gamma, beta, eps, x, ldx, wq, bq, wkv, bkv,
                         wo, bo, y, ldy);
  }
  return enc::Grouped(fn, *params, batch, seq_len, lengths, first_row, rows,
                      group, norm_kind, gamma, beta, eps, x, ldx, *wq, bq, *wkv,
                      bkv, *wo, bo, y, ldy);
}
