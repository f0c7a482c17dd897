// Output pooling (SIMD body, compiled once per target).

#ifndef ENC_KERNELS_POOL_ARGS_
#define ENC_KERNELS_POOL_ARGS_
#include <stddef.h>
#include <stdint.h>

namespace enc {
struct PoolArgs {
  int32_t mode;  // enc_pool_mode
  bool normalize;
  int32_t batch, seq_len;
  int64_t d;
  const int32_t* lengths;  // or nullptr
  const float* x;
  int64_t ld_x;
  float* out;
  int64_t ld_out;
};
}  // namespace enc
#endif  // ENC_KERNELS_POOL_ARGS_

#if defined(ENC_KERNELS_POOL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_POOL_INL_H_
#undef ENC_KERNELS_POOL_INL_H_
#else
#define ENC_KERNELS_POOL_INL_H_
#endif

#include <algorithm>
#include <cmath>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

HWY_INLINE void CopyRow(const float* HWY_RESTRICT src, float* HWY_RESTRICT dst,
                        size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
  for (; i < n; ++i) dst[i] = src[i];
}

HWY_INLINE void ZeroRow(float* HWY_RESTRICT dst, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Zero(d), d, dst + i);
  for (; i < n; ++i) dst[i] = 0.0f;
}

// out = mean of `rows` rows of x (rows >= 1), accumulated in float over
// column blocks of 4 vectors so the partial sums stay in registers.
HWY_INLINE void MeanRows(const float* HWY_RESTRICT x, int64_t ld_x,
                         int64_t rows, float* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const float inv = 1.0f / static_cast<float>(rows);
  const auto vinv = hn::Set(d, inv);
  size_t c = 0;
  for (; c + 4 * N <= n; c += 4 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * ld_x + c;
      a0 = hn::Add(a0, hn::LoadU(d, row));
      a1 = hn::Add(a1, hn::LoadU(d, row + N));
      a2 = hn::Add(a2, hn::LoadU(d, row + 2 * N));
      a3 = hn::Add(a3, hn::LoadU(d, row + 3 * N));
    }
    hn::StoreU(hn::Mul(a0, vinv), d, out + c);
    hn::StoreU(hn::Mul(a1, vinv), d, out + c + N);
    hn::StoreU(hn::Mul(a2, vinv), d, out + c + 2 * N);
    hn::StoreU(hn::Mul(a3, vinv), d, out + c + 3 * N);
  }
  for (; c + N <= n; c += N) {
    auto a0 = hn::Zero(d);
    for (int64_t r = 0; r < rows; ++r)
      a0 = hn::Add(a0, hn::LoadU(d, x + r * ld_x + c));
    hn::StoreU(hn::Mul(a0, vinv), d, out + c);
  }
  for (; c < n; ++c) {
    float s = 0.0f;
    for (int64_t r = 0; r < rows; ++r) s += x[r * ld_x + c];
    out[c] = s * inv;
  }
}

// out = per-column maximum of `rows` rows of x (rows >= 1).
HWY_INLINE void MaxRows(const float* HWY_RESTRICT x, int64_t ld_x, int64_t rows,
                        float* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  for (; c + 4 * N <= n; c += 4 * N) {
    auto a0 = hn::LoadU(d, x + c), a1 = hn::LoadU(d, x + c + N);
    auto a2 = hn::LoadU(d, x + c + 2 * N), a3 = hn::LoadU(d, x + c + 3 * N);
    for (int64_t r = 1; r < rows; ++r) {
      const float* row = x + r * ld_x + c;
      a0 = hn::Max(a0, hn::LoadU(d, row));
      a1 = hn::Max(a1, hn::LoadU(d, row + N));
      a2 = hn::Max(a2, hn::LoadU(d, row + 2 * N));
      a3 = hn::Max(a3, hn::LoadU(d, row + 3 * N));
    }
    hn::StoreU(a0, d, out + c);
    hn::StoreU(a1, d, out + c + N);
    hn::StoreU(a2, d, out + c + 2 * N);
    hn::StoreU(a3, d, out + c + 3 * N);
  }
  for (; c + N <= n; c += N) {
    auto a0 = hn::LoadU(d, x + c);
    for (int64_t r = 1; r < rows; ++r)
      a0 = hn::Max(a0, hn::LoadU(d, x + r * ld_x + c));
    hn::StoreU(a0, d, out + c);
  }
  for (; c < n; ++c) {
    float m = x[c];
    for (int64_t r = 1; r < rows; ++r) m = std::max(m, x[r * ld_x + c]);
    out[c] = m;
  }
}

// The squared L2 norm of a row: a float sum of squares, or, when that
// overflows or may have lost small values to underflow (it is not a normal
// number well above FLT_MIN), a double one.
HWY_INLINE double SquaredNorm(const float* HWY_RESTRICT row, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, row + i);
    acc = hn::MulAdd(v, v, acc);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < n; ++i) sum += row[i] * row[i];
  if (std::isfinite(sum) && sum > 1e-30f) return sum;
  double exact = 0.0;
  for (size_t k = 0; k < n; ++k) exact += double(row[k]) * double(row[k]);
  return exact;
}

// row /= max(||row||_2, 1e-12), in place (docs/numerics.md#output).
HWY_INLINE void NormalizeRow(float* HWY_RESTRICT row, size_t n) {
  const double norm = std::sqrt(SquaredNorm(row, n));
  const float inv = static_cast<float>(1.0 / std::max(norm, 1e-12));
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vinv = hn::Set(d, inv);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::Mul(hn::LoadU(d, row + i), vinv), d, row + i);
  }
  for (; i < n; ++i) row[i] *= inv;
}

HWY_INLINE void PoolBatch(const PoolArgs& a) {
  const size_t n = static_cast<size_t>(a.d);
  int64_t first_row = 0;
  for (int32_t b = 0; b < a.batch; ++b) {
    const int64_t len = a.lengths ? a.lengths[b] : a.seq_len;
    const float* x = a.x + first_row * a.ld_x;
    first_row += len;
    if (a.mode == 0) {
      float* out = a.out + static_cast<int64_t>(b) * a.seq_len * a.ld_out;
      for (int64_t i = 0; i < a.seq_len; ++i) {
        if (i < len) {
          CopyRow(x + i * a.ld_x, out + i * a.ld_out, n);
          if (a.normalize) NormalizeRow(out + i * a.ld_out, n);
        } else {
          ZeroRow(out + i * a.ld_out, n);
        }
      }
    } else {
      float* out = a.out + static_cast<int64_t>(b) * a.ld_out;
      if (len == 0) {
        ZeroRow(out, n);
      } else {
        switch (a.mode) {
          case 1:  // cls
            CopyRow(x, out, n);
            break;
          case 2:  // mean
            MeanRows(x, a.ld_x, len, out, n);
            break;
          case 3:  // max
            MaxRows(x, a.ld_x, len, out, n);
            break;
          default:  // last (enc_pool checked the mode)
            CopyRow(x + (len - 1) * a.ld_x, out, n);
            break;
        }
        if (a.normalize) NormalizeRow(out, n);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_POOL_INL_H_
