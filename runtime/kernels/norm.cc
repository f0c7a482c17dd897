// LayerNorm / RMSNorm: argument checks and per-target dispatch.
#include "enc/kernels/norm.h"

#include <algorithm>
#include <cmath>

#include "src/status.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/norm.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/norm-inl.h"

#include "enc/kernels/threads.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {

static void NormTask(void* ctx, int64_t begin, int64_t end) {
  NormRange(*static_cast<const NormArgs*>(ctx), begin, end);
}

void NormRows(const NormArgs& a) {
  // Only worth spreading over the pool when there is real work.
  if (a.rows * a.d >= (int64_t{1} << 16)) {
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / a.d);
    enc_parallel_for(a.rows, grain, &NormTask, const_cast<NormArgs*>(&a));
    return;
  }
  NormTask(const_cast<NormArgs*>(&a), 0, a.rows);
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/dispatch.h"

namespace enc {
ENC_EXPORT(NormRows);
static void RunNorm(const NormArgs& a) { ENC_DYNAMIC_DISPATCH(NormRows)(a); }
}  // namespace enc

extern "C" enc_status enc_norm(int32_t kind, int64_t rows, int64_t d,
                               const float* x, int64_t ld_x, const float* gamma,
                               const float* beta, float eps, float* y,
                               int64_t ld_y) {
  using enc::Fail;
  if (kind != ENC_NORM_LAYER && kind != ENC_NORM_RMS) {
    return Fail(ENC_ERR_INPUT, "enc_norm: unknown norm kind %d", kind);
  }
  if (rows < 0)
    return Fail(ENC_ERR_INPUT, "enc_norm: rows (%lld) < 0", (long long)rows);
  if (d < 1) return Fail(ENC_ERR_INPUT, "enc_norm: d (%lld) < 1", (long long)d);
  if (x == nullptr || gamma == nullptr || y == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_norm: %s is NULL",
                x == nullptr       ? "x"
                : gamma == nullptr ? "gamma"
                                   : "y");
  }
  if (kind == ENC_NORM_RMS && beta != nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_norm: RMSNorm takes no beta");
  }
  if (!(eps > 0.0f) || !std::isfinite(eps)) {
    return Fail(ENC_ERR_INPUT, "enc_norm: eps (%g) must be finite and > 0",
                eps);
  }
  {
    if (ld_x < d)
      return Fail(ENC_ERR_INPUT, "enc_norm: ld_x (%lld) < d (%lld)",
                  (long long)ld_x, (long long)d);
    if (ld_y < d)
      return Fail(ENC_ERR_INPUT, "enc_norm: ld_y (%lld) < d (%lld)",
                  (long long)ld_y, (long long)d);
  }
  if (rows == 0) return ENC_OK;
  const enc::NormArgs args{kind, rows, d, x, ld_x, gamma, beta, eps, y, ld_y};
  enc::RunNorm(args);
  return ENC_OK;
}

extern "C" enc_status enc_layer_norm(int64_t rows, int64_t d, const float* x,
                                     const float* gamma, const float* beta,
                                     float eps, float* y) {
  return enc_norm(ENC_NORM_LAYER, rows, d, x, d, gamma, beta, eps, y, d);
}

extern "C" enc_status enc_rms_norm(int64_t rows, int64_t d, const float* x,
                                   const float* gamma, float eps, float* y) {
  return enc_norm(ENC_NORM_RMS, rows, d, x, d, gamma, nullptr, eps, y, d);
}
#endif  // HWY_ONCE
