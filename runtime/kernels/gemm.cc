// enc_gemm: argument validation, the split of Y over the thread pool, and the
// per-target kernel (the one matching the packed layout, kernels/gemm.h).
#include "kernels/gemm.h"
#include "kernels/activation.h"
#include "kernels/gemm_bf16.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm-inl.h"

#if HWY_ONCE
#include "enc/kernels/threads.h"
#include "src/dispatch.h"
#include "src/status.h"
#include "src/threads.h"

namespace enc {
ENC_EXPORT(GetGemmKernel);

GemmKernel ChooseGemmKernel() { return ENC_DYNAMIC_DISPATCH(GetGemmKernel)(); }

namespace {

// Whether [a, a + a_len) and [b, b + b_len) (in floats) overlap.
bool Overlap(const float* a, int64_t a_len, const float* b, int64_t b_len) {
  const auto pa = reinterpret_cast<uintptr_t>(a);
  const auto pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

// Multiply-adds per thread below which another thread costs more than it
// saves: the wake-up and join of a pool loop are a few microseconds, about
// 0.5 M multiply-adds on one core. (The smallest GEMM of tiny b1s128,
// 128 x 128 x 128 = 2 M, runs faster on 2 threads than on 1 in gemm_bench.)
constexpr double kMinMacsPerThread = 512.0 * 1024;

// The work units of one call: row blocks x panels, row-block-major (a unit
// is one panel of one row block); a range of units is a few runs of panels.
struct Partition {
  GemmBlocksFn block;
  const void* ctx;
  int64_t m;
  int64_t panels;
  int64_t row_step;  // rows per row block, a multiple of the tile's rows
};

void RunUnits(void* ctx, int64_t begin, int64_t end) {
  const Partition& part = *static_cast<const Partition*>(ctx);
  while (begin < end) {
    const int64_t rb = begin / part.panels, p0 = begin % part.panels;
    const int64_t p1 = std::min(part.panels, p0 + (end - begin));
    const int64_t m0 = rb * part.row_step;
    const int64_t m1 = std::min(part.m, m0 + part.row_step);
    part.block(part.ctx, m0, m1, p0, p1);
    begin += p1 - p0;
  }
}

// An fp32 (plain or gated) call's blocks, as RunGemmBlocks runs them; a block
// that cannot allocate its partial sums marks the call failed.
struct Fp32Call {
  GemmArgs args;
  GemmBlockFn block;
  mutable std::atomic<bool> failed{false};
};

void Fp32Blocks(const void* ctx, int64_t m0, int64_t m1, int64_t p0,
                int64_t p1) {
  const Fp32Call& call = *static_cast<const Fp32Call*>(ctx);
  if (call.failed.load(std::memory_order_relaxed)) return;
  if (!call.block(call.args, m0, m1, p0, p1)) {
    call.failed.store(true, std::memory_order_relaxed);
  }
}

// Whether p is what a pack function made, for its precision.
bool IsPacked(const enc_packed_b& p) {
  switch (p.precision) {
    case ENC_PRECISION_FP32:
      return p.data != nullptr && p.layout.block != nullptr;
    case ENC_PRECISION_INT8:
      return p.int8.panels != nullptr && p.int8.kernel.block != nullptr;
    case ENC_PRECISION_BF16:
      return p.bf16.data != nullptr && p.bf16.kernel.block != nullptr;
  }
  return false;
}

// Checks what enc_gemm and enc_gemm_gated share: w, m, act, x, y and their
// strides (n output columns), and that x and y do not overlap. ENC_OK with
// *done set when m == 0 (nothing to do). act_value is the caller's
// activation as an int (EnumArg): from C it may be any int, and copying it as
// an enc_activation before it is checked would be undefined.
enc_status CheckArgs(const char* fn, int64_t m, const float* x, int64_t ldx,
                     const enc_packed_b* w, int act_value, float* y,
                     int64_t ldy, bool* done) {
  *done = true;
  if (w == nullptr) return Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
  if (m < 0) {
    return Fail(ENC_ERR_INPUT, "%s: m (%lld) is negative", fn,
                static_cast<long long>(m));
  }
  const int64_t n = w->n, k = w->k;
  if (n < 1 || k < 1 || !IsPacked(*w)) {
    return Fail(ENC_ERR_INPUT, "%s: w is not a packed matrix", fn);
  }
  if (!IsActivation(act_value)) {
    return Fail(ENC_ERR_INPUT, "%s: unknown activation %d", fn, act_value);
  }
  if (m == 0) return ENC_OK;
  if (x == nullptr) return Fail(ENC_ERR_INPUT, "%s: x is NULL", fn);
  if (y == nullptr) return Fail(ENC_ERR_INPUT, "%s: y is NULL", fn);
  if (ldx < k) {
    return Fail(ENC_ERR_INPUT, "%s: ldx (%lld) is less than k (%lld)", fn,
                static_cast<long long>(ldx), static_cast<long long>(k));
  }
  if (ldy < n) {
    return Fail(ENC_ERR_INPUT, "%s: ldy (%lld) is less than n (%lld)", fn,
                static_cast<long long>(ldy), static_cast<long long>(n));
  }
  if (Overlap(x, (m - 1) * ldx + k, y, (m - 1) * ldy + n)) {
    return Fail(ENC_ERR_INPUT, "%s: x overlaps y", fn);
  }
  *done = false;
  return ENC_OK;
}

// Runs a validated fp32 call over the thread pool, in units of w's panels;
// `products`: the weight matrices (enc_gemm 1; enc_gemm_gated 2, gate and
// up).
enc_status Run(const char* fn, const GemmArgs& args, const enc_packed_b& w,
               int products) {
  const Fp32Call call{args, w.layout.block};
  RunGemmBlocks(args.m, args.n * products, args.k, w.panels, w.layout.rows,
                &Fp32Blocks, &call);
  if (call.failed.load()) {
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate the partial sums", fn);
  }
  return ENC_OK;
}

}  // namespace

void RunGemmBlocks(int64_t m, int64_t n, int64_t k, int64_t panels,
                   int64_t rows, GemmBlocksFn block, const void* ctx) {
  // Threads by work: each one gets at least kMinMacsPerThread.
  const double macs = static_cast<double>(m) * n * k;
  const int threads = static_cast<int>(std::max<double>(
      1, std::min<double>(enc_threads_count(), macs / kMinMacsPerThread)));
  // Units: whole panels (each thread then reads only its part of W), and row
  // blocks as well when there are too few panels for the guided split to
  // balance (a unit should be at most ~1/8 of a thread's share).
  Partition part;
  part.block = block;
  part.ctx = ctx;
  part.m = m;
  part.panels = panels;
  const int64_t tiles = (m + rows - 1) / rows;
  int64_t row_blocks = 1;
  if (threads > 1) {
    const int64_t want = 8 * int64_t{threads};
    row_blocks = std::min(tiles, (want + panels - 1) / panels);
  }
  part.row_step = (tiles + row_blocks - 1) / row_blocks * rows;
  row_blocks = (m + part.row_step - 1) / part.row_step;
  ParallelForGuided(row_blocks * panels, 1, threads, &RunUnits, &part);
}

}  // namespace enc

extern "C" enc_status enc_gemm(int64_t m, const float* x, int64_t ldx,
                               const enc_packed_b* w, const float* bias,
                               enc_activation act, const float* residual,
                               int64_t ldr, float* y, int64_t ldy) {
  using enc::Fail;
  const char* fn = "enc_gemm";
  bool done = false;
  if (enc_status s =
          enc::CheckArgs(fn, m, x, ldx, w, enc::EnumArg(act), y, ldy, &done)) {
    return s;
  }
  if (done) return ENC_OK;
  const int64_t n = w->n, k = w->k;
  if (residual != nullptr && ldr < n) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: ldr (%lld) is less than n (%lld)",
                static_cast<long long>(ldr), static_cast<long long>(n));
  }
  const int64_t y_len = (m - 1) * ldy + n;
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
  switch (w->precision) {
    case ENC_PRECISION_FP32:
      break;
    case ENC_PRECISION_INT8:
      return enc::GemmInt8(m, x, ldx, w, bias, act, residual, ldr, y, ldy);
    case ENC_PRECISION_BF16:
      return enc::GemmBf16(m, x, ldx, w, bias, act, residual, ldr, y, ldy);
  }
  const enc::GemmArgs args{m,   n,        k,   x, ldx, w->data, bias,
                           nullptr, act, residual, ldr, y, ldy};
  return enc::Run(fn, args, *w, 1);
}

extern "C" enc_status enc_gemm_gated(int64_t m, const float* x, int64_t ldx,
                                     const enc_packed_gated* w,
                                     const float* bias_gate,
                                     const float* bias_up, enc_activation act,
                                     float* y, int64_t ldy) {
  const char* fn = "enc_gemm_gated";
  const enc_packed_b* packed = w != nullptr ? &w->packed : nullptr;
  bool done = false;
  if (enc_status s = enc::CheckArgs(fn, m, x, ldx, packed, enc::EnumArg(act),
                                     y, ldy, &done)) {
    return s;
  }
  if (done) return ENC_OK;
  if (packed->precision != ENC_PRECISION_FP32) {
    return enc::Fail(ENC_ERR_INPUT, "%s: w is not a packed gated matrix", fn);
  }
  const enc::GemmArgs args{m,       packed->n, packed->k, x, ldx,
                           packed->data, bias_gate, bias_up, act, nullptr,
                           0,       y,         ldy};
  return enc::Run(fn, args, *packed, 2);
}
#endif  // HWY_ONCE
