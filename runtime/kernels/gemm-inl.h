// The GEMM's SIMD body (Highway): a register-blocked micro-kernel over the
// packed W panels of kernels/gemm.h, its fused epilogue, and the cache-blocked
// loop over one (rows x panels) block of Y.
//
// Blocking, in BLIS terms with X as the broadcast operand: the micro-kernel
// keeps a kMr x (kVecs vectors) tile of Y in registers; per step k it loads
// kVecs vectors of a W panel row (prefetched ahead) and broadcasts kMr
// elements of X. The kMr x kc slice of X stays in L1 while it sweeps the W
// panels of a chunk; the kc x (chunk of panels) slice of W stays in L2 while
// every row tile of an M block sweeps it. K is split into blocks of ~kKc; Y
// holds the partial sums between K blocks (the micro-kernel prefetches the
// next tile's), and the epilogue runs in registers after the last one.

#if defined(ENC_KERNELS_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ENC_KERNELS_GEMM_INL_H_
#undef ENC_KERNELS_GEMM_INL_H_
#else
#define ENC_KERNELS_GEMM_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/gemm.h"
#include "kernels/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
namespace gemm_detail {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

constexpr size_t kLanes = hn::MaxLanes(D());
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr size_t kRegisters = 32;
#else
constexpr size_t kRegisters = 16;
#endif
// Vectors per tile row, panel columns per tile, tiles across a panel.
constexpr size_t kVecs = HWY_MIN(static_cast<size_t>(kGemmPanel) / kLanes,
                                 kGemmPanel % 3 == 0 ? 3 : 2);
constexpr size_t kTileCols = kVecs * kLanes;
constexpr size_t kSubTiles = static_cast<size_t>(kGemmPanel) / kTileCols;
static_assert(kSubTiles * kTileCols == static_cast<size_t>(kGemmPanel),
              "a panel must hold whole tiles");
// Rows per tile, so that the accumulators, kVecs panel vectors and 1 broadcast
// fit the register file. AVX-512: 8 x 3 = 24 accumulators of 32 registers
// (9 x 3, and 12 x 2 with 32-column panels, measured the same).
constexpr size_t kMr =
    kRegisters == 32 ? (kVecs == 3 ? 8 : 12) : (kVecs == 3 ? 4 : 6);
// K block (the X slice kMr x kc, <= 24 KiB, stays in L1) and the L2 budget of
// a W chunk. K = 768 in one block measured 3-8% faster than blocks of 256
// (fewer partial-sum passes over Y); K = 3072 runs as 4 blocks of 768.
constexpr int64_t kKc = 768;
constexpr int64_t kChunkBytes = 384 * 1024;

// Software prefetch distance of the W panel, in k steps.
constexpr int64_t kPrefetchRows = 24;
// Rows per M block: a W slice (kc x chunk) in L2 serves kMc / kMr row tiles.
// 512 measured ~5% faster than 128 for M = 512, N = 3072 (the Y block then
// outgrows L2; the micro-kernel prefetches the next tile's partial sums).
constexpr int64_t kMc = 512;

// One micro-kernel call.
struct TileIo {
  const float* x;  // row 0 of the tile at k0
  int64_t ldx;
  const float* b;  // panel row k0, at the tile's first column
  int64_t kc;
  float* c;  // the tile in Y (or a scratch tile)
  int64_t ldc;
  bool accumulate;         // start from c (an earlier K block)
  const float* init_bias;  // else start from bias + residual (ACT_NONE)
  const float* init_res;
  int64_t ldr;
  bool last;            // the last K block: run the epilogue
  const float* bias;    // added before the activation
  const float* res;     // added after it
  const float* next_c;  // the next tile's partial sums (prefetched), or null
};

template <int kAct>
HWY_INLINE V Activate(D d, V v) {
  if constexpr (kAct == ENC_ACT_RELU) {
    return hn::Max(v, hn::Zero(d));
  } else if constexpr (kAct == ENC_ACT_GELU) {
    return Gelu(d, v);
  } else if constexpr (kAct == ENC_ACT_GELU_TANH) {
    return GeluTanh(d, v);
  } else if constexpr (kAct == ENC_ACT_SILU) {
    return Silu(d, v);
  } else {
    return v;
  }
}

template <int kAct, size_t kRows>
HWY_NOINLINE void Tile(const TileIo& t) {
  const D d;
  V acc[kRows][kVecs];
  if (t.accumulate) {
    for (size_t r = 0; r < kRows; ++r) {
      for (size_t v = 0; v < kVecs; ++v) {
        acc[r][v] = hn::LoadU(d, t.c + r * t.ldc + v * kLanes);
      }
    }
  } else {
    for (size_t v = 0; v < kVecs; ++v) {
      const V b0 =
          t.init_bias ? hn::LoadU(d, t.init_bias + v * kLanes) : hn::Zero(d);
      for (size_t r = 0; r < kRows; ++r) acc[r][v] = b0;
    }
    if (t.init_res) {
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] = hn::Add(
              acc[r][v], hn::LoadU(d, t.init_res + r * t.ldr + v * kLanes));
        }
      }
    }
  }

  if (t.next_c) {  // hide the latency of the next tile's partial sums
    for (size_t r = 0; r < kRows; ++r) {
      for (size_t line = 0; line < kVecs * kLanes; line += 16) {
        hwy::Prefetch(t.next_c + r * t.ldc + line);
      }
    }
  }

  const float* HWY_RESTRICT x = t.x;
  const float* HWY_RESTRICT b = t.b;
  const int64_t ldx = t.ldx;
  for (int64_t k = 0; k < t.kc; ++k) {
    // The panel row kPrefetchRows steps ahead (past the end is harmless).
    const float* ahead = b + (k + kPrefetchRows) * kGemmPanel;
    for (int64_t line = 0; line < kGemmPanel; line += 16) {
      hwy::Prefetch(ahead + line);
    }
    V bv[kVecs];
    for (size_t v = 0; v < kVecs; ++v) {
      bv[v] = hn::Load(d, b + k * kGemmPanel + v * kLanes);
    }
    for (size_t r = 0; r < kRows; ++r) {
      const V xr = hn::Set(d, x[r * ldx + k]);
      for (size_t v = 0; v < kVecs; ++v) {
        acc[r][v] = hn::MulAdd(xr, bv[v], acc[r][v]);
      }
    }
  }

  if (t.last) {
    if (t.bias) {
      for (size_t v = 0; v < kVecs; ++v) {
        const V b0 = hn::LoadU(d, t.bias + v * kLanes);
        for (size_t r = 0; r < kRows; ++r) acc[r][v] = hn::Add(acc[r][v], b0);
      }
    }
    if constexpr (kAct != ENC_ACT_NONE) {
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] = Activate<kAct>(d, acc[r][v]);
        }
      }
    }
    if (t.res) {
      for (size_t r = 0; r < kRows; ++r) {
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v] =
              hn::Add(acc[r][v], hn::LoadU(d, t.res + r * t.ldr + v * kLanes));
        }
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kVecs; ++v) {
      hn::StoreU(acc[r][v], d, t.c + r * t.ldc + v * kLanes);
    }
  }
}

using TileFn = void (*)(const TileIo&);

template <int kAct, size_t... kRows>
constexpr std::array<TileFn, sizeof...(kRows)> MakeTiles(
    std::index_sequence<kRows...>) {
  return {{&Tile<kAct, kRows + 1>...}};
}

// Y rows [m0, m1) x panels [p0, p1), for one activation.
template <int kAct>
void Block(const GemmArgs& a, int64_t m0, int64_t m1, int64_t p0, int64_t p1) {
  static constexpr std::array<TileFn, kMr> kTiles =
      MakeTiles<kAct>(std::make_index_sequence<kMr>());
  // Scratch for a panel that runs past n.
  HWY_ALIGN float tmp_c[kMr * kGemmPanel];
  HWY_ALIGN float tmp_res[kMr * kGemmPanel];
  HWY_ALIGN float tmp_bias[kGemmPanel];

  const int64_t k = a.k;
  const int64_t k_blocks = (k + kKc - 1) / kKc;
  const int64_t kc_len = (k + k_blocks - 1) / k_blocks;
  const int64_t chunk =
      std::max<int64_t>(1, kChunkBytes / (kc_len * kGemmPanel * 4));
  const bool act_none = kAct == ENC_ACT_NONE;

  // M block > panel chunk > K block > row tile > panel: the W slice of a
  // chunk stays in L2 across row tiles, the X slice of a row tile in L1
  // across panels; Y holds the partial sums across K blocks.
  for (int64_t mc0 = m0; mc0 < m1; mc0 += kMc) {
    const int64_t mc1 = std::min(m1, mc0 + kMc);
    for (int64_t pc0 = p0; pc0 < p1; pc0 += chunk) {
      const int64_t pc1 = std::min(p1, pc0 + chunk);
      for (int64_t k0 = 0; k0 < k; k0 += kc_len) {
        const int64_t kc = std::min(kc_len, k - k0);
        const bool first = k0 == 0;
        const bool last = k0 + kc == k;
        for (int64_t m = mc0; m < mc1; m += kMr) {
          const int64_t rows = std::min<int64_t>(kMr, mc1 - m);
          const TileFn tile = kTiles[rows - 1];
          for (int64_t p = pc0; p < pc1; ++p) {
            const int64_t col0 = p * kGemmPanel;
            const int64_t cols = std::min(kGemmPanel, a.n - col0);
            const bool partial = cols < kGemmPanel;
            const float* bias = a.bias ? a.bias + col0 : nullptr;
            const float* res =
                a.residual ? a.residual + m * a.ldr + col0 : nullptr;
            int64_t ldr = a.ldr;
            float* c = a.y + m * a.ldy + col0;
            int64_t ldc = a.ldy;
            if (partial) {  // run the tile on zero-padded copies
              if (!first) {
                for (int64_t r = 0; r < rows; ++r) {
                  std::memcpy(tmp_c + r * kGemmPanel, c + r * ldc,
                              cols * sizeof(float));
                }
              }
              if (bias) {
                std::memset(tmp_bias, 0, sizeof(tmp_bias));
                std::memcpy(tmp_bias, bias, cols * sizeof(float));
                bias = tmp_bias;
              }
              if (res && (last || (first && act_none))) {
                std::memset(tmp_res, 0, sizeof(tmp_res));
                for (int64_t r = 0; r < rows; ++r) {
                  std::memcpy(tmp_res + r * kGemmPanel, res + r * ldr,
                              cols * sizeof(float));
                }
                res = tmp_res;
                ldr = kGemmPanel;
              }
              c = tmp_c;
              ldc = kGemmPanel;
            }
            TileIo t;
            t.x = a.x + m * a.ldx + k0;
            t.ldx = a.ldx;
            t.b = a.w + p * k * kGemmPanel + k0 * kGemmPanel;
            t.kc = kc;
            t.c = c;
            t.ldc = ldc;
            t.accumulate = !first;
            // ACT_NONE folds bias and residual into the initial accumulators
            // (so that residual may alias y); otherwise the epilogue adds them.
            t.init_bias = first && act_none ? bias : nullptr;
            t.init_res = first && act_none ? res : nullptr;
            t.ldr = ldr;
            t.last = last;
            t.bias = act_none ? nullptr : bias;
            t.res = act_none ? nullptr : res;
            // Past the first K block, the next tile (of this row tile, or the
            // first of the next row tile) starts from its sums in Y.
            t.next_c = nullptr;
            if (!first && !partial) {
              if (p + 1 < pc1) {
                t.next_c = c + kGemmPanel;
              } else if (m + static_cast<int64_t>(kMr) < mc1) {
                t.next_c = a.y + (m + kMr) * a.ldy + pc0 * kGemmPanel;
              }
            }
            for (size_t s = 0; s < kSubTiles; ++s) {
              const size_t off = s * kTileCols;
              TileIo ts = t;
              ts.b += off;
              ts.c += off;
              if (ts.init_bias) ts.init_bias += off;
              if (ts.init_res) ts.init_res += off;
              if (ts.bias) ts.bias += off;
              if (ts.res) ts.res += off;
              tile(ts);
            }
            if (partial) {
              float* yt = a.y + m * a.ldy + col0;
              for (int64_t r = 0; r < rows; ++r) {
                std::memcpy(yt + r * a.ldy, tmp_c + r * kGemmPanel,
                            cols * sizeof(float));
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace gemm_detail

// The exported entry point: one block of one enc_gemm call.
void GemmBlock(const GemmArgs& a, int64_t m0, int64_t m1, int64_t p0,
               int64_t p1) {
  switch (a.act) {
    case ENC_ACT_RELU:
      return gemm_detail::Block<ENC_ACT_RELU>(a, m0, m1, p0, p1);
    case ENC_ACT_GELU:
      return gemm_detail::Block<ENC_ACT_GELU>(a, m0, m1, p0, p1);
    case ENC_ACT_GELU_TANH:
      return gemm_detail::Block<ENC_ACT_GELU_TANH>(a, m0, m1, p0, p1);
    case ENC_ACT_SILU:
      return gemm_detail::Block<ENC_ACT_SILU>(a, m0, m1, p0, p1);
    default:
      return gemm_detail::Block<ENC_ACT_NONE>(a, m0, m1, p0, p1);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#endif  // ENC_KERNELS_GEMM_INL_H_
