// enc_gemm: argument validation, the split of Y over the thread pool, and the
// per-target kernel (the one matching the packed layout, kernels/gemm.h).
#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"

#include <algorithm>
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

// Whether p is what a pack function made, for its precision.
bool IsPacked(const enc_packed_b& p) {
  switch (p.precision) {
    case ENC_PRECISION_FP32:
      return p.data != nullptr && p.kernel.block != nullptr;
    case ENC_PRECISION_INT8:
      return p.int8.panels != nullptr && p.int8.kernel.block != nullptr;
    case ENC_PRECISION_BF16:
      return p.bf16.data != nullptr && p.bf16.kernel.block != nullptr;
  }
  return false;
}

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

// The fp32 kernel's block, as RunGemmBlocks calls it.
struct Fp32Call {
  GemmArgs args;
  GemmBlockFn block;
};

void Fp32Blocks(const void* ctx, int64_t m0, int64_t m1, int64_t p0,
                int64_t p1) {
  const Fp32Call& call = *static_cast<const Fp32Call*>(ctx);
  call.block(call.args, m0, m1, p0, p1);
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
  if (w == nullptr) return Fail(ENC_ERR_INPUT, "enc_gemm: w is NULL");
  if (m < 0) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: m (%lld) is negative",
                static_cast<long long>(m));
  }
  const int64_t n = w->n, k = w->k;
  if (n < 1 || k < 1 || !enc::IsPacked(*w)) {
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

  switch (w->precision) {
    case ENC_PRECISION_FP32:
      break;
    case ENC_PRECISION_INT8:
      return enc::GemmInt8(m, x, ldx, w, bias, act, residual, ldr, y, ldy);
    case ENC_PRECISION_BF16:
      return enc::GemmBf16(m, x, ldx, w, bias, act, residual, ldr, y, ldy);
  }
  const enc::Fp32Call call{{m, n, k, x, ldx, w->data, bias, act, residual, ldr,
                            y, ldy},
                           w->kernel.block};
  enc::RunGemmBlocks(m, n, k, w->panels, w->kernel.rows, &enc::Fp32Blocks,
                     &call);
  return ENC_OK;
}
#endif  // HWY_ONCE
