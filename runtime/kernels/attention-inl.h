// Multi-head attention (SIMD body, compiled once per target).
//
// One task is one (sequence, head), or, for a sequence of at least
// kAttentionSplitFrom tokens on several threads, one share of a head's keys
// (packed into panels the threads share) and then one share of its query
// rows (attention.cc). The scratch, reused across calls on the same thread,
// holds: K_h transposed and rotated [d_k, Lj] (so the scores of a
// query row are contiguous in j), V_h copied [L, dkp] (rows padded to whole
// vectors), a block of kRows rotated and scaled query rows, their scores for
// one tile of keys (kAttentionTileKeys) [kRows, ld], their partial outputs and,
// for relative bias, this head's bias per offset j - i. The softmax is the
// online one (FlashAttention's recurrence), tile by tile over the keys: memory
// O(L * d_k) per thread, not O(L^2), and the scores stay in L1.
// The two products are register-blocked per target (kRows, kScoreVecs,
// kSumVecs below) so that neither spills.

#include "kernels/attention_args.h"

#if defined(ENC_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_ATTENTION_INL_H_
#undef ENC_KERNELS_ATTENTION_INL_H_
#else
#define ENC_KERNELS_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include "hwy/highway.h"
#include "kernels/math-inl.h"  // ExpNonPositive

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Register blocking of the two products, per target: a block of kRows query
// rows; the scores of kScoreVecs vectors of keys at a time, the output of
// kSumVecs vectors of columns at a time. kRows x vectors accumulators, plus
// the vectors of one K or V row and one broadcast, fit the register file.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr size_t kRows = 6;       // 6 x 4 = 24 accumulators + 4 + 1 of 32 zmm
constexpr size_t kScoreVecs = 4;  // 64 keys
constexpr size_t kSumVecs = 4;    // 64 columns: a BERT head in one pass
#else
constexpr size_t kRows = 6;  // 6 x 2 = 12 accumulators + 2 + 1 of 16
constexpr size_t kScoreVecs = 2;
constexpr size_t kSumVecs = 2;
#endif
constexpr size_t kTransposeRows = 16;  // at most this many K rows per step
// Query blocks of a global block that visit each tile of keys together, so
// that the tile's K and V panels (2 x 128 KiB at 512 keys of d_k 64) are read
// from memory once per 96 query rows, then from L2.
constexpr size_t kGroupBlocks = 16;

HWY_INLINE size_t RoundUp(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Per-thread buffers, grown on demand and kept for the thread's lifetime;
// 64-byte aligned (std::aligned_alloc, not Highway's allocator, which lives
// in libhwy.so). Each kind (Which) is its own buffer.
struct FreeScratch {
  void operator()(float* p) const { std::free(p); }
};
enum class Buffer { kScratch, kSharedPanels };
template <Buffer Which>
HWY_INLINE float* ThreadBuffer(size_t floats) {
  static thread_local std::unique_ptr<float[], FreeScratch> buffer;
  static thread_local size_t capacity = 0;
  if (capacity < floats) {
    buffer.reset();
    capacity = 0;
    const size_t bytes = RoundUp(floats * sizeof(float), 64);
    buffer.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    if (!buffer) return nullptr;
    capacity = floats;
  }
  return buffer.get();
}
// A task's scratch: panels and rows of one (sequence, head), or one share.
HWY_INLINE float* Scratch(size_t floats) {
  return ThreadBuffer<Buffer::kScratch>(floats);
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

// S[r, 0 .. kSV*N) = Q[r] . K[j0 + j] for the kRows rows of Q (dkp apart),
// from kSV vectors of keys of a key panel (d_k rows, kp_stride floats apart);
// S rows lds apart. kSV = kScoreVecs scores a whole panel; 1 scores the
// vectors at the edges of a local block's keys.
template <size_t kSV>
HWY_INLINE void ScoreBlock(const float* HWY_RESTRICT Q, size_t dkp,
                           const float* HWY_RESTRICT Kp, size_t kp_stride,
                           size_t dk, float* HWY_RESTRICT S, size_t lds) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF acc[kRows][kSV];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kSV; ++v) acc[r][v] = hn::Zero(d);
  }
  const float* kp = Kp;
  for (size_t c = 0; c < dk; ++c, kp += kp_stride) {
    VF k[kSV];
    for (size_t v = 0; v < kSV; ++v) k[v] = hn::Load(d, kp + v * N);
    for (size_t r = 0; r < kRows; ++r) {
      const VF q = hn::Set(d, Q[r * dkp + c]);
      for (size_t v = 0; v < kSV; ++v) {
        acc[r][v] = hn::MulAdd(q, k[v], acc[r][v]);
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kSV; ++v) {
      hn::Store(acc[r][v], d, S + r * lds + v * N);
    }
  }
}

// O[r, 0 .. kV*N) += sum_{j in [j_lo, j_hi)} P[r, j - j_lo] V[j, ..] for the
// kRows rows of P (ldp apart), from the value panel Vp (rows of kV*N columns,
// contiguous); O rows ldo apart.
template <size_t kV>
HWY_INLINE void WeightedSumBlock(const float* HWY_RESTRICT P, size_t ldp,
                                 const float* HWY_RESTRICT Vp, size_t j_lo,
                                 size_t j_hi, float* HWY_RESTRICT O,
                                 size_t ldo) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF acc[kRows][kV];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t q = 0; q < kV; ++q)
      acc[r][q] = hn::Load(d, O + r * ldo + q * N);
  }
  const float* vp = Vp + j_lo * kV * N;
  for (size_t j = 0; j < j_hi - j_lo; ++j, vp += kV * N) {
    VF v[kV];
    for (size_t q = 0; q < kV; ++q) v[q] = hn::Load(d, vp + q * N);
    for (size_t r = 0; r < kRows; ++r) {
      const VF pr = hn::Set(d, P[r * ldp + j]);
      for (size_t q = 0; q < kV; ++q)
        acc[r][q] = hn::MulAdd(pr, v[q], acc[r][q]);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t q = 0; q < kV; ++q)
      hn::Store(acc[r][q], d, O + r * ldo + q * N);
  }
}

// Scores min(n, kSV) vectors of keys (n >= 1) with the widest ScoreBlock
// that fits; returns how many.
template <size_t kSV>
HWY_INLINE size_t ScoreUpTo(size_t n, const float* HWY_RESTRICT Q, size_t dkp,
                            const float* HWY_RESTRICT Kp, size_t kp_stride,
                            size_t dk, float* HWY_RESTRICT S, size_t lds) {
  if constexpr (kSV > 1) {
    if (n < kSV)
      return ScoreUpTo<kSV - 1>(n, Q, dkp, Kp, kp_stride, dk, S, lds);
  }
  ScoreBlock<kSV>(Q, dkp, Kp, kp_stride, dk, S, lds);
  return kSV;
}

// One step of the online softmax (the FlashAttention recurrence) over a tile
// of one row's scores s[0, n) (n a multiple of the vector; masked entries
// -inf): m, the row's running maximum, becomes max(m, max(s)); s becomes
// exp(s - m) in place (masked entries 0); *sum, the running sum of
// exp(score - m), is rescaled to the new m and adds this tile's. Returns the
// factor exp(m_old - m_new) by which the row's partial output is to be
// rescaled (1 up to and including the first tile that sees a key; s is all 0
// while none was seen). With one tile this is the plain softmax, to
// the bit.
HWY_INLINE float OnlineSoftmaxStep(float* HWY_RESTRICT s, size_t n, float* m,
                                   float* sum) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  VF vm = hn::Set(d, *m);
  for (size_t j = 0; j < n; j += N) vm = hn::Max(vm, hn::Load(d, s + j));
  const float m_new = hn::GetLane(hn::MaxOfLanes(d, vm));
  if (m_new == neg_inf) {  // every key so far masked
    std::fill(s, s + n, 0.0f);
    return 1.0f;
  }
  const VF vmax = hn::Set(d, m_new);
  VF vsum = hn::Zero(d);
  for (size_t j = 0; j < n; j += N) {
    const VF e = ExpNonPositive(d, hn::Sub(hn::Load(d, s + j), vmax));
    hn::Store(e, d, s + j);
    vsum = hn::Add(vsum, e);
  }
  const float tile_sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  // The first keys seen: O and *sum are still 0, nothing to rescale.
  const float alpha = *m == neg_inf ? 1.0f : std::exp(*m - m_new);
  *sum = *sum * alpha + tile_sum;
  *m = m_new;
  return alpha;
}

// The keys [lo, hi) within `half` (= window / 2) of some query row of
// [i0, i1) in a sequence of L: what a local block scores and sums; each row
// then masks the keys of that range it does not see.
struct KeyRange {
  size_t lo, hi;
};
HWY_INLINE KeyRange LocalKeys(size_t L, size_t i0, size_t i1, size_t half) {
  return KeyRange{i0 > half ? i0 - half : 0, std::min(L, i1 + half)};
}

// The scratch geometry of one sequence (any head). Keys are scored kJ at a
// time: Lj of them (L rounded up; the rest score -inf), `tile` of them (at
// most a.tile_keys, rounded up to kJ) per step of the online softmax, `tiles`
// steps at most. The score rows are ld apart: tile, plus a vector when tile
// floats are a multiple of 512 bytes (such rows map to few L1 sets). Value
// columns go in panels of kW (kSumVecs vectors), then of one vector.
struct HeadShape {
  size_t L, dk, N, kJ, Lj, tile, tiles, ld, dkp, kW, full_cols, rel_len;

  // Kp: rope(K) in key panels [Lj / kJ][d_k][kJ], zero past L. Vp: V in
  // column panels, the one of columns [c0, c0 + w) at Vp + c0 * L as
  // [L][w], zero past d_k. Rel: the head's bias per offset (relative only).
  size_t KeyFloats() const { return dk * Lj; }
  size_t ValueFloats() const { return L * dkp; }
  size_t PanelFloats() const { return KeyFloats() + ValueFloats() + rel_len; }
  // A group of query blocks (kGroupBlocks x kRows rows): their Q and partial
  // outputs, one block's scores for a tile, the transposition buffer of
  // PackKeys and, for the probabilities, each row's maximum after each tile.
  size_t RowFloats() const {
    const size_t rows = kGroupBlocks * kRows;
    return 2 * rows * dkp + kRows * ld + kTransposeRows * dkp + rows * tiles;
  }
};

// Where a group's buffers live in its RowFloats() floats.
struct RowScratch {
  float* Q;         // [kGroupBlocks * kRows][dkp]: rotated, scaled queries
  float* O;         // [kGroupBlocks * kRows][dkp]: unnormalised outputs
  float* Sc;        // [kRows][ld]: one block's scores for one tile
  float* T;         // [kTransposeRows][dkp]: PackKeys' transposition
  float* tile_max;  // [kGroupBlocks * kRows][tiles]: for the probabilities
};

HWY_INLINE RowScratch CarveRows(const HeadShape& s, float* rows) {
  RowScratch r;
  r.Q = rows;
  r.O = r.Q + kGroupBlocks * kRows * s.dkp;
  r.Sc = r.O + kGroupBlocks * kRows * s.dkp;
  r.T = r.Sc + kRows * s.ld;
  r.tile_max = r.T + kTransposeRows * s.dkp;
  return r;
}

HWY_INLINE size_t SequenceLength(const AttentionArgs& a, int64_t b) {
  return a.lengths ? static_cast<size_t>(a.lengths[b])
                   : static_cast<size_t>(a.seq_len);
}

HWY_INLINE HeadShape ShapeOf(const AttentionArgs& a, int64_t b) {
  const DF d;
  HeadShape s;
  s.L = SequenceLength(a, b);
  s.dk = static_cast<size_t>(a.p.d_k);
  s.N = hn::Lanes(d);
  s.kJ = kScoreVecs * s.N;
  s.Lj = RoundUp(s.L, s.kJ);
  s.tile = std::min(RoundUp(std::max<size_t>(a.tile_keys, 1), s.kJ), s.Lj);
  s.tiles = s.tile == 0 ? 0 : (s.Lj + s.tile - 1) / s.tile;
  s.ld = s.tile % 128 == 0 ? s.tile + s.N : s.tile;
  s.dkp = RoundUp(s.dk, s.N);
  s.kW = kSumVecs * s.N;
  s.full_cols = s.dkp / s.kW * s.kW;
  s.rel_len = a.p.rel_bucket != nullptr ? 3 * s.Lj : 0;
  return s;
}

// Where one (sequence, head)'s panels live.
struct HeadPanels {
  float* Kp;
  float* Vp;
  float* Rel;
};

HWY_INLINE HeadPanels CarvePanels(const HeadShape& s, float* buf) {
  return HeadPanels{buf, buf + s.KeyFloats(),
                    buf + s.KeyFloats() + s.ValueFloats()};
}

// NAME_forward_attention: (b, h)'s [seq_len, seq_len] probabilities, zero but
// for the valid rows' visible keys; or null.
HWY_INLINE float* ProbsOf(const AttentionArgs& a, int64_t b, int64_t h) {
  const size_t S = static_cast<size_t>(a.seq_len);
  return a.p.probs == nullptr
             ? nullptr
             : a.p.probs + (b * a.p.heads + h) * static_cast<int64_t>(S * S);
}

// Zeroes the probability rows of positions past the sequence's length.
HWY_INLINE void ZeroPaddingProbs(const AttentionArgs& a, const HeadShape& s,
                                 int64_t b, int64_t h) {
  float* probs = ProbsOf(a, b, h);
  const size_t S = static_cast<size_t>(a.seq_len);
  if (probs != nullptr) std::fill(probs + s.L * S, probs + S * S, 0.0f);
}

// Packs the keys [j_lo, j_hi) of (b, h) into Kp (rotated) and Vp; j_lo and
// j_hi are multiples of kJ (j_hi may be Lj). T: kTransposeRows * dkp floats.
HWY_INLINE void PackKeys(const AttentionArgs& a, const HeadShape& s, int64_t b,
                         int64_t h, const HeadPanels& hp, size_t j_lo,
                         size_t j_hi, float* T) {
  const enc_attention_params& p = a.p;
  const size_t L = s.L, dk = s.dk, dkp = s.dkp, kJ = s.kJ;
  const int64_t row0 = a.first_row[b];
  const int64_t col = a.Col(h);
  const float* kbase = a.k + row0 * a.ld_kv + col;
  const float* vbase = a.v + row0 * a.ld_kv + col;
  // Kp, tr keys at a time through T (tr divides kJ: both are powers of two),
  // so that the stores are runs of consecutive floats, not single strided ones.
  const size_t tr = std::min(kTransposeRows, kJ);
  for (size_t j0 = j_lo; j0 < j_hi; j0 += tr) {
    const size_t nb = j0 < L ? std::min(tr, L - j0) : 0;
    for (size_t jj = 0; jj < nb; ++jj) {
      RotateRow(p, kbase + (j0 + jj) * a.ld_kv, 1.0f,
                static_cast<int64_t>(j0 + jj), T + jj * dkp, 1);
    }
    float* panel = hp.Kp + (j0 / kJ) * dk * kJ + j0 % kJ;
    for (size_t c = 0; c < dk; ++c) {
      float* dst = panel + c * kJ;
      size_t jj = 0;
      for (; jj < nb; ++jj) dst[jj] = T[jj * dkp + c];
      for (; jj < tr; ++jj) dst[jj] = 0.0f;
    }
  }
  for (size_t j = j_lo; j < std::min(j_hi, L); ++j) {
    const float* src = vbase + j * a.ld_kv;
    size_t c0 = 0;
    for (; c0 < dkp; c0 += c0 < s.full_cols ? s.kW : s.N) {
      const size_t w = c0 < s.full_cols ? s.kW : s.N;
      float* dst = hp.Vp + c0 * L + j * w;
      const size_t valid = dk > c0 ? std::min(w, dk - c0) : 0;
      std::copy(src + c0, src + c0 + valid, dst);
      std::fill(dst + valid, dst + w, 0.0f);
    }
  }
}

// Rel[u] = head h's bias for the offset j - i = u - (L - 1), for the 2L - 1
// offsets this sequence has; padded with 0 so the vector loads for j in
// [L, Lj) stay inside the buffer. Relative bias only.
HWY_INLINE void FillRelative(const AttentionArgs& a, const HeadShape& s,
                             int64_t h, float* Rel) {
  const enc_attention_params& p = a.p;
  const size_t n = 2 * s.L - 1;
  const int32_t* bucket = p.rel_bucket + (static_cast<size_t>(p.max_len) - s.L);
  for (size_t u = 0; u < n; ++u) {
    Rel[u] = p.rel_table[static_cast<int64_t>(bucket[u]) * p.heads + h];
  }
  std::fill(Rel + n, Rel + s.rel_len, 0.0f);
}

// The keys one block of query rows [i0, i0 + rows) reads: `keys` exactly,
// [j_begin, j_end) in whole vectors (scores past L are 0 in Kp's padding and
// masked).
struct BlockKeys {
  KeyRange keys;
  size_t j_begin, j_end;
};
HWY_INLINE BlockKeys BlockKeysOf(const HeadShape& s, bool local, size_t half,
                                 size_t i0, size_t rows) {
  if (!local) return BlockKeys{KeyRange{0, s.L}, 0, s.Lj};
  const KeyRange keys = LocalKeys(s.L, i0, i0 + rows, half);
  return BlockKeys{keys, keys.lo / s.N * s.N, RoundUp(keys.hi, s.N)};
}

// The query rows [i_lo, i_hi) of (b, h) (i_lo a multiple of kRows) against
// the packed panels, with the online softmax: the rows go in blocks of kRows,
// the blocks in groups (kGroupBlocks for a global block, one for a local
// one); a group visits the keys a tile at a time, each block scoring,
// softmaxing and summing the tile's keys it sees. Each row keeps its running
// maximum and sum, and its partial output is rescaled when the maximum grows.
// Each output row replaces its query row only after that row was read, so out
// may be q. rows_scratch: RowFloats() floats.
HWY_INLINE void QueryRows(const AttentionArgs& a, const HeadShape& s, int64_t b,
                          int64_t h, const HeadPanels& hp, size_t i_lo,
                          size_t i_hi, float* rows_scratch) {
  const enc_attention_params& p = a.p;
  const DF d;
  const size_t N = s.N, L = s.L, dk = s.dk, dkp = s.dkp, kJ = s.kJ;
  const size_t ld = s.ld;
  const int64_t row0 = a.first_row[b];
  const int64_t col = a.Col(h);
  // q and out hold the packed rows [q_first, q_end) only.
  float* out = a.out + col;
  const float* qbase = a.q + col;
  const int64_t q_row = row0 - a.q_first;  // row of query i: q_row + i
  const size_t S = static_cast<size_t>(a.seq_len);
  float* probs = ProbsOf(a, b, h);
  const RowScratch rs = CarveRows(s, rows_scratch);
  float* Sc = rs.Sc;
  const float* Kp = hp.Kp;
  const float* Vp = hp.Vp;
  const float* Rel = hp.Rel;
  const bool rel = p.rel_bucket != nullptr;

  const float slope = p.alibi_slopes ? p.alibi_slopes[h] : 0.0f;
  const VF neg_slope = hn::Set(d, -slope);
  const VF iota = hn::Iota(d, 0.0f);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  // A local block (window > 0) sees |i - j| <= half; a window of 1 only j = i.
  const bool local = p.window > 0;
  const size_t half = static_cast<size_t>(p.window / 2);
  const size_t group = local ? 1 : kGroupBlocks;

  float row_max[kGroupBlocks * kRows], row_sum[kGroupBlocks * kRows];
  for (size_t g0 = i_lo; g0 < i_hi; g0 += group * kRows) {
    const size_t g1 = std::min(i_hi, g0 + group * kRows);
    const size_t blocks = (g1 - g0 + kRows - 1) / kRows;
    KeyRange span{SIZE_MAX, 0};  // the vectors of keys some block reads
    for (size_t k = 0; k < blocks; ++k) {
      const size_t i0 = g0 + k * kRows, rows = std::min(kRows, g1 - i0);
      for (size_t r = 0; r < kRows; ++r) {
        const size_t i = i0 + std::min(r, rows - 1);  // repeat the last row
        RotateRow(p, qbase + (q_row + static_cast<int64_t>(i)) * a.ld_q,
                  p.scale, static_cast<int64_t>(i),
                  rs.Q + (k * kRows + r) * dkp, 1);
      }
      const BlockKeys bk = BlockKeysOf(s, local, half, i0, rows);
      span.lo = std::min(span.lo, bk.j_begin);
      span.hi = std::max(span.hi, bk.j_end);
    }
    const size_t group_rows = blocks * kRows;
    std::fill(row_max, row_max + group_rows, neg_inf);
    std::fill(row_sum, row_sum + group_rows, 0.0f);
    std::fill(rs.O, rs.O + group_rows * dkp, 0.0f);
    if (probs != nullptr) {
      std::fill(rs.tile_max, rs.tile_max + group_rows * s.tiles, neg_inf);
      for (size_t i = g0; i < g1; ++i) {
        std::fill(probs + i * S, probs + (i + 1) * S, 0.0f);
      }
    }
    size_t t = 0;  // the tile's index in the group's span
    for (size_t t0 = span.lo; t0 < span.hi; t0 += s.tile, ++t) {
      const size_t t1 = std::min(t0 + s.tile, span.hi);
      for (size_t k = 0; k < blocks; ++k) {
        const size_t i0 = g0 + k * kRows, rows = std::min(kRows, g1 - i0);
        const BlockKeys bk = BlockKeysOf(s, local, half, i0, rows);
        // This block's keys in this tile: [a0, a1), whole vectors.
        const size_t a0 = std::max(t0, bk.j_begin), a1 = std::min(t1, bk.j_end);
        if (a0 >= a1) continue;
        const float* Q = rs.Q + k * kRows * dkp;
        float* O = rs.O + k * kRows * dkp;
        // As many vectors at a time as the key panel holds from j0 on.
        for (size_t j0 = a0; j0 < a1;) {
          const float* panel = Kp + (j0 / kJ) * dk * kJ + j0 % kJ;
          const size_t n = std::min(kJ - j0 % kJ, a1 - j0) / N;
          j0 += N * ScoreUpTo<kScoreVecs>(n, Q, dkp, panel, kJ, dk,
                                          Sc + (j0 - a0), ld);
        }
        float alpha[kRows];
        for (size_t r = 0; r < kRows; ++r) {
          float* sr = Sc + r * ld;  // sr[j - a0]: key j
          if (r >= rows) {  // a repeated row: adds nothing to any output
            std::fill(sr, sr + (a1 - a0), 0.0f);
            alpha[r] = 1.0f;
            continue;
          }
          const size_t i = i0 + r;
          if (p.alibi_slopes != nullptr) {
            const VF vi = hn::Set(d, static_cast<float>(i));
            for (size_t j0 = a0; j0 < a1; j0 += N) {
              const VF dist = hn::Abs(hn::Sub(
                  hn::Add(iota, hn::Set(d, static_cast<float>(j0))), vi));
              float* sj = sr + (j0 - a0);
              hn::Store(hn::MulAdd(neg_slope, dist, hn::Load(d, sj)), d, sj);
            }
          }
          if (rel) {
            const float* rb = Rel + (L - 1 - i);  // rb[j]: offset j - i
            for (size_t j0 = a0; j0 < a1; j0 += N) {
              float* sj = sr + (j0 - a0);
              hn::Store(hn::Add(hn::Load(d, sj), hn::LoadU(d, rb + j0)), d, sj);
            }
          }
          const KeyRange row = local ? LocalKeys(L, i, i + 1, half) : bk.keys;
          const size_t lo = std::min(std::max(row.lo, a0), a1);
          const size_t hi = std::max(std::min(row.hi, a1), lo);
          std::fill(sr, sr + (lo - a0), neg_inf);
          std::fill(sr + (hi - a0), sr + (a1 - a0), neg_inf);
          // P unnormalised; O is scaled at the end.
          const size_t gr = k * kRows + r;  // the row in the group
          alpha[r] = OnlineSoftmaxStep(sr, a1 - a0, &row_max[gr], &row_sum[gr]);
          if (probs != nullptr && a0 < L) {
            std::copy(sr, sr + (std::min(a1, L) - a0), probs + i * S + a0);
            rs.tile_max[gr * s.tiles + t] = row_max[gr];
          }
        }
        for (size_t r = 0; r < rows; ++r) {
          if (alpha[r] == 1.0f) continue;
          const VF va = hn::Set(d, alpha[r]);
          float* o = O + r * dkp;
          for (size_t c = 0; c < dkp; c += N)
            hn::Store(hn::Mul(va, hn::Load(d, o + c)), d, o + c);
        }
        // Keys past L or outside every row's window weigh 0: sum only those
        // in [keys.lo, keys.hi), which Vp holds.
        const size_t v_lo = std::max(a0, bk.keys.lo);
        const size_t v_hi = std::min(a1, bk.keys.hi);
        if (v_lo >= v_hi) continue;
        const float* P = Sc + (v_lo - a0);
        size_t c0 = 0;
        for (; c0 < s.full_cols; c0 += s.kW) {
          WeightedSumBlock<kSumVecs>(P, ld, Vp + c0 * L, v_lo, v_hi, O + c0,
                                     dkp);
        }
        for (; c0 < dkp; c0 += N) {
          WeightedSumBlock<1>(P, ld, Vp + c0 * L, v_lo, v_hi, O + c0, dkp);
        }
      }
    }
    for (size_t i = g0; i < g1; ++i) {
      const size_t gr = i - g0;
      const float* o = rs.O + gr * dkp;
      float* dst = out + (q_row + static_cast<int64_t>(i)) * a.ld_out;
      const float inv = 1.0f / row_sum[gr];
      for (size_t c = 0; c < dk; ++c) dst[c] = o[c] * inv;
      if (probs == nullptr) continue;
      // Each tile's probabilities are relative to the maximum after it.
      float* prow = probs + i * S;
      size_t k = 0;
      for (size_t t0 = span.lo; t0 < std::min(span.hi, L); t0 += s.tile, ++k) {
        const float m = rs.tile_max[gr * s.tiles + k];
        const float f = m == neg_inf ? 0.0f : std::exp(m - row_max[gr]) * inv;
        const size_t t1 = std::min(std::min(t0 + s.tile, span.hi), L);
        for (size_t j = t0; j < t1; ++j) prow[j] *= f;
      }
    }
  }
}

// The query rows of sequence b (starting at packed row row0, L long) that
// this call computes: those inside the packed rows [q_first, q_end).
HWY_INLINE KeyRange QueriesOf(const AttentionArgs& a, int64_t b, size_t L) {
  const int64_t row0 = a.first_row[b];
  const int64_t n = static_cast<int64_t>(L);
  const int64_t lo = std::min(n, std::max<int64_t>(0, a.q_first - row0));
  const int64_t hi = std::min(n, std::max<int64_t>(0, a.q_end - row0));
  return KeyRange{static_cast<size_t>(lo),
                  static_cast<size_t>(std::max(lo, hi))};
}

// The key blocks (multiples of kJ, up to Lj) the queries q of a head read:
// every one for a global block, those within window / 2 for a local one.
HWY_INLINE KeyRange KeyBlocksOf(const AttentionArgs& a, const HeadShape& s,
                                const KeyRange& q) {
  if (a.p.window <= 0) return KeyRange{0, s.Lj};
  const KeyRange keys =
      LocalKeys(s.L, q.lo, q.hi, static_cast<size_t>(a.p.window / 2));
  return KeyRange{keys.lo / s.kJ * s.kJ,
                  std::min(s.Lj, RoundUp(keys.hi, s.kJ))};
}

// One (sequence b, head h) on the calling thread, in its own scratch.
HWY_INLINE void AttentionHead(AttentionArgs& a, int64_t b, int64_t h) {
  const HeadShape s = ShapeOf(a, b);
  const KeyRange q = QueriesOf(a, b, s.L);
  if (q.lo >= q.hi) return;
  float* buf = Scratch(s.PanelFloats() + s.RowFloats());
  if (buf == nullptr) {
    a.out_of_memory.store(true);
    return;
  }
  const HeadPanels hp = CarvePanels(s, buf);
  float* rows = buf + s.PanelFloats();
  const KeyRange kb = KeyBlocksOf(a, s, q);
  PackKeys(a, s, b, h, hp, kb.lo, kb.hi, CarveRows(s, rows).T);
  if (a.p.rel_bucket != nullptr) FillRelative(a, s, h, hp.Rel);
  QueryRows(a, s, b, h, hp, q.lo, q.hi, rows);
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_ATTENTION_INL_H_
