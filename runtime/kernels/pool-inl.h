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

// What mean and max pooling combine rows with, on vectors and on floats.
struct SumOf {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Add(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return a + b; }
};
struct MaxOf {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Max(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return std::max(a, b); }
};

// out = scale * (row 0 op row 1 op ... op row rows-1) of x, column by column
// (rows >= 1), over column blocks of 4 vectors so the partial results stay
// in registers.
template <class Op>
HWY_INLINE void ReduceRows(const float* HWY_RESTRICT x, int64_t ld_x,
                           int64_t rows, float scale, float* HWY_RESTRICT out,
                           size_t n, Op op) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vscale = hn::Set(d, scale);
  size_t c = 0;
  for (; c + 4 * N <= n; c += 4 * N) {
    auto a0 = hn::LoadU(d, x + c), a1 = hn::LoadU(d, x + c + N);
    auto a2 = hn::LoadU(d, x + c + 2 * N), a3 = hn::LoadU(d, x + c + 3 * N);
    for (int64_t r = 1; r < rows; ++r) {
      const float* row = x + r * ld_x + c;
      a0 = op(a0, hn::LoadU(d, row));
      a1 = op(a1, hn::LoadU(d, row + N));
      a2 = op(a2, hn::LoadU(d, row + 2 * N));
      a3 = op(a3, hn::LoadU(d, row + 3 * N));
    }
    hn::StoreU(hn::Mul(a0, vscale), d, out + c);
    hn::StoreU(hn::Mul(a1, vscale), d, out + c + N);
    hn::StoreU(hn::Mul(a2, vscale), d, out + c + 2 * N);
    hn::StoreU(hn::Mul(a3, vscale), d, out + c + 3 * N);
  }
  for (; c + N <= n; c += N) {
    auto a0 = hn::LoadU(d, x + c);
    for (int64_t r = 1; r < rows; ++r)
      a0 = op(a0, hn::LoadU(d, x + r * ld_x + c));
    hn::StoreU(hn::Mul(a0, vscale), d, out + c);
  }
  for (; c < n; ++c) {
    float a = x[c];
    for (int64_t r = 1; r < rows; ++r) a = op(a, x[r * ld_x + c]);
    out[c] = a * scale;
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

// none with out == x: the packed rows are unpacked where they are. Packed
// row first_row(b) + i goes to padded row b * seq_len + i, never earlier, so
// going from the last row back to the first moves each row before anything
// is written over it (padding rows are zeroed after every row above them
// has moved).
HWY_INLINE void UnpackInPlace(const PoolArgs& a) {
  const size_t n = static_cast<size_t>(a.d);
  int64_t end_row = 0;  // first_row(batch)
  for (int32_t b = 0; b < a.batch; ++b) {
    end_row += a.lengths ? a.lengths[b] : a.seq_len;
  }
  for (int32_t b = a.batch - 1; b >= 0; --b) {
    const int64_t len = a.lengths ? a.lengths[b] : a.seq_len;
    const int64_t first_row = end_row - len;
    end_row = first_row;
    float* out = a.out + static_cast<int64_t>(b) * a.seq_len * a.ld_out;
    for (int64_t i = a.seq_len - 1; i >= len; --i) {
      ZeroRow(out + i * a.ld_out, n);
    }
    for (int64_t i = len - 1; i >= 0; --i) {
      float* dst = out + i * a.ld_out;
      const float* src = a.out + (first_row + i) * a.ld_out;
      if (src != dst) std::copy(src, src + n, dst);  // rows never overlap
      if (a.normalize) NormalizeRow(dst, n);
    }
  }
}

HWY_INLINE void PoolBatch(const PoolArgs& a) {
  if (a.mode == 0 && a.x == a.out) return UnpackInPlace(a);
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
            ReduceRows(x, a.ld_x, len, 1.0f / static_cast<float>(len), out, n,
                       SumOf());
            break;
          case 3:  // max
            ReduceRows(x, a.ld_x, len, 1.0f, out, n, MaxOf());
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
