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
#include "src/overlap.h"
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

// A chunked kernel's output y ([rows, width], ldy apart) adds to x in place:
// it must be x itself (same pointer and stride) or miss x's rows entirely,
// since a chunk's rows are written while later chunks' are still to be read.
inline enc_status CheckInPlaceOrApart(const char* fn, const float* x,
                                      int64_t ldx, const float* y, int64_t ldy,
                                      int64_t rows, int64_t width) {
  if (rows == 0 || (x == y && ldx == ldy)) return ENC_OK;
  if (Overlap(x, (rows - 1) * ldx + width, y, (rows - 1) * ldy + width)) {
    return Fail(ENC_ERR_INPUT, "%s: y overlaps x without being x itself", fn);
  }
  return ENC_OK;
}

// The calling thread's Tag buffer for `chunk` rows of `width` floats, or
// nullptr with an ENC_ERR_NOMEM error naming fn.
template <typename Tag>
float* ChunkScratch(const char* fn, int64_t chunk, int64_t width) {
  float* p = ThreadScratch<Tag>(chunk * width);
  if (p == nullptr) {
    Fail(ENC_ERR_NOMEM, "%s: cannot allocate %lld floats", fn,
         static_cast<long long>(chunk * width));
  }
  return p;
}

}  // namespace enc

#endif  // ENC_SRC_THREAD_SCRATCH_H_
