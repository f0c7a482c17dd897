// enc_gemm and enc_gemm_gated: argument validation, then the kernel of the
// packed matrix's format (the one matching its layout, kernels/gemm.h), run
// over the thread pool by the plan of kernels/gemm_plan.h.
#include "kernels/gemm.h"
#include "kernels/activation.h"
#include "kernels/gemm_bf16.h"

#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm-inl.h"

#if HWY_ONCE
#include "src/dispatch.h"
#include "src/overlap.h"
#include "src/status.h"

namespace enc {
ENC_EXPORT(GetGemmKernel);

GemmKernel ChooseGemmKernel() { return ENC_DYNAMIC_DISPATCH(GetGemmKernel)(); }

namespace {

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
  if (!RunFormat(args, w.layout, args.m, args.n * products, args.k, w.panels)) {
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate the partial sums", fn);
  }
  return ENC_OK;
}

}  // namespace

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
  const enc::GemmArgs args{
      {bias, act, residual, ldr, y, ldy}, m, n, k, x, ldx, w->data, nullptr};
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
  if (enc_status s = enc::CheckArgs(fn, m, x, ldx, packed, enc::EnumArg(act), y,
                                    ldy, &done)) {
    return s;
  }
  if (done) return ENC_OK;
  if (packed->precision != ENC_PRECISION_FP32) {
    return enc::Fail(ENC_ERR_INPUT, "%s: w is not a packed gated matrix", fn);
  }
  const enc::GemmArgs args{{bias_gate, act, nullptr, 0, y, ldy},
                           m,
                           packed->n,
                           packed->k,
                           x,
                           ldx,
                           packed->data,
                           bias_up};
  return enc::Run(fn, args, *packed, 2);
}
#endif  // HWY_ONCE
