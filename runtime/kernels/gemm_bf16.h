// The bf16 GEMM (precision = bf16, docs/numerics.md#precision): weights
// stored bf16 (rounded to nearest even), products accumulated in fp32.
//
// Packed layout: the fp32 GEMM's panels (kernels/gemm.h: `panel` output
// columns each, zero-padded past n) with K taken in pairs: pair q of panel p
// is `panel` 32-bit words, column j holding bf16(w[j][2q]) in its low half
// and bf16(w[j][2q + 1]) in its high half (zero past an odd k), at
// data[p * kpairs * panel + q * panel + j]. One word widens to two exact fp32
// (a shift and a mask), and is the pair operand vdpbf16ps takes as it is.
// kpairs is (k + 1) / 2 rounded up to the kernel's group_multiple (the K of
// a tile that reads whole groups), the pairs past k zero.
#ifndef ENC_RUNTIME_KERNELS_GEMM_BF16_H_
#define ENC_RUNTIME_KERNELS_GEMM_BF16_H_

#include <cstdint>
#include <cstring>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_plan.h"

namespace enc {

// The bits of bf16(f), rounded to nearest even; a NaN stays a (quiet) NaN.
inline uint16_t Bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>(u >> 16 | 0x40);
  u += 0x7FFFu + (u >> 16 & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float Bf16ToFloat(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Whether the CPU (and its OS) runs AVX512_BF16: vdpbf16ps (gemm_bf16.cc).
bool CpuHasAvx512Bf16();

// One enc_gemm call on a bf16 packed matrix, validated.
struct Bf16Args : GemmOutputArgs {
  int64_t m, n, k;
  const float* x;
  int64_t ldx;
  const uint32_t* w;  // packed pairs
  int64_t kpairs;     // pairs per packed column (Bf16Panels::kpairs)
  // The dot kernel's X, rounded to bf16 pairs once per call (as W's pairs,
  // zero past an odd k): ldxb words per row; null for the widening kernel.
  const uint32_t* xb;
  int64_t ldxb;
};

using Bf16BlockFn = FormatBlockFn<Bf16Args>;

// The bf16 GEMM of one Highway target.
struct Bf16Kernel : FormatKernel<Bf16Args> {
  bool dot;  // vdpbf16ps (X rounded to bf16) rather than widening
};

// A bf16 packed matrix's own part of enc_packed_b.
struct Bf16Panels {
  Bf16Kernel kernel;
  uint32_t* data;  // 64-byte aligned, panels * kpairs * kernel.panel words
  int64_t kpairs;  // (k + 1) / 2, rounded up to kernel.group_multiple
};

// Whether the runtime takes vdpbf16ps over the widening kernel's fp32 FMAs
// on this CPU: on AMD's (Zen 4 issues it at the FMA's rate, two products per
// lane; not measured here), not on Intel's, where it issues on one port
// against the FMA's two and measured 0.56-0.70x fp32 on an Emerald Rapids VM
// without AMX, the widening kernel 0.96-1.10x (docs/numerics.md#precision).
// Intel CPUs with AMX take the tiles instead.
bool Bf16DotIsFaster();

// Which kernel ChooseBf16Kernel takes: kAuto, the fastest the CPU has (AMX
// tiles, else vdpbf16ps where Bf16DotIsFaster(), else widening); the tests
// and benchmarks force the widening one (kWiden) or vdpbf16ps (kDot, where
// the CPU has AVX512_BF16) to run every kernel.
enum class Bf16Choice : int { kAuto, kWiden, kDot };

// The kernel of the target dispatch chooses now, by what the CPU has and
// the choice in force (gemm_bf16.cc).
Bf16Kernel ChooseBf16Kernel();
void SetBf16ChoiceForTest(Bf16Choice choice);

// Rows [r0, r1) of X rounded to bf16 pairs for the dot kernel (as Bf16Bits
// rounds; xb + r * ldxb, zero past an odd k), on the target dispatch
// chooses now.
void RoundRowsToBf16Pairs(const float* x, int64_t ldx, int64_t k, int64_t r0,
                          int64_t r1, uint32_t* xb, int64_t ldxb);

// The layout of a bf16 packed matrix of W [n, k] for the kernel this
// process chooses: the packing and a packed file's view (src/packed_file.cc)
// share it. False if the shape is too large.
struct Bf16Plan {
  Bf16Kernel kernel;
  int64_t panels, kpairs, bytes;
};
bool PlanBf16(int64_t n, int64_t k, Bf16Plan* plan);

// Packs the row concatenation of parts into a bf16 packed matrix (pack.cc
// calls it for BF16).
enc_status PackBf16(int32_t num_parts, const float* const* parts,
                    const int64_t* rows, int64_t k, enc_packed_b** out);
// enc_gemm for a bf16 packed matrix.
FormatGemm GemmBf16;

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_BF16_H_
