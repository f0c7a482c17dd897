// Multi-head attention: argument checks, per-target dispatch, and the split
// of the batch into (sequence, head) tasks over the thread pool.
#include "enc/kernels/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/layout.h"
#include "src/overlap.h"
#include "src/status.h"
#include "src/target.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/attention-inl.h"

#if __has_include("enc/kernels/threads.h") && !defined(ENC_NO_THREADS)
#include "enc/kernels/threads.h"
#define ENC_ATTENTION_HAVE_THREADS 1
#endif

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {

static void AttentionTask(void* ctx, int64_t begin, int64_t end) {
  AttentionArgs& a = *static_cast<AttentionArgs*>(ctx);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t b = t / a.Heads();
    if (SequenceLength(a, b) >= a.split_from) continue;  // done head by head
    AttentionHead(a, b, a.head0 + t % a.Heads());
  }
}

// Zeroes the probability rows past each sequence's length, for every head.
static void ZeroAllPaddingProbs(const AttentionArgs& a) {
  if (a.p.probs == nullptr || !a.zero_padding_probs) return;
  for (int32_t b = 0; b < a.batch; ++b) {
    const HeadShape s = ShapeOf(a, b);
    for (int64_t h = a.head0; h < a.HeadEnd(); ++h) {
      ZeroPaddingProbs(a, s, b, h);
    }
  }
}

#ifdef ENC_ATTENTION_HAVE_THREADS
// A long sequence, head by head: every thread packs a share of the head's
// keys into one shared set of panels, then scores a share of its query rows.
// Memory: one head's panels per call, not one per thread; and a sequence
// with fewer heads than threads still keeps every thread busy.
struct SharedHead {
  AttentionArgs* a;
  HeadShape s;
  int64_t b, h;
  HeadPanels hp;
  KeyRange q;  // the query rows of this call
  size_t kb0;  // the first key block packed (a multiple of kJ)
};

// Key blocks [begin, end) of kJ keys each.
static void PackTask(void* ctx, int64_t begin, int64_t end) {
  SharedHead& t = *static_cast<SharedHead*>(ctx);
  float* T = Scratch(kTransposeRows * t.s.dkp);
  if (T == nullptr) {
    t.a->out_of_memory.store(true);
    return;
  }
  PackKeys(*t.a, t.s, t.b, t.h, t.hp,
           t.kb0 + static_cast<size_t>(begin) * t.s.kJ,
           t.kb0 + static_cast<size_t>(end) * t.s.kJ, T);
}

// Query blocks [begin, end) of kRows rows each.
static void QueryTask(void* ctx, int64_t begin, int64_t end) {
  SharedHead& t = *static_cast<SharedHead*>(ctx);
  float* rows = Scratch(t.s.RowFloats());
  if (rows == nullptr) {
    t.a->out_of_memory.store(true);
    return;
  }
  QueryRows(*t.a, t.s, t.b, t.h, t.hp,
            t.q.lo + static_cast<size_t>(begin) * kRows,
            std::min(t.q.lo + static_cast<size_t>(end) * kRows, t.q.hi), rows);
}

// The calling thread's panels for long sequences: grown as needed, kept for
// its next call.
static float* SharedPanels(size_t floats) {
  return ThreadBuffer<Buffer::kSharedPanels>(floats);
}

static void LongSequence(AttentionArgs& a, int64_t b) {
  const HeadShape s = ShapeOf(a, b);
  const KeyRange q = QueriesOf(a, b, s.L);
  if (q.lo >= q.hi) return;
  const KeyRange kb = KeyBlocksOf(a, s, q);
  float* buf = SharedPanels(s.PanelFloats());
  if (buf == nullptr) {
    a.out_of_memory.store(true);
    return;
  }
  for (int64_t h = a.head0; h < a.HeadEnd() && !a.out_of_memory.load(); ++h) {
    SharedHead t{&a, s, b, h, CarvePanels(s, buf), q, kb.lo};
    if (a.p.rel_bucket != nullptr) FillRelative(a, s, h, t.hp.Rel);
    enc_parallel_for(static_cast<int64_t>((kb.hi - kb.lo) / s.kJ), 4, &PackTask,
                     &t);
    enc_parallel_for(static_cast<int64_t>((q.hi - q.lo + kRows - 1) / kRows), 1,
                     &QueryTask, &t);
  }
}
#endif

void Attention(AttentionArgs& a) {
  ZeroAllPaddingProbs(a);
  const int64_t tasks = static_cast<int64_t>(a.batch) * a.Heads();
#ifdef ENC_ATTENTION_HAVE_THREADS
  // Multiply-adds of the two products. Below ~2^16 (a few microseconds) waking
  // the pool costs more than it saves.
  double work = 0;  // a double: no overflow for any batch
  for (int32_t b = 0; b < a.batch; ++b) {
    const double len = a.lengths ? a.lengths[b] : a.seq_len;
    const KeyRange q = QueriesOf(a, b, static_cast<size_t>(len));
    // A local block's query sees at most window + 1 keys.
    const double keys = a.p.window > 0 ? std::min(len, a.p.window + 1.0) : len;
    work += 2 * static_cast<double>(q.hi - q.lo) * keys;
  }
  work *= static_cast<double>(a.Heads()) * a.p.d_k;
  if (work >= 65536.0) {
    a.split_from = AttentionSplitFrom(enc_threads_count());
    enc_parallel_for(tasks, 1, &AttentionTask, &a);
    for (int32_t b = 0; b < a.batch; ++b) {
      const size_t len = SequenceLength(a, b);
      if (len > 0 && len >= a.split_from) LongSequence(a, b);
    }
    return;
  }
#endif
  AttentionTask(&a, 0, tasks);
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/dispatch.h"

namespace enc {
namespace {
std::atomic<int64_t> g_split_from_for_test{0};
std::atomic<int64_t> g_tile_keys_for_test{0};
}  // namespace

size_t AttentionTileKeys() {
  const int64_t forced = g_tile_keys_for_test.load(std::memory_order_relaxed);
  return forced > 0 ? static_cast<size_t>(forced) : kAttentionTileKeys;
}

void SetAttentionTileKeysForTest(int64_t keys) {
  g_tile_keys_for_test.store(keys);
}

size_t AttentionSplitFrom(int threads) {
  const int64_t forced = g_split_from_for_test.load(std::memory_order_relaxed);
  if (forced > 0) return static_cast<size_t>(forced);
  return threads > 1 ? kAttentionSplitFrom : SIZE_MAX;
}

void SetAttentionSplitFromForTest(int64_t min_len) {
  g_split_from_for_test.store(min_len);
}

ENC_EXPORT(Attention);
bool RunAttention(AttentionArgs& a) {
  a.tile_keys = AttentionTileKeys();
  ENC_DYNAMIC_DISPATCH(Attention)(a);
  return !a.out_of_memory.load();
}

const int64_t* FirstRows(int32_t batch, int32_t seq_len, const int32_t* lengths,
                         int64_t* rows) {
  thread_local std::vector<int64_t> first_row;
  first_row.resize(static_cast<size_t>(batch));
  int64_t row = 0;
  for (int32_t b = 0; b < batch; ++b) {
    first_row[b] = row;
    row += lengths != nullptr ? lengths[b] : seq_len;
  }
  *rows = row;
  return first_row.data();
}

enc_status CheckAttentionParams(const char* fn, const enc_attention_params* p,
                                int32_t batch, int32_t seq_len) {
  if (batch < 0) return Fail(ENC_ERR_INPUT, "%s: batch (%d) < 0", fn, batch);
  if (seq_len < 1)
    return Fail(ENC_ERR_INPUT, "%s: seq_len (%d) < 1", fn, seq_len);
  if (p == nullptr) return Fail(ENC_ERR_INPUT, "%s: params is NULL", fn);
  if (p->heads < 1)
    return Fail(ENC_ERR_INPUT, "%s: heads (%d) < 1", fn, p->heads);
  if (p->d_k < 1) return Fail(ENC_ERR_INPUT, "%s: d_k (%d) < 1", fn, p->d_k);
  if (p->max_len < 1)
    return Fail(ENC_ERR_INPUT, "%s: max_len (%d) < 1", fn, p->max_len);
  if (static_cast<int64_t>(p->heads) * p->d_k > (int64_t{1} << 30)) {
    return Fail(ENC_ERR_INPUT, "%s: heads * d_k (%d * %d) is too large", fn,
                p->heads, p->d_k);
  }
  if (!std::isfinite(p->scale)) {
    return Fail(ENC_ERR_INPUT, "%s: scale (%g) is not finite", fn, p->scale);
  }
  if (p->window < 0) {
    return Fail(ENC_ERR_INPUT, "%s: window (%d) < 0", fn, p->window);
  }
  if (seq_len > p->max_len) {
    return Fail(ENC_ERR_INPUT, "%s: seq_len (%d) exceeds max_len (%d)", fn,
                seq_len, p->max_len);
  }
  switch (p->rope_style) {
    case ENC_ROPE_NONE:
      break;
    case ENC_ROPE_HALVES:
    case ENC_ROPE_INTERLEAVED:
      if (p->d_k % 2 != 0) {
        return Fail(ENC_ERR_INPUT, "%s: RoPE needs an even d_k, got %d", fn,
                    p->d_k);
      }
      if (p->rope_cos == nullptr || p->rope_sin == nullptr) {
        return Fail(ENC_ERR_INPUT,
                    "%s: RoPE needs rope_cos and rope_sin tables", fn);
      }
      break;
    default:
      return Fail(ENC_ERR_INPUT, "%s: unknown rope_style %d", fn,
                  p->rope_style);
  }
  if (p->rel_bucket != nullptr) {
    if (p->rel_table == nullptr) {
      return Fail(ENC_ERR_INPUT, "%s: rel_bucket given without rel_table", fn);
    }
    if (p->rel_buckets < 1) {
      return Fail(ENC_ERR_INPUT, "%s: rel_buckets (%d) < 1", fn,
                  p->rel_buckets);
    }
    const int64_t n = 2 * static_cast<int64_t>(p->max_len) - 1;
    for (int64_t t = 0; t < n; ++t) {
      if (p->rel_bucket[t] < 0 || p->rel_bucket[t] >= p->rel_buckets) {
        return Fail(ENC_ERR_INPUT, "%s: rel_bucket[%lld] = %d is outside 0..%d",
                    fn, (long long)t, p->rel_bucket[t], p->rel_buckets - 1);
      }
    }
  }
  return ENC_OK;
}

// out may be q itself (same stride) when k and v are other columns of
// q's rows: each (sequence, head) reads its keys and values whole before it
// writes, and a query's row before the output row that replaces it
// (attention-inl.h). Any other overlap of out with q, k or v is refused.
static enc_status CheckOutOverlap(const char* fn, int64_t rows, int64_t d_model,
                                  const float* q, const float* k,
                                  const float* v, int64_t ld_in,
                                  const float* out, int64_t ld_out) {
  if (rows == 0) return ENC_OK;
  const int64_t in_len = (rows - 1) * ld_in + d_model;
  const int64_t out_len = (rows - 1) * ld_out + d_model;
  if (out == q && ld_out == ld_in) {
    for (const float* other : {k, v}) {
      // Columns [c, c + d_model) of the same rows, c = other - q: disjoint
      // from q's [0, d_model) when d_model <= |c| <= ld_in - d_model.
      const intptr_t bytes =
          reinterpret_cast<intptr_t>(other) - reinterpret_cast<intptr_t>(q);
      const bool same_rows = bytes % static_cast<intptr_t>(sizeof(float)) == 0;
      const int64_t c = bytes / static_cast<intptr_t>(sizeof(float));
      const int64_t abs_c = c < 0 ? -c : c;
      if (!same_rows || abs_c < d_model || abs_c > ld_in - d_model) {
        if (Overlap(other, in_len, out, out_len)) {
          return Fail(ENC_ERR_INPUT,
                      "%s: out is q, and %s overlaps q's columns", fn,
                      other == k ? "k" : "v");
        }
      }
    }
    return ENC_OK;
  }
  for (const float* in : {q, k, v}) {
    if (Overlap(in, in_len, out, out_len)) {
      return Fail(ENC_ERR_INPUT, "%s: out overlaps %s without being q itself",
                  fn,
                  in == q   ? "q"
                  : in == k ? "k"
                            : "v");
    }
  }
  return ENC_OK;
}
}  // namespace enc

extern "C" enc_status enc_attention(const enc_attention_params* params,
                                    int32_t batch, int32_t seq_len,
                                    const int32_t* lengths, const float* q,
                                    const float* k, const float* v,
                                    int64_t ld_in, float* out, int64_t ld_out) {
  using enc::Fail;
  const char* fn = "enc_attention";
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (enc_status s = enc::CheckAttentionParams(fn, params, batch, seq_len))
    return s;
  if (q == nullptr || k == nullptr || v == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                q == nullptr   ? "q"
                : k == nullptr ? "k"
                : v == nullptr ? "v"
                               : "out");
  }
  const int64_t d_model = static_cast<int64_t>(params->heads) * params->d_k;
  if (ld_in < d_model) {
    return Fail(ENC_ERR_INPUT, "%s: ld_in (%lld) < heads * d_k (%lld)", fn,
                (long long)ld_in, (long long)d_model);
  }
  if (ld_out < d_model) {
    return Fail(ENC_ERR_INPUT, "%s: ld_out (%lld) < heads * d_k (%lld)", fn,
                (long long)ld_out, (long long)d_model);
  }
  if (enc_status s = enc::CheckLengths(fn, batch, seq_len, lengths)) return s;
  if (batch == 0) return ENC_OK;
  int64_t row = 0;
  const int64_t* first_row = enc::FirstRows(batch, seq_len, lengths, &row);
  if (enc_status s =
          enc::CheckOutOverlap(fn, row, d_model, q, k, v, ld_in, out, ld_out)) {
    return s;
  }
  enc::AttentionArgs a{*params, batch, seq_len, lengths, first_row, k, v,
                       ld_in,   q,     ld_in,   out,     ld_out,    0, row};
  if (!enc::RunAttention(a)) {
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate attention scratch", fn);
  }
  return ENC_OK;
}
#endif  // HWY_ONCE
