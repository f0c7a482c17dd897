// The int8 GEMM's SIMD body (Highway), compiled once per target: the
// quantization of X, the int8 product of one group of 4 K steps as the
// target's instructions compute it, and the register tile over the packed
// int8 panels of kernels/gemm_int8.h: the int8 format of the one GEMM driver
// (kernels/gemm_driver-inl.h), which walks the blocks. The epilogue is the fp32
// GEMM's (kernels/gemm_epilogue-inl.h), fed with the dequantized accumulators.
//
// Products, per target:
//   AVX2, SSSE3, SSE4  vpsignb (the sign of x moved onto w), vpmaddubsw
//                      (|x| u8 x w s8, pairs summed in int16: at most
//                      2 * 127 * 127, no saturation), vpmaddwd by 1 (int32);
//   AVX3 (AVX-512BW)   the same with a masked negation for vpsignb, which
//                      AVX-512 lacks;
//   AVX3_DL (VNNI)     vpdpbusd on x + 128 (u8) and w (s8), accumulated in
//                      int32; the epilogue subtracts 128 * sum_k w;
//   AVX3_DL with AMX   tdpbssd (s8 x s8) on 16-row tiles of X and 16 x 16
//                      tiles of W (below: AmxInt8Format);
//   scalar             plain int32 arithmetic.
// Every one computes the exact int32 sum of x_q * w_q.
//
#if defined(ENC_KERNELS_GEMM_INT8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_INT8_INL_H_
#undef ENC_KERNELS_GEMM_INT8_INL_H_
#else
#define ENC_KERNELS_GEMM_INT8_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/amx.h"
#include "kernels/gemm_driver-inl.h"
#include "kernels/gemm_epilogue-inl.h"
#include "kernels/gemm_int8.h"
#include "kernels/gemm_tile-inl.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_int8 {

namespace hn = hwy::HWY_NAMESPACE;
using gemm_detail::D;
using gemm_detail::kLanes;
// The fp32 GEMM's plain tile width: the int8 tile shares its epilogue
// (kernels/gemm_epilogue-inl.h), and with it the vectors per row.
constexpr size_t kVecs = gemm_detail::PlainTile::kVecs;
constexpr size_t kPanel = gemm_detail::PlainTile::kPanel;
using gemm_detail::TileView;
using gemm_detail::V;
using DI = hn::Repartition<int32_t, D>;
using VI = hn::Vec<DI>;

// Bytes of one packed vector: kLanes columns x one group of 4 K steps.
constexpr size_t kVecBytes = kLanes * kInt8Group;
// Bytes of one group of a panel: kVecs vectors.
constexpr size_t kGroupBytes = kVecs * kVecBytes;

// One group of 4 K steps: Step(acc, w, x) adds, in each int32 lane j, the
// dot product of the lane's 4 weight bytes with the 4 bytes of X that
// Broadcast took (with their absolute values, which QuantizeRows stored:
// a broadcast from memory costs a load, not an ALU operation). kOffset: Step
// multiplies x + kOffset instead of x, and the epilogue subtracts kOffset *
// (the column's sum of w).
#if HWY_TARGET == HWY_AVX3_DL
// 32 zmm: 8 x 3 accumulators + 3 weights + 1 broadcast.
constexpr size_t kRows = 8;
struct Product {
  static constexpr int32_t kOffset = 128;
  __m512i u;  // x + 128, as u8
  static HWY_INLINE Product Broadcast(const int8_t* x, const int8_t*) {
    int32_t bytes;
    std::memcpy(&bytes, x, sizeof(bytes));
    return {_mm512_xor_si512(_mm512_set1_epi32(bytes),
                             _mm512_set1_epi8(static_cast<char>(0x80)))};
  }
  static HWY_INLINE __m512i Load(const int8_t* w) {
    return _mm512_load_si512(w);
  }
  // vpdpbusd as an instruction: Highway's AVX3_DL target attributes lack
  // avx512vnni, which the intrinsic needs.
  HWY_INLINE VI Step(VI acc, __m512i w) const {
    __m512i sum = acc.raw;
    asm("vpdpbusd %[w], %[u], %[sum]"
        : [sum] "+v"(sum)
        : [u] "v"(u), [w] "v"(w));
    return VI{sum};
  }
};
#elif HWY_TARGET == HWY_AVX3
// 32 zmm: 8 x 3 accumulators + 3 weights + x, |x|, its sign mask's
// product and a constant.
constexpr size_t kRows = 8;
struct Product {
  static constexpr int32_t kOffset = 0;
  __m512i abs;    // |x| as u8 (at most 127)
  __mmask64 neg;  // bytes where x < 0
  static HWY_INLINE Product Broadcast(const int8_t* x, const int8_t* x_abs) {
    int32_t bytes, abs_bytes;
    std::memcpy(&bytes, x, sizeof(bytes));
    std::memcpy(&abs_bytes, x_abs, sizeof(abs_bytes));
    return {_mm512_set1_epi32(abs_bytes),
            _mm512_movepi8_mask(_mm512_set1_epi32(bytes))};
  }
  static HWY_INLINE __m512i Load(const int8_t* w) {
    return _mm512_load_si512(w);
  }
  HWY_INLINE VI Step(VI acc, __m512i w) const {
    const __m512i signed_w =
        _mm512_mask_sub_epi8(w, neg, _mm512_setzero_si512(), w);
    const __m512i pairs = _mm512_maddubs_epi16(abs, signed_w);
    return VI{_mm512_add_epi32(acc.raw,
                               _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)))};
  }
};
#elif HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || \
    HWY_TARGET == HWY_SSSE3
// 16 ymm (AVX2; xmm on SSE4 and SSSE3, the same at half the width): 4 x 2
// accumulators + 2 weights + x, |x|, a product and the constant 1.
#if HWY_TARGET == HWY_AVX2
#define ENC_INT8_OP(name) _mm256_##name
#else
#define ENC_INT8_OP(name) _mm_##name
#endif
constexpr size_t kRows = 4;
struct Product {
  static constexpr int32_t kOffset = 0;
  using Raw = decltype(hn::Zero(DI()).raw);
  Raw x, abs;
  static HWY_INLINE Product Broadcast(const int8_t* p, const int8_t* p_abs) {
    int32_t bytes, abs_bytes;
    std::memcpy(&bytes, p, sizeof(bytes));
    std::memcpy(&abs_bytes, p_abs, sizeof(abs_bytes));
    return {hn::Set(DI(), bytes).raw, hn::Set(DI(), abs_bytes).raw};
  }
  static HWY_INLINE Raw Load(const int8_t* w) {
    return hn::Load(hn::Repartition<int8_t, DI>(), w).raw;
  }
  HWY_INLINE VI Step(VI acc, Raw w) const {
    const Raw pairs =
        ENC_INT8_OP(maddubs_epi16)(abs, ENC_INT8_OP(sign_epi8)(w, x));
    return VI{ENC_INT8_OP(add_epi32)(
        acc.raw, ENC_INT8_OP(madd_epi16)(pairs, ENC_INT8_OP(set1_epi16)(1)))};
  }
};
#undef ENC_INT8_OP
#else
// Any other target: the sums lane by lane.
constexpr size_t kRows = 4;
struct Product {
  static constexpr int32_t kOffset = 0;
  const int8_t* x;
  static HWY_INLINE Product Broadcast(const int8_t* p, const int8_t*) {
    return {p};
  }
  static HWY_INLINE const int8_t* Load(const int8_t* w) { return w; }
  HWY_INLINE VI Step(VI acc, const int8_t* w) const {
    const DI di;
    HWY_ALIGN int32_t sums[hn::MaxLanes(DI())];
    for (size_t j = 0; j < kLanes; ++j) {
      int32_t s = 0;
      for (int64_t i = 0; i < kInt8Group; ++i) {
        s += int32_t{x[i]} * int32_t{w[j * kInt8Group + i]};
      }
      sums[j] = s;
    }
    return hn::Add(acc, hn::Load(di, sums));
  }
};
#endif
// Packed vectors are loaded aligned: a panel group is a whole number of
// them, and the panels start 64-byte aligned (gemm_int8.cc).
static_assert(kPanel <= kMaxGemmPanel, "pack.cc's panels are bounded");

// One call of the tile: rows [0, kRows') of a row tile across panels
// [0, panels) of a chunk.
struct TileIo {
  const int8_t* x;     // X quantized, at row 0 of the tile
  int64_t ldx;         // bytes per quantized row
  int64_t abs_offset;  // bytes from x to |x|
  const float* x_scale;
  const int8_t* w;   // the chunk's first panel
  int64_t w_stride;  // bytes from one panel to the next
  int64_t groups;
  const float* w_scale;  // at column 0 of the first panel
  const int32_t* w_sum;
  float* y;
  int64_t ldy;
  int64_t panels;
  size_t last_cols;  // valid columns of the last panel
  const float* bias;
  const float* res;
  int64_t ldr;
};

// The panel rows ahead of the current one that are prefetched.
constexpr int64_t kPrefetchGroups = 8;

// Panel p of a tile from its int32 sums (rows [0, kTileRows) of the tile
// as `acc`): Y = x_scale[r] * w_scale[c] * (acc - offset * w_sum[c]), added
// to what the epilogue starts from (bias and residual without an
// activation), then the epilogue.
template <class Epi, size_t kTileRows>
HWY_INLINE void FinishPanel(const TileIo& t, int64_t p, int32_t offset,
                            const VI (&acc)[kTileRows][kVecs]) {
  const D d;
  const DI di;
  const int64_t c0 = p * static_cast<int64_t>(kPanel);
  TileView view;
  view.y = t.y + c0;
  view.ldy = t.ldy;
  view.cols = p + 1 == t.panels ? t.last_cols : kPanel;
  view.bias = t.bias ? t.bias + c0 : nullptr;
  view.res = t.res ? t.res + c0 : nullptr;
  view.ldr = t.ldr;
  V out[kTileRows][kVecs];
  Epi::template Init<kTileRows>(d, view, out);
  for (size_t v = 0; v < kVecs; ++v) {
    const V w_scale = hn::LoadU(d, t.w_scale + c0 + v * kLanes);
    const VI w_offset =
        hn::Mul(hn::Set(di, offset), hn::LoadU(di, t.w_sum + c0 + v * kLanes));
    for (size_t r = 0; r < kTileRows; ++r) {
      const V exact = hn::ConvertTo(d, hn::Sub(acc[r][v], w_offset));
      out[r][v] = hn::MulAdd(hn::Mul(exact, w_scale), hn::Set(d, t.x_scale[r]),
                             out[r][v]);
    }
  }
  Epi::template Finish<kTileRows>(d, view, out);
}

template <class Epi, size_t kTileRows>
HWY_NOINLINE void RowTile(const TileIo& t) {
  const DI di;
  const int8_t* HWY_RESTRICT x[kTileRows];
  for (size_t r = 0; r < kTileRows; ++r) x[r] = t.x + r * t.ldx;
  for (int64_t p = 0; p < t.panels; ++p) {
    VI acc[kTileRows][kVecs];
    for (size_t r = 0; r < kTileRows; ++r) {
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = hn::Zero(di);
    }
    const int8_t* HWY_RESTRICT b = t.w + p * t.w_stride;
    for (int64_t g = 0; g < t.groups; ++g, b += kGroupBytes) {
      for (size_t line = 0; line < kGroupBytes; line += 64) {
        hwy::Prefetch(b + kPrefetchGroups * static_cast<int64_t>(kGroupBytes) +
                      line);
      }
      decltype(Product::Load(b)) w[kVecs];
      for (size_t v = 0; v < kVecs; ++v)
        w[v] = Product::Load(b + v * kVecBytes);
      for (size_t r = 0; r < kTileRows; ++r) {
        const int8_t* xg = x[r] + g * kInt8Group;
        const Product xr = Product::Broadcast(xg, xg + t.abs_offset);
        for (size_t v = 0; v < kVecs; ++v) acc[r][v] = xr.Step(acc[r][v], w[v]);
      }
    }

    FinishPanel<Epi, kTileRows>(t, p, Product::kOffset, acc);
  }
}

// The int8 format: W in s8 panels of groups of 4 K steps with per-column
// scales and sums, X quantized per row (its value and |x|: 2 bytes per K
// step), int32 accumulators dequantized once, after the whole of K: K is not
// blocked (an int8 panel of K = 4096 is 64 KiB on AVX2, and the row tile's X
// slice stays in L1 across the panels of a chunk).
struct Int8Format
    : gemm_detail::FormatTraits<2, 1, kInt8Group, /*kBlocks=*/false,
                                /*kFar=*/false> {
  using Call = Int8Args;
  template <class Shape>
  static constexpr size_t kRows = gemm_int8::kRows;

  template <class Epi, size_t kTileRows>
  static void Tile(const Int8Args& a, const gemm_detail::TileJob& j) {
    RowTile<Epi, kTileRows>(Io(a, j));
  }

  // The tile's view of a call and a job.
  static TileIo Io(const Int8Args& a, const gemm_detail::TileJob& j) {
    const int64_t col0 = j.pc0 * static_cast<int64_t>(kPanel);
    const int64_t ldx = a.groups * kInt8Group;
    TileIo t;
    t.x = a.xq + j.m * ldx;
    t.ldx = ldx;
    t.abs_offset = a.abs_offset;
    t.x_scale = a.x_scale + j.m;
    t.w_stride = a.groups * static_cast<int64_t>(kGroupBytes);
    t.w = a.w + j.pc0 * t.w_stride;
    t.groups = a.groups;
    t.w_scale = a.w_scale + col0;
    t.w_sum = a.w_sum + col0;
    t.y = a.y + j.m * a.ldy + col0;
    t.ldy = a.ldy;
    t.panels = j.panels;
    t.last_cols = j.last_cols;
    t.bias = a.bias ? a.bias + col0 : nullptr;
    t.res = a.residual ? a.residual + j.m * a.ldr + col0 : nullptr;
    t.ldr = a.ldr;
    return t;
  }
};

#if HWY_TARGET == HWY_AVX3_DL
// ---- AMX (kernels/amx.h) ---------------------------------------------------
// The same panels with groups padded to whole tiles (16 groups, 64 K steps),
// multiplied by tdpbssd: s8 x s8 straight from the quantized values, no
// offset. A tile of Y is 16 rows x one panel (3 tiles of 16 columns): tmm0..2
// accumulate, tmm3 holds 16 rows of X, tmm4..6 the panel's 3 W tiles of the
// same K. The sums are exact int32, as every other target's.
constexpr size_t kAmxRows = 16;
constexpr size_t kAmxGroups = 16;  // groups per tile
static_assert(kPanel == 48, "the AMX tile holds a panel as 3 tiles of 16");

// Rows [kR0, kR0 + kR) of a tile from its sums in acc.
template <class Epi, size_t kR0, size_t kR>
HWY_INLINE void AmxFinishRows(const TileIo& tile, int64_t p,
                              const int32_t* acc) {
  if constexpr (kR > 0) {
    const DI di;
    VI sums[kR][kVecs];
    for (size_t r = 0; r < kR; ++r) {
      for (size_t v = 0; v < kVecs; ++v) {
        sums[r][v] = hn::Load(di, acc + (kR0 + r) * kPanel + v * kLanes);
      }
    }
    TileIo t = tile;
    t.y += kR0 * t.ldy;
    if (t.res) t.res += kR0 * t.ldr;
    t.x_scale += kR0;
    FinishPanel<Epi, kR>(t, p, 0, sums);
  }
}

template <class Epi, size_t kTileRows>
HWY_NOINLINE void AmxRowTile(const TileIo& t) {
  static_assert(kTileRows <= kAmxRows, "a tile is 16 rows");
  static const AmxTileConfig config = FullTiles();
  AmxLoadConfig(config);
  HWY_ALIGN int32_t acc[kAmxRows * kPanel];
  // The epilogue in groups of at most 8 rows (as the register tile's).
  constexpr size_t kFirst = kTileRows < 8 ? kTileRows : 8;
  for (int64_t p = 0; p < t.panels; ++p) {
    static_assert(kGroupBytes == 48 * 4, "a K group of the panel is a W row");
    AmxPanelSums<AmxDot::kInt8>(t.x, t.ldx, t.w + p * t.w_stride,
                                t.groups / kAmxGroups, acc);
    AmxFinishRows<Epi, 0, kFirst>(t, p, acc);
    AmxFinishRows<Epi, kFirst, kTileRows - kFirst>(t, p, acc);
  }
}

// The AMX int8 format: the int8 format's call and panels, 16-row tiles, X
// read as s8 alone (1 byte per K step), K in whole tiles.
struct AmxInt8Format : Int8Format {
  template <class Shape>
  static constexpr size_t kRows = kAmxRows;
  static constexpr int64_t kXBytes = 1;
  static constexpr int64_t kKStep = kAmxGroups * kInt8Group;

  template <class Epi, size_t kTileRows>
  static void Tile(const Int8Args& a, const gemm_detail::TileJob& j) {
    AmxRowTile<Epi, kTileRows>(Io(a, j));
  }
};
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace gemm_int8

// This target's int8 GEMM and the packed layout it reads.
Int8Kernel GetInt8Kernel() {
  return Int8Kernel{
      {HWY_TARGET, static_cast<int64_t>(gemm_int8::kPanel),
       static_cast<int64_t>(gemm_int8::kRows),
       &gemm_detail::RunWithActivation<gemm_int8::Int8Format,
                                       gemm_detail::BiasActResidual>,
       1, 0},
      gemm_int8::Product::kOffset == 0};
}

// This target's AMX int8 GEMM: AVX3_DL only; elsewhere a kernel whose block
// is null (gemm_int8.cc then takes GetInt8Kernel's).
Int8Kernel GetAmxInt8Kernel() {
#if HWY_TARGET == HWY_AVX3_DL
  return Int8Kernel{
      {HWY_TARGET, static_cast<int64_t>(gemm_int8::kPanel),
       static_cast<int64_t>(gemm_int8::kAmxRows),
       &gemm_detail::RunWithActivation<gemm_int8::AmxInt8Format,
                                       gemm_detail::BiasActResidual>,
       static_cast<int64_t>(gemm_int8::kAmxGroups),
       static_cast<int64_t>(gemm_int8::kAmxRows) - 1},
      false};
#else
  return Int8Kernel{};
#endif
}

// Rows [r0, r1) of X [.., k] (row stride ldx) quantized to s8, each with its
// scale max |x| / 127, into q (row stride ldq, zero from k to ldq); with
// abs_offset > 0 their absolute values also go to q + abs_offset.
void QuantizeRows(const float* x, int64_t ldx, int64_t k, int64_t r0,
                  int64_t r1, int8_t* q, int64_t ldq, float* scale,
                  int64_t abs_offset) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::ScalableTag<float> d;
  const hn::Repartition<int32_t, decltype(d)> di;
  const hn::Rebind<int8_t, decltype(di)> d8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = x + r * ldx;
    int8_t* out = q + r * ldq;
    // max |x|, and x * 0 summed: NaN when an element is not finite (Max
    // alone may drop a NaN), and then so are the scale and the row's outputs.
    auto max = hn::Zero(d), probe = hn::Zero(d);
    const auto zero = hn::Zero(d);
    int64_t i = 0;
    for (; i + lanes <= k; i += lanes) {
      const auto v = hn::LoadU(d, row + i);
      max = hn::Max(max, hn::Abs(v));
      probe = hn::MulAdd(v, zero, probe);
    }
    float m = hn::GetLane(hn::MaxOfLanes(d, max));
    float nan_probe = hn::GetLane(hn::SumOfLanes(d, probe));
    for (; i < k; ++i) {
      m = std::max(m, std::fabs(row[i]));
      nan_probe += row[i] * 0.0f;
    }
    m += nan_probe;
    scale[r] = m / kInt8Max;
    const float inv = m > 0.0f ? kInt8Max / m : 0.0f;
    const auto vinv = hn::Set(d, inv);
    const auto lo = hn::Set(di, -kInt8Max), hi = hn::Set(di, kInt8Max);
    for (i = 0; i + lanes <= k; i += lanes) {
      const auto qi = hn::NearestInt(hn::Mul(hn::LoadU(d, row + i), vinv));
      hn::StoreU(hn::DemoteTo(d8, hn::Min(hn::Max(qi, lo), hi)), d8, out + i);
    }
    for (; i < k; ++i) {
      const float v = std::nearbyint(row[i] * inv);
      out[i] = static_cast<int8_t>(
          std::isnan(v)
              ? -kInt8Max
              : std::min<float>(kInt8Max, std::max<float>(-kInt8Max, v)));
    }
    for (; i < ldq; ++i) out[i] = 0;
    if (abs_offset > 0) {
      const hn::ScalableTag<int8_t> d8full;
      const int64_t bytes = static_cast<int64_t>(hn::Lanes(d8full));
      int8_t* abs = out + abs_offset;
      for (i = 0; i + bytes <= ldq; i += bytes) {
        hn::StoreU(hn::Abs(hn::LoadU(d8full, out + i)), d8full, abs + i);
      }
      for (; i < ldq; ++i)
        abs[i] = static_cast<int8_t>(out[i] < 0 ? -out[i] : out[i]);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_INT8_INL_H_
