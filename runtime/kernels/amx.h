// AMX tile instructions as inline assembly. Highway has no AMX, and the
// compilers' intrinsics need target attributes that Highway's targets lack;
// the encodings need only the assembler. The GEMM formats that use the tiles
// are compiled in the AVX3_DL target and chosen at pack time when
// SupportedAmx() (src/dispatch.h) says the CPU, the OS and the process's
// permission allow them.
//
// Tile numbers are immediates: the macros take them as literals (0..7).
// Only the full tile configuration (FullTiles) is used, and emulated.
#ifndef ENC_RUNTIME_KERNELS_AMX_H_
#define ENC_RUNTIME_KERNELS_AMX_H_

#include <cstdint>

namespace enc {

// The operand of ldtilecfg (palette 1): rows and bytes per row of each of
// the 8 tile registers (entries 8..15 are reserved, zero).
struct alignas(64) AmxTileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Every tile register as 16 rows of 64 bytes, the full tile: what the GEMM
// tiles use for accumulators (16 x 16 int32 or fp32), X (16 rows x 64
// bytes of K) and W (16 K groups x 16 columns x 4 bytes).
inline AmxTileConfig FullTiles() {
  AmxTileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = 16;
  }
  return c;
}

// Loads the configuration on the calling thread. The configuration is
// per thread and any library in the process may change it, so a kernel
// loads its own at the start of each call rather than once per thread.
inline void AmxLoadConfig(const AmxTileConfig& c) {
#ifndef ENC_AMX_EMULATE
  asm volatile("ldtilecfg %0" ::"m"(c));
#else
  (void)c;  // the emulation's tiles are always full
#endif
}

}  // namespace enc

#ifndef ENC_AMX_EMULATE
// tmm[tile] = 16 rows of 64 bytes at base, `stride` bytes apart.
#define ENC_AMX_LOAD(tile, base, stride)                 \
  asm volatile("tileloadd (%0,%1,1), %%tmm" #tile ::"r"( \
                   static_cast<const void*>(base)),      \
               "r"(static_cast<long>(stride))            \
               : "memory")
// The 16 rows of tmm[tile] to base, `stride` bytes apart.
#define ENC_AMX_STORE(tile, base, stride)                     \
  asm volatile("tilestored %%tmm" #tile                       \
               ", (%0,%1,1)" ::"r"(static_cast<void*>(base)), \
               "r"(static_cast<long>(stride))                 \
               : "memory")
#define ENC_AMX_ZERO(tile) asm volatile("tilezero %%tmm" #tile ::)
// tmm[c] (16 x 16 int32) += tmm[a] (16 rows x 64 s8) . tmm[b] (16 groups x
// 16 columns x 4 s8): c[m][n] += sum over g, i of a[m][4g + i] b[g][4n + i].
#define ENC_AMX_DPBSSD(c, a, b) \
  asm volatile("tdpbssd %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)
// tmm[c] (16 x 16 fp32) += tmm[a] (16 rows x 32 bf16) . tmm[b] (16 pairs x
// 16 columns x 2 bf16): c[m][n] += a[m][2g] b[g][2n] + a[m][2g + 1]
// b[g][2n + 1], pair by pair, in fp32.
#define ENC_AMX_DPBF16PS(c, a, b) \
  asm volatile("tdpbf16ps %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)

#else  // ENC_AMX_EMULATE
// The instructions in software, as Intel's manual defines them, on tile
// registers of the calling thread: the tests of a runtime built with
// ENC_AMX_EMULATE run the AMX formats' tiling, strides and epilogues on a
// CPU without AMX (test/runtime/CMakeLists.txt).
#include <cstring>

#include "src/dispatch.h"

namespace enc {
namespace amx_emulation {

// The units emulated here: what CpuAmx() reports in a runtime built with
// ENC_AMX_EMULATE.
inline constexpr int kEmulatedUnits = kAmxInt8 | kAmxBf16;

struct Tile {
  alignas(64) uint8_t bytes[16][64];
};
inline thread_local Tile tmm[8];

inline void Load(int t, const void* base, long stride) {
  for (int r = 0; r < 16; ++r) {
    std::memcpy(tmm[t].bytes[r], static_cast<const char*>(base) + r * stride,
                64);
  }
}
inline void Store(int t, void* base, long stride) {
  for (int r = 0; r < 16; ++r) {
    std::memcpy(static_cast<char*>(base) + r * stride, tmm[t].bytes[r], 64);
  }
}
inline void Zero(int t) { std::memset(&tmm[t], 0, sizeof(Tile)); }
// C[m][n] += sum over the 4-byte groups g and the kPer elements i of each:
// product(A[m][g][i], B[g][n][i]), Sum being C's element type.
template <typename Sum, int kPer, typename Product>
inline void TileDot(int c, int a, int b, Product product) {
  constexpr int kBytes = 4 / kPer;  // of one element
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      Sum sum;
      std::memcpy(&sum, &tmm[c].bytes[m][4 * n], 4);
      for (int g = 0; g < 16; ++g) {
        for (int i = 0; i < kPer; ++i) {
          sum += product(&tmm[a].bytes[m][4 * g + kBytes * i],
                         &tmm[b].bytes[g][4 * n + kBytes * i]);
        }
      }
      std::memcpy(&tmm[c].bytes[m][4 * n], &sum, 4);
    }
  }
}
inline void Dpbssd(int c, int a, int b) {
  TileDot<int32_t, 4>(c, a, b, [](const uint8_t* x, const uint8_t* y) {
    return int32_t{static_cast<int8_t>(*x)} * int32_t{static_cast<int8_t>(*y)};
  });
}

inline float Bf16At(const uint8_t* bytes) {
  const uint32_t u = uint32_t{bytes[0]} << 16 | uint32_t{bytes[1]} << 24;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline void Dpbf16ps(int c, int a, int b) {
  TileDot<float, 2>(c, a, b, [](const uint8_t* x, const uint8_t* y) {
    return Bf16At(x) * Bf16At(y);
  });
}

}  // namespace amx_emulation
}  // namespace enc

#define ENC_AMX_LOAD(tile, base, stride) \
  ::enc::amx_emulation::Load(tile, base, static_cast<long>(stride))
#define ENC_AMX_STORE(tile, base, stride) \
  ::enc::amx_emulation::Store(tile, base, static_cast<long>(stride))
#define ENC_AMX_ZERO(tile) ::enc::amx_emulation::Zero(tile)
#define ENC_AMX_DPBSSD(c, a, b) ::enc::amx_emulation::Dpbssd(c, a, b)
#define ENC_AMX_DPBF16PS(c, a, b) ::enc::amx_emulation::Dpbf16ps(c, a, b)
#endif  // ENC_AMX_EMULATE

namespace enc {

// The dot instruction of a GEMM format on the tiles.
enum class AmxDot { kInt8, kBf16 };  // tdpbssd, tdpbf16ps

// The sums of 16 rows of X across one 48-column panel of W, the walk every
// AMX format shares: each step multiplies 64 bytes of K of each row of X
// (tmm3, rows x_stride bytes apart) by the panel's 3 tiles of 16 columns at
// the same K (tmm4..6: 16 rows of 192 bytes, one K group of 48 columns of 4
// bytes each), into tmm0..2; then acc [16][48] (int32 or fp32, 4 bytes each)
// gets them. The full tile configuration must be loaded.
template <AmxDot kDot>
inline void AmxPanelSums(const void* x, int64_t x_stride, const void* w,
                         int64_t steps, void* acc) {
  constexpr int64_t kRow = 48 * 4;  // a W row, and a row of acc
  const auto* xb = static_cast<const uint8_t*>(x);
  const auto* wb = static_cast<const uint8_t*>(w);
  auto* out = static_cast<uint8_t*>(acc);
  ENC_AMX_ZERO(0);
  ENC_AMX_ZERO(1);
  ENC_AMX_ZERO(2);
  for (int64_t s = 0; s < steps; ++s, xb += 64, wb += 16 * kRow) {
    ENC_AMX_LOAD(3, xb, x_stride);
    ENC_AMX_LOAD(4, wb, kRow);
    ENC_AMX_LOAD(5, wb + 64, kRow);
    ENC_AMX_LOAD(6, wb + 128, kRow);
    if constexpr (kDot == AmxDot::kInt8) {
      ENC_AMX_DPBSSD(0, 3, 4);
      ENC_AMX_DPBSSD(1, 3, 5);
      ENC_AMX_DPBSSD(2, 3, 6);
    } else {
      ENC_AMX_DPBF16PS(0, 3, 4);
      ENC_AMX_DPBF16PS(1, 3, 5);
      ENC_AMX_DPBF16PS(2, 3, 6);
    }
  }
  ENC_AMX_STORE(0, out, kRow);
  ENC_AMX_STORE(1, out + 64, kRow);
  ENC_AMX_STORE(2, out + 128, kRow);
}

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_AMX_H_
