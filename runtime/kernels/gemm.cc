// enc_gemm: argument validation, the split of Y over the thread pool, and the
// dispatch to the best Highway target (once per call).
#include "kernels/gemm.h"

#include <algorithm>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm-inl.h"

#if HWY_ONCE
#include "enc/kernels/threads.h"
#include "src/status.h"

namespace enc {
HWY_EXPORT(GemmBlock);

namespace {

// Whether [a, a + a_len) and [b, b + b_len) (in floats) overlap.
bool Overlap(const float* a, int64_t a_len, const float* b, int64_t b_len) {
  const auto pa = reinterpret_cast<uintptr_t>(a);
  const auto pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

struct Job {
  GemmBlockFn block;
  const GemmArgs* args;
  int64_t n_splits;  // panel ranges
  int64_t m_step;    // rows per M range
};

void RunTasks(void* ctx, int64_t begin, int64_t end) {
  const Job& job = *static_cast<const Job*>(ctx);
  const GemmArgs& a = *job.args;
  const int64_t panels = (a.n + kGemmPanel - 1) / kGemmPanel;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t im = task / job.n_splits, in = task % job.n_splits;
    const int64_t m0 = im * job.m_step, m1 = std::min(a.m, m0 + job.m_step);
    const int64_t q = panels / job.n_splits, r = panels % job.n_splits;
    const int64_t p0 = in * q + std::min(in, r);
    const int64_t p1 = p0 + q + (in < r ? 1 : 0);
    if (m0 < m1 && p0 < p1) job.block(a, m0, m1, p0, p1);
  }
}

}  // namespace

// The best target's GemmBlock (chosen once per enc_gemm call).
GemmBlockFn ChooseGemmBlock() { return HWY_DYNAMIC_DISPATCH(GemmBlock); }

}  // namespace enc

extern "C" enc_status enc_gemm(int64_t m, const float* x, int64_t ldx,
                               const enc_packed_b* w, const float* bias,
                               enc_activation act, const float* residual,
                               int64_t ldr, float* y, int64_t ldy) {
  using enc::Fail;
  if (w == nullptr) return Fail(ENC_ERR_INPUT, "enc_gemm: w is NULL");
  if (m < 0) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: m (%lld) is negative",
                static_cast<long long>(m));
  }
  const int64_t n = w->n, k = w->k;
  if (n < 1 || k < 1 || w->data == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: w is not a packed matrix");
  }
  const int act_value = enc::EnumArg(act);  // may be any int, from C
  if (act_value < ENC_ACT_NONE || act_value > ENC_ACT_SILU) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: unknown activation %d", act_value);
  }
  if (m == 0) return ENC_OK;
  if (x == nullptr) return Fail(ENC_ERR_INPUT, "enc_gemm: x is NULL");
  if (y == nullptr) return Fail(ENC_ERR_INPUT, "enc_gemm: y is NULL");
  if (ldx < k) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: ldx (%lld) is less than k (%lld)",
                static_cast<long long>(ldx), static_cast<long long>(k));
  }
  if (ldy < n) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: ldy (%lld) is less than n (%lld)",
                static_cast<long long>(ldy), static_cast<long long>(n));
  }
  if (residual != nullptr && ldr < n) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: ldr (%lld) is less than n (%lld)",
                static_cast<long long>(ldr), static_cast<long long>(n));
  }
  const int64_t y_len = (m - 1) * ldy + n;
  if (enc::Overlap(x, (m - 1) * ldx + k, y, y_len)) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: x overlaps y");
  }
  if (residual != nullptr &&
      enc::Overlap(residual, (m - 1) * ldr + n, y, y_len)) {
    const bool in_place = residual == y && ldr == ldy;
    if (!in_place) {
      return Fail(ENC_ERR_INPUT,
                  "enc_gemm: residual overlaps y without being y itself");
    }
    if (act != ENC_ACT_NONE) {
      return Fail(ENC_ERR_INPUT,
                  "enc_gemm: residual may be y only without an activation");
    }
  }

  enc::GemmArgs args{m,    n,   k,        x,   ldx, w->data,
                     bias, act, residual, ldr, y,   ldy};
  enc::Job job;
  job.block = enc::ChooseGemmBlock();
  job.args = &args;
  const int64_t panels = w->panels;
  int64_t threads = enc_threads_count();
  if (static_cast<double>(m) * n * k < 128.0 * 128 * 64) threads = 1;
  // Split the panels first (each thread then reads only its part of W); split
  // the rows as well when there are fewer panels than threads.
  // Four tasks per thread: the pool hands them out dynamically, so a thread
  // that the OS preempts does not hold the others up.
  const int64_t want = threads == 1 ? 1 : 4 * threads;
  job.n_splits = std::min<int64_t>(want, panels);
  int64_t m_splits = (want + job.n_splits - 1) / job.n_splits;
  // A task count the threads divide evenly (3 panels x 3 row ranges would
  // leave one thread 5 tasks of 9).
  while (m_splits > 1 && (job.n_splits * m_splits) % threads != 0) --m_splits;
  constexpr int64_t kRowAlign = 8;  // a multiple of every target's tile rows
  job.m_step =
      ((m + m_splits - 1) / m_splits + kRowAlign - 1) / kRowAlign * kRowAlign;
  const int64_t tasks = ((m + job.m_step - 1) / job.m_step) * job.n_splits;
  enc_parallel_for(tasks, 1, enc::RunTasks, &job);
  return ENC_OK;
}
#endif  // HWY_ONCE
