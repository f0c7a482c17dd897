// Embedding gather and positional add (SIMD body, compiled once per target).

#ifndef ENC_KERNELS_EMBED_ARGS_
#define ENC_KERNELS_EMBED_ARGS_
#include <stddef.h>
#include <stdint.h>

namespace enc {
struct EmbedArgs {
  int32_t batch, seq_len;
  const int32_t* ids;      // nullptr: the float path (in)
  const int32_t* types;    // or nullptr (type 0)
  const int32_t* lengths;  // or nullptr
  const float* tok_table;
  float scale;
  const float* type_table;  // or nullptr
  const float* in;          // float path
  int64_t ld_in;
  const float* pos_table;  // or nullptr
  int64_t d;
  float* out;
  int64_t ld_out;
};
}  // namespace enc
#endif  // ENC_KERNELS_EMBED_ARGS_

#if defined(ENC_KERNELS_EMBED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_EMBED_INL_H_
#undef ENC_KERNELS_EMBED_INL_H_
#else
#define ENC_KERNELS_EMBED_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out = scale * a + b + c, where b and c may be nullptr. `a` may alias out.
HWY_INLINE void EmbedRow(const float* a, float scale, const float* b,
                         const float* c, float* out, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, scale);
  size_t i = 0;
  if (b != nullptr && c != nullptr) {
    for (; i + N <= n; i += N) {
      const auto bc = hn::Add(hn::LoadU(d, b + i), hn::LoadU(d, c + i));
      hn::StoreU(hn::MulAdd(hn::LoadU(d, a + i), vs, bc), d, out + i);
    }
    for (; i < n; ++i) out[i] = a[i] * scale + (b[i] + c[i]);
  } else if (b != nullptr || c != nullptr) {
    const float* e = b != nullptr ? b : c;
    for (; i + N <= n; i += N) {
      hn::StoreU(hn::MulAdd(hn::LoadU(d, a + i), vs, hn::LoadU(d, e + i)), d,
                 out + i);
    }
    for (; i < n; ++i) out[i] = a[i] * scale + e[i];
  } else {
    for (; i + N <= n; i += N) {
      hn::StoreU(hn::Mul(hn::LoadU(d, a + i), vs), d, out + i);
    }
    for (; i < n; ++i) out[i] = a[i] * scale;
  }
}

// Reads the padded layout, writes the packed one (enc/kernels/layout.h).
HWY_INLINE void EmbedBatch(const EmbedArgs& a) {
  const size_t n = static_cast<size_t>(a.d);
  int64_t packed = 0;  // first_row(b)
  for (int32_t b = 0; b < a.batch; ++b) {
    const int64_t len = a.lengths ? a.lengths[b] : a.seq_len;
    for (int64_t i = 0; i < len; ++i, ++packed) {
      const int64_t row = static_cast<int64_t>(b) * a.seq_len + i;
      float* out = a.out + packed * a.ld_out;
      const float* pos = a.pos_table ? a.pos_table + i * a.d : nullptr;
      if (a.ids == nullptr) {
        EmbedRow(a.in + row * a.ld_in, 1.0f, pos, nullptr, out, n);
        continue;
      }
      const float* tok = a.tok_table + static_cast<int64_t>(a.ids[row]) * a.d;
      const float* type = nullptr;
      if (a.type_table != nullptr) {
        const int64_t t = a.types ? a.types[row] : 0;
        type = a.type_table + t * a.d;
      }
      EmbedRow(tok, a.scale, type, pos, out, n);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_EMBED_INL_H_
