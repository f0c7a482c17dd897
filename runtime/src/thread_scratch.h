// Per-thread scratch for kernels that work a chunk of rows at a time:
// grown on demand and kept between calls, so that steady calls allocate
// nothing. Each Tag is its own buffer, so kernels that call one another do
// not share one.
#ifndef ENC_SRC_THREAD_SCRATCH_H_
#define ENC_SRC_THREAD_SCRATCH_H_

#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

#include "enc/kernels/gemm.h"
#include "enc/kernels/norm.h"
#include "enc/kernels/norm_gemm.h"
#include "enc/runtime.h"
#include "src/overlap.h"
#include "src/status.h"

namespace enc {

// Tags that kernels share, so that a forward holds the larger of their
// buffers rather than both: no kernel using one runs inside another that
// does.
//
// The rows a layer's block kernel keeps for its whole call: the attention
// block's keys and values, the FFN block's hidden rows of one chunk.
struct BlockRows {};
// One chunk of normed rows on their way to a GEMM (enc_gemm_normed, the
// attention block's head groups).
struct NormedRows {};

// At least `floats` floats of the calling thread's Tag buffer, or nullptr
// when it cannot grow. Growing frees the old buffer first and takes exactly
// `floats`: its contents are not kept, and a vector's own growth would hold
// both buffers while it copies and round up to twice the old size (a 6,000-
// token call, then an 8,192-token one: 36.9 MB of attention output for the
// 25.2 MB needed).
template <typename Tag>
float* ThreadScratch(int64_t floats) {
  thread_local std::vector<float> scratch;
  if (static_cast<int64_t>(scratch.size()) < floats) {
    std::vector<float>().swap(scratch);
    try {
      scratch.resize(static_cast<size_t>(floats));  // from empty: exact
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

// A chunk's first GEMM, y = act(norm(x) w + b): after the pre-norm when
// gamma is set (CheckNormPrologue), on x itself otherwise.
inline enc_status GemmAfterNorm(int32_t norm_kind, const float* gamma,
                                const float* beta, float eps, int64_t n,
                                const float* x, int64_t ldx,
                                const enc_packed_b* w, const float* b,
                                enc_activation act, float* y, int64_t ldy) {
  return gamma != nullptr ? enc_gemm_normed(norm_kind, gamma, beta, eps, n, x,
                                            ldx, w, b, act, nullptr, 0, y, ldy)
                          : enc_gemm(n, x, ldx, w, b, act, nullptr, 0, y, ldy);
}

// Runs body(r0, n, scratch) over rows [0, rows) (none: ENC_OK) in chunks of at
// most chunk_rows, scratch being the calling thread's Tag buffer of chunk rows
// of `width` floats; stops at the first status that is not ENC_OK.
template <typename Tag, typename Body>
enc_status ForEachChunk(const char* fn, int64_t rows, int64_t chunk_rows,
                        int64_t width, Body body) {
  if (rows <= 0) return ENC_OK;  // no scratch for no rows
  const int64_t chunk = std::min(rows, chunk_rows);
  float* scratch = ChunkScratch<Tag>(fn, chunk, width);
  if (scratch == nullptr) return ENC_ERR_NOMEM;
  for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
    if (enc_status s = body(r0, std::min(chunk, rows - r0), scratch)) return s;
  }
  return ENC_OK;
}

// Runs body(r0, n, rows, ld) over rows [0, m) of x ([m, k], ldx apart) in
// chunks of at most chunk_rows (none: ENC_OK): `rows` is the chunk normed
// into the calling thread's NormedRows buffer (ld k) when gamma is set
// (CheckNormPrologue), x's own rows (ld ldx) otherwise.
template <typename Body>
enc_status ForEachNormedChunk(const char* fn, int32_t norm_kind,
                              const float* gamma, const float* beta, float eps,
                              int64_t m, int64_t chunk_rows, const float* x,
                              int64_t ldx, int64_t k, Body body) {
  const int64_t width = gamma != nullptr ? k : 1;  // 1: unused
  return ForEachChunk<NormedRows>(
      fn, m, chunk_rows, width,
      [&](int64_t r0, int64_t n, float* normed) -> enc_status {
        const float* rows = x + r0 * ldx;
        if (gamma == nullptr) return body(r0, n, rows, ldx);
        if (enc_status s = enc_norm(norm_kind, n, k, rows, ldx, gamma, beta,
                                    eps, normed, k)) {
          return s;
        }
        return body(r0, n, static_cast<const float*>(normed), k);
      });
}

}  // namespace enc

#endif  // ENC_SRC_THREAD_SCRATCH_H_
