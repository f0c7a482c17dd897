// Per-thread scratch for kernels that work a chunk of rows at a time:
// grown on demand and kept between calls, so that steady calls allocate
// nothing. Each Tag is its own buffer, so kernels that call one another do
// not share one.
#ifndef ENC_SRC_THREAD_SCRATCH_H_
#define ENC_SRC_THREAD_SCRATCH_H_

#include <stdint.h>

#include <cmath>
#include <new>
#include <vector>

#include "enc/kernels/norm.h"
#include "enc/runtime.h"
#include "src/status.h"

namespace enc {

// At least `floats` floats of the calling thread's Tag buffer, or nullptr
// when it cannot grow.
template <typename Tag>
float* ThreadScratch(int64_t floats) {
  thread_local std::vector<float> scratch;
  if (static_cast<int64_t>(scratch.size()) < floats) {
    try {
      scratch.resize(static_cast<size_t>(floats));
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }
  return scratch.data();
}

// A chunked kernel's pre-norm (gamma NULL: none), checked before any chunk
// is written: the arguments enc_norm would refuse mid-way.
inline enc_status CheckNormPrologue(const char* fn, int32_t norm_kind,
                                    const float* gamma, const float* beta,
                                    float eps) {
  if (gamma == nullptr) return ENC_OK;
  if (norm_kind != ENC_NORM_LAYER && norm_kind != ENC_NORM_RMS) {
    return Fail(ENC_ERR_INPUT, "%s: unknown norm_kind %d", fn, norm_kind);
  }
  if (norm_kind == ENC_NORM_RMS && beta != nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: rmsnorm takes no beta", fn);
  }
  if (!(eps > 0) || !std::isfinite(eps)) {
    return Fail(ENC_ERR_INPUT, "%s: eps (%g) must be finite and > 0", fn, eps);
  }
  return ENC_OK;
}

}  // namespace enc

#endif  // ENC_SRC_THREAD_SCRATCH_H_
