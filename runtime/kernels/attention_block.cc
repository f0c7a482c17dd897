// An attention sub-layer without the queries, keys and values of every head
// of every row at once (enc/kernels/attention_block.h): the keys and values
// of every row and the queries of one chunk, or, for many rows, the keys and
// values of one group of heads at a time.
#include "enc/kernels/attention_block.h"

#include <algorithm>
#include <numeric>

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

// ThreadScratch's tags besides the shared BlockRows (the keys and values of
// every row, of a group) and NormedRows.
struct QueryChunk {};    // one chunk's queries
struct AttentionOut {};  // the attention output of every row
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

// One projection of a head group: the view of W's whole panels that hold
// columns [c0, c1), and where those columns go.
struct GroupProjection {
  enc_packed_b view;
  const float* bias;  // of the view's columns, or nullptr
  int64_t skip;       // view columns before c0
  int64_t width;      // c1 - c0
  float* out;         // row r at out + r * ld

  GroupProjection(const enc_packed_b& w, const float* b, int64_t c0, int64_t c1,
                  float* o)
      : width(c1 - c0), out(o) {
    int64_t first = 0;
    view = ColumnPanels(w, c0, c1, &first);
    bias = b != nullptr ? b + first : nullptr;
    skip = c0 - first;
  }
  // Whether the view's columns are exactly [c0, c1).
  bool Exact() const { return skip == 0 && view.n == width; }
};

// Projects `n` rows of x (normed first when gamma is set, a chunk at a time)
// through each of `count` projections into its out, rows `ld` apart. A view
// wider than its columns goes through a scratch and only its columns are
// kept.
enc_status ProjectRows(const char* fn, int32_t norm_kind, const float* gamma,
                       const float* beta, float eps, int64_t n, const float* x,
                       int64_t ldx, int64_t d_model,
                       const GroupProjection* proj, int count, int64_t ld) {
  int64_t wide_cols = 1;
  for (int i = 0; i < count; ++i) {
    if (!proj[i].Exact()) wide_cols = std::max(wide_cols, proj[i].view.n);
  }
  const int64_t chunk = std::min<int64_t>(n, ENC_NORM_GEMM_CHUNK_ROWS);
  float* wide = ChunkScratch<GroupPanels>(fn, chunk, wide_cols);
  if (wide == nullptr) return ENC_ERR_NOMEM;
  return ForEachNormedChunk(
      fn, norm_kind, gamma, beta, eps, n, chunk, x, ldx, d_model,
      [&](int64_t r0, int64_t m, const float* in, int64_t ld_in) {
        for (int i = 0; i < count; ++i) {
          const GroupProjection& p = proj[i];
          float* out = p.out + r0 * ld;
          if (p.Exact()) {
            if (enc_status s = enc_gemm(m, in, ld_in, &p.view, p.bias,
                                        ENC_ACT_NONE, nullptr, 0, out, ld)) {
              return s;
            }
            continue;
          }
          if (enc_status s =
                  enc_gemm(m, in, ld_in, &p.view, p.bias, ENC_ACT_NONE, nullptr,
                           0, wide, p.view.n)) {
            return s;
          }
          for (int64_t r = 0; r < m; ++r) {
            const float* from = wide + r * p.view.n + p.skip;
            std::copy(from, from + p.width, out + r * ld);
          }
        }
        return ENC_OK;
      });
}

// Every row, a head group at a time: the group's keys and values of every
// row, then the queries of one chunk of rows after another, projected into
// the group's columns of ctx (every row's attention output) that their
// output then replaces; x is only read until the output projection of ctx
// adds to y.
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
  float* kv = ChunkScratch<BlockRows>(fn, rows, 2 * group * dk);
  if (kv == nullptr) return ENC_ERR_NOMEM;
  for (int64_t h0 = 0; h0 < params.heads; h0 += group) {
    const int64_t h1 = std::min<int64_t>(h0 + group, params.heads);
    const int64_t c0 = h0 * dk, c1 = h1 * dk, width = c1 - c0;
    const GroupProjection keys_values[2] = {
        GroupProjection(wkv, bkv, c0, c1, kv),
        GroupProjection(wkv, bkv, d + c0, d + c1, kv + width)};
    if (enc_status s = ProjectRows(fn, norm_kind, gamma, beta, eps, rows, x,
                                   ldx, d_model, keys_values, 2, 2 * width)) {
      return s;
    }
    // The queries go to the columns their attention output replaces.
    const int64_t chunk = ENC_ATTENTION_BLOCK_CHUNK_ROWS;
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t n = std::min(chunk, rows - r0);
      float* q = ctx + r0 * d + c0;
      const GroupProjection queries(wq, bq, c0, c1, q);
      if (enc_status s =
              ProjectRows(fn, norm_kind, gamma, beta, eps, n, x + r0 * ldx, ldx,
                          d_model, &queries, 1, d)) {
        return s;
      }
      AttentionArgs a{params, batch,      seq_len,   lengths, first_row,
                      kv,     kv + width, 2 * width, q,       d,
                      q,      d,          r0,        r0 + n};
      a.head0 = h0;
      a.head_end = h1;
      a.zero_padding_probs = r0 == 0;
      if (!RunAttention(a)) {
        return Fail(ENC_ERR_NOMEM, "%s: cannot allocate attention scratch", fn);
      }
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
  float* kv = ChunkScratch<BlockRows>(fn, rows, 2 * d);
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

int64_t AttentionBlockHeadsPerGroup(int64_t rows, int64_t heads, int64_t d_k,
                                    int64_t panel) {
  if (heads_per_group_for_test > 0) {
    return std::min<int64_t>(heads_per_group_for_test, heads);
  }
  const int64_t head_bytes = 2 * rows * d_k * int64_t{sizeof(float)};
  if (heads * head_bytes <= ENC_ATTENTION_BLOCK_KV_BYTES) return heads;
  const int64_t step = panel / std::gcd(panel, d_k);
  const int64_t fit = ENC_ATTENTION_BLOCK_GROUP_BYTES / head_bytes;
  return std::min(heads, std::max(step, fit / step * step));
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
  const int64_t group = enc::AttentionBlockHeadsPerGroup(
      rows, params->heads, params->d_k, enc::PanelWidth(*wkv));
  if (group == params->heads) {
    return enc::AllHeads(fn, *params, batch, seq_len, lengths, first_row, rows,
                         norm_kind, gamma, beta, eps, x, ldx, wq, bq, wkv, bkv,
                         wo, bo, y, ldy);
  }
  return enc::Grouped(fn, *params, batch, seq_len, lengths, first_row, rows,
                      group, norm_kind, gamma, beta, eps, x, ldx, *wq, bq, *wkv,
                      bkv, *wo, bo, y, ldy);
}
