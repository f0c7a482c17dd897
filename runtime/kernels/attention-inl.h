// Multi-head attention (SIMD body, compiled once per target).
//
// One task is one (sequence, head). Its scratch, reused across calls on the
// same thread, holds: K_h transposed and rotated [d_k, Lp] (so the scores of a
// query row are contiguous in j), V_h copied [L, dkp] (rows padded to whole
// vectors), a block of kRows rotated and scaled query rows, their scores
// [kRows, Lp] and, for relative bias, this head's bias per offset j - i.
// Only kRows rows of scores exist at a time: memory O(L * d_k), not O(L^2).

#ifndef ENC_KERNELS_ATTENTION_ARGS_
#define ENC_KERNELS_ATTENTION_ARGS_
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "enc/kernels/attention.h"

namespace enc {
struct AttentionArgs {
  enc_attention_params p;
  int32_t batch, seq_len;
  const int32_t* lengths;    // or nullptr
  const int64_t* first_row;  // [batch]: sequence b's first packed row
  const float* q;
  const float* k;
  const float* v;
  int64_t ld_in;
  float* out;
  int64_t ld_out;
  std::atomic<bool> out_of_memory{false};
};
}  // namespace enc
#endif  // ENC_KERNELS_ATTENTION_ARGS_

#if defined(ENC_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_ATTENTION_INL_H_
#undef ENC_KERNELS_ATTENTION_INL_H_
#else
#define ENC_KERNELS_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <limits>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr size_t kRows = 4;            // query rows per block
constexpr size_t kTransposeRows = 16;  // K rows per transposition step

HWY_INLINE size_t RoundUp(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Per-thread scratch, grown on demand and kept for the thread's lifetime.
HWY_INLINE float* Scratch(size_t floats) {
  static thread_local hwy::AlignedFreeUniquePtr<float[]> buffer;
  static thread_local size_t capacity = 0;
  if (capacity < floats) {
    buffer.reset();
    capacity = 0;
    buffer = hwy::AllocateAligned<float>(floats);
    if (!buffer) return nullptr;
    capacity = floats;
  }
  return buffer.get();
}

// Rotates `x` (d_k floats, scaled by `scale`) for position `pos` into `dst`.
HWY_INLINE void RotateRow(const enc_attention_params& p, const float* x,
                          float scale, int64_t pos, float* dst,
                          size_t dst_stride) {
  const size_t dk = static_cast<size_t>(p.d_k);
  const size_t half = dk / 2;
  if (p.rope_style == ENC_ROPE_HALVES) {
    const float* cs = p.rope_cos + pos * static_cast<int64_t>(half);
    const float* sn = p.rope_sin + pos * static_cast<int64_t>(half);
    for (size_t c = 0; c < half; ++c) {
      const float a = x[c] * scale, b = x[c + half] * scale;
      dst[c * dst_stride] = a * cs[c] - b * sn[c];
      dst[(c + half) * dst_stride] = a * sn[c] + b * cs[c];
    }
  } else if (p.rope_style == ENC_ROPE_INTERLEAVED) {
    const float* cs = p.rope_cos + pos * static_cast<int64_t>(half);
    const float* sn = p.rope_sin + pos * static_cast<int64_t>(half);
    for (size_t c = 0; c < half; ++c) {
      const float a = x[2 * c] * scale, b = x[2 * c + 1] * scale;
      dst[2 * c * dst_stride] = a * cs[c] - b * sn[c];
      dst[(2 * c + 1) * dst_stride] = a * sn[c] + b * cs[c];
    }
  } else {
    for (size_t c = 0; c < dk; ++c) dst[c * dst_stride] = x[c] * scale;
  }
}

// S[r, j0 .. j0+2N) = Q[r] . Kt[:, j] for kRows rows.
HWY_INLINE void ScoreBlock(const float* HWY_RESTRICT Q, size_t dkp,
                           const float* HWY_RESTRICT Kt, size_t Lp, size_t dk,
                           size_t j0, float* HWY_RESTRICT S) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF a00 = hn::Zero(d), a01 = hn::Zero(d), a10 = hn::Zero(d),
     a11 = hn::Zero(d), a20 = hn::Zero(d), a21 = hn::Zero(d),
     a30 = hn::Zero(d), a31 = hn::Zero(d);
  const float* kp = Kt + j0;
  for (size_t c = 0; c < dk; ++c, kp += Lp) {
    const VF k0 = hn::Load(d, kp);
    const VF k1 = hn::Load(d, kp + N);
    const VF q0 = hn::Set(d, Q[c]);
    const VF q1 = hn::Set(d, Q[dkp + c]);
    const VF q2 = hn::Set(d, Q[2 * dkp + c]);
    const VF q3 = hn::Set(d, Q[3 * dkp + c]);
    a00 = hn::MulAdd(q0, k0, a00);
    a01 = hn::MulAdd(q0, k1, a01);
    a10 = hn::MulAdd(q1, k0, a10);
    a11 = hn::MulAdd(q1, k1, a11);
    a20 = hn::MulAdd(q2, k0, a20);
    a21 = hn::MulAdd(q2, k1, a21);
    a30 = hn::MulAdd(q3, k0, a30);
    a31 = hn::MulAdd(q3, k1, a31);
  }
  hn::Store(a00, d, S + j0);
  hn::Store(a01, d, S + j0 + N);
  hn::Store(a10, d, S + Lp + j0);
  hn::Store(a11, d, S + Lp + j0 + N);
  hn::Store(a20, d, S + 2 * Lp + j0);
  hn::Store(a21, d, S + 2 * Lp + j0 + N);
  hn::Store(a30, d, S + 3 * Lp + j0);
  hn::Store(a31, d, S + 3 * Lp + j0 + N);
}

// O[r, c0 .. c0 + kV*N) = sum_j P[r, j] V[j, c0 ..] for kRows rows.
template <int kV>
HWY_INLINE void WeightedSumBlock(const float* HWY_RESTRICT P, size_t Lp,
                                 const float* HWY_RESTRICT Vs, size_t dkp,
                                 size_t L, size_t c0, float* HWY_RESTRICT O) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF acc[kRows][kV];
  for (size_t r = 0; r < kRows; ++r) {
    for (int q = 0; q < kV; ++q) acc[r][q] = hn::Zero(d);
  }
  const float* vp = Vs + c0;
  for (size_t j = 0; j < L; ++j, vp += dkp) {
    VF v[kV];
    for (int q = 0; q < kV; ++q) v[q] = hn::Load(d, vp + q * N);
    for (size_t r = 0; r < kRows; ++r) {
      const VF pr = hn::Set(d, P[r * Lp + j]);
      for (int q = 0; q < kV; ++q) acc[r][q] = hn::MulAdd(pr, v[q], acc[r][q]);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (int q = 0; q < kV; ++q) hn::Store(acc[r][q], d, O + r * dkp + c0 + q * N);
  }
}

// e^x for x <= 0 (and -inf), within ~2 ulp: x = n ln2 + r with |r| <= ln2/2
// (Cody-Waite split of ln2), e^r from Cephes' expf polynomial, 2^n through
// the exponent bits. Below -87.3 (where e^x nears the smallest normal float)
// the result is 0; such terms are < 1e-38 of the row's largest.
HWY_INLINE VF ExpNonPositive(DF d, VF x) {
  const hn::RebindToSigned<DF> di;
  const VF lo = hn::Set(d, -87.3f);
  const VF xc = hn::Max(x, lo);
  const VF n = hn::Round(hn::Mul(xc, hn::Set(d, 1.44269504088896341f)));
  VF r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), xc);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  VF p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  const VF y = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
  const auto bits = hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127)));
  const VF scaled = hn::Mul(y, hn::BitCast(d, bits));
  return hn::IfThenZeroElse(hn::Lt(x, lo), scaled);
}

// Softmax of one row of scores in place over [0, Lp) (entries >= L are -inf
// on entry and 0 on exit); returns 1 / sum so the caller can normalise late.
HWY_INLINE float SoftmaxRow(float* HWY_RESTRICT s, size_t Lp) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF m = hn::Set(d, -std::numeric_limits<float>::infinity());
  for (size_t j = 0; j < Lp; j += N) m = hn::Max(m, hn::Load(d, s + j));
  const VF vmax = hn::MaxOfLanes(d, m);
  VF sum = hn::Zero(d);
  for (size_t j = 0; j < Lp; j += N) {
    const VF e = ExpNonPositive(d, hn::Sub(hn::Load(d, s + j), vmax));
    hn::Store(e, d, s + j);
    sum = hn::Add(sum, e);
  }
  return 1.0f / hn::GetLane(hn::SumOfLanes(d, sum));
}

// One (sequence b, head h).
HWY_INLINE void AttentionHead(AttentionArgs& a, int64_t b, int64_t h) {
  const enc_attention_params& p = a.p;
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t L = a.lengths ? static_cast<size_t>(a.lengths[b])
                             : static_cast<size_t>(a.seq_len);
  const size_t dk = static_cast<size_t>(p.d_k);
  const int64_t row0 = a.first_row[b];
  const int64_t col = h * p.d_k;
  float* out = a.out + row0 * a.ld_out + col;

  if (L > 0) {
    size_t Lp = RoundUp(L, 2 * N);
    // A row stride of a multiple of 512 bytes maps the rows of Kt to few L1
    // sets; a little padding spreads them (the extra columns score -inf).
    if (Lp % 128 == 0) Lp += 2 * N;
    const size_t dkp = RoundUp(dk, N);
    const bool rel = p.rel_bucket != nullptr;
    const size_t rel_len = rel ? 3 * Lp : 0;
    const size_t kt_size = dk * Lp, vs_size = L * dkp, t_size = kTransposeRows * dkp;
    const size_t q_size = kRows * dkp, s_size = kRows * Lp, o_size = kRows * dkp;
    float* buf =
        Scratch(kt_size + vs_size + q_size + s_size + o_size + t_size + rel_len);
    if (buf == nullptr) {
      a.out_of_memory.store(true);
      return;
    }
    float* Kt = buf;
    float* Vs = Kt + kt_size;
    float* Q = Vs + vs_size;
    float* Sc = Q + q_size;
    float* O = Sc + s_size;
    float* T = O + o_size;
    float* Rel = T + t_size;

    const float* kbase = a.k + row0 * a.ld_in + col;
    const float* vbase = a.v + row0 * a.ld_in + col;
    const float* qbase = a.q + row0 * a.ld_in + col;
    // Kt = rope(K)^T, a few rows at a time through T so that the stores
    // into Kt are runs of consecutive floats rather than single strided ones.
    for (size_t j0 = 0; j0 < L; j0 += kTransposeRows) {
      const size_t nb = std::min(kTransposeRows, L - j0);
      for (size_t jj = 0; jj < nb; ++jj) {
        RotateRow(p, kbase + (j0 + jj) * a.ld_in, 1.0f,
                  static_cast<int64_t>(j0 + jj), T + jj * dkp, 1);
      }
      for (size_t c = 0; c < dk; ++c) {
        float* dst = Kt + c * Lp + j0;
        for (size_t jj = 0; jj < nb; ++jj) dst[jj] = T[jj * dkp + c];
      }
    }
    for (size_t c = 0; c < dk; ++c) {
      std::fill(Kt + c * Lp + L, Kt + (c + 1) * Lp, 0.0f);
    }
    for (size_t j = 0; j < L; ++j) {
      const float* src = vbase + j * a.ld_in;
      float* dst = Vs + j * dkp;
      std::copy(src, src + dk, dst);
      std::fill(dst + dk, dst + dkp, 0.0f);
    }
    // Rel[u] = this head's bias for the offset j - i = u - (L - 1), for the
    // 2L - 1 offsets this sequence has; padded with 0 so the vector loads
    // for j in [L, Lp) stay inside the buffer.
    if (rel) {
      const size_t n = 2 * L - 1;
      const int32_t* bucket = p.rel_bucket + (static_cast<size_t>(p.max_len) - L);
      for (size_t u = 0; u < n; ++u) {
        Rel[u] = p.rel_table[static_cast<int64_t>(bucket[u]) * p.heads + h];
      }
      std::fill(Rel + n, Rel + rel_len, 0.0f);
    }
    const float slope = p.alibi_slopes ? p.alibi_slopes[h] : 0.0f;
    const VF neg_slope = hn::Set(d, -slope);
    const VF iota = hn::Iota(d, 0.0f);
    const float neg_inf = -std::numeric_limits<float>::infinity();

    float inv_sum[kRows];
    for (size_t i0 = 0; i0 < L; i0 += kRows) {
      const size_t rows = std::min(kRows, L - i0);
      for (size_t r = 0; r < kRows; ++r) {
        const size_t i = i0 + std::min(r, rows - 1);  // repeat the last row
        RotateRow(p, qbase + i * a.ld_in, p.scale, static_cast<int64_t>(i),
                  Q + r * dkp, 1);
      }
      for (size_t j0 = 0; j0 < Lp; j0 += 2 * N) {
        ScoreBlock(Q, dkp, Kt, Lp, dk, j0, Sc);
      }
      for (size_t r = 0; r < rows; ++r) {
        const size_t i = i0 + r;
        float* s = Sc + r * Lp;
        if (p.alibi_slopes != nullptr) {
          const VF vi = hn::Set(d, static_cast<float>(i));
          for (size_t j0 = 0; j0 < Lp; j0 += N) {
            const VF dist =
                hn::Abs(hn::Sub(hn::Add(iota, hn::Set(d, static_cast<float>(j0))), vi));
            hn::Store(hn::MulAdd(neg_slope, dist, hn::Load(d, s + j0)), d, s + j0);
          }
        }
        if (rel) {
          const float* rb = Rel + (L - 1 - i);  // rb[j]: offset j - i
          for (size_t j0 = 0; j0 < Lp; j0 += N) {
            hn::Store(hn::Add(hn::Load(d, s + j0), hn::LoadU(d, rb + j0)), d,
                      s + j0);
          }
        }
        std::fill(s + L, s + Lp, neg_inf);
        inv_sum[r] = SoftmaxRow(s, Lp);  // P unnormalised; O is scaled below
      }
      size_t c0 = 0;
      for (; c0 + 4 * N <= dkp; c0 += 4 * N) {
        WeightedSumBlock<4>(Sc, Lp, Vs, dkp, L, c0, O);
      }
      for (; c0 < dkp; c0 += N) WeightedSumBlock<1>(Sc, Lp, Vs, dkp, L, c0, O);
      for (size_t r = 0; r < rows; ++r) {
        const float* o = O + r * dkp;
        float* dst = out + (i0 + r) * a.ld_out;
        const float inv = inv_sum[r];
        for (size_t c = 0; c < dk; ++c) dst[c] = o[c] * inv;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_ATTENTION_INL_H_
