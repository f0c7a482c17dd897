// The int8 GEMM (precision = int8, docs/numerics.md#precision): its packed
// layout, shared by gemm_int8-inl.h (SIMD body) and gemm_int8.cc (packing,
// activation quantization, dispatch).
//
// Weights: row n of W is quantized once, at load, to s8 with the scale
// max |w[n, :]| / 127 (symmetric, round to nearest). Activations: each row of
// X is quantized the same way at every call. The products accumulate exactly
// in int32; the epilogue multiplies by both scales and applies bias,
// activation and residual in fp32 (kernels/gemm_epilogue-inl.h).
#ifndef ENC_RUNTIME_KERNELS_GEMM_INT8_H_
#define ENC_RUNTIME_KERNELS_GEMM_INT8_H_

#include <cstdint>

#include "enc/kernels/gemm.h"
#include "kernels/gemm_plan.h"

namespace enc {

// The quantized values lie in [-kInt8Max, kInt8Max]: -128 never occurs, so
// the AVX2 kernel's 16-bit pair sums (|a| * +-|w|, two of them) stay below
// 2 * 127 * 127 = 32258 and never saturate.
inline constexpr int32_t kInt8Max = 127;
// K steps per group: the instructions (vpmaddubsw + vpmaddwd, vpdpbusd)
// multiply 4 consecutive bytes into one int32 lane.
inline constexpr int64_t kInt8Group = 4;

// One call, validated, with X already quantized.
struct Int8Args : GemmOutputArgs {
  int64_t m, n, k;
  int64_t groups;        // K / kInt8Group, rounded up
  const int8_t* xq;      // [m, groups * kInt8Group], zero past k
  int64_t abs_offset;    // bytes from xq to |xq|, stored alike
  const float* x_scale;  // [m]
  const int8_t* w;       // packed panels
  const float* w_scale;  // [panels * panel], 0 past n
  const int32_t* w_sum;  // [panels * panel]: sum over k of the row's s8
};

// The int8 GEMM of one Highway target and the layout it reads.
using Int8BlockFn = FormatBlockFn<Int8Args>;
struct Int8Kernel : FormatKernel<Int8Args> {
  bool needs_abs;  // the tile reads |x| (at abs_offset)
};

// The kernel of the target ENC_DYNAMIC_DISPATCH chooses now, on AMX's tiles
// where SupportedAmx() has the int8 unit (gemm_int8.cc).
Int8Kernel ChooseInt8Kernel();

// Packed int8 W. Panel p holds output columns [p * panel, (p + 1) * panel)
// as [groups][panel][kInt8Group] bytes: group g of column j is the 4 bytes
// of W row (p * panel + j), columns [4 g, 4 g + 4), at
// panels + p * groups * panel * 4 + (g * panel + j) * 4; zero past n and past
// k. One 32-bit lane of a vector is one column's group, as the instructions
// consume it; for AMX, 16 groups of 16 columns (64 bytes each, panel * 4
// apart) are one W tile, and groups is a multiple of 16.
struct Int8Panels {
  Int8Kernel kernel;
  void* block;  // the one allocation (std::free): panels, scales, sums
  int8_t* panels;
  float* scales;  // [panels * panel]
  int32_t* sums;  // [panels * panel]
  int64_t groups;
};

// Where an int8 packed matrix of W [n, k] lives in its one block, for the
// kernel this process chooses: the packing and a packed file's view
// (src/packed_file.cc) share it. False if the shape is too large.
struct Int8Plan {
  Int8Kernel kernel;
  int64_t panels, groups;
  int64_t panel_bytes, column_bytes, bytes;  // bytes: the whole block
};
bool PlanInt8(int64_t n, int64_t k, Int8Plan* plan);
// Points `q` into `block` as `plan` lays it out.
void ViewInt8(const Int8Plan& plan, void* block, Int8Panels* q);

// Packs the row concatenation of `rows` (pack.cc has checked it) into *out,
// an int8 packed matrix; ENC_ERR_INPUT if a weight is not finite.
enc_status PackInt8(const WeightRows& rows, enc_packed_b** out);
void FreeInt8(Int8Panels* panels);

// enc_gemm for an int8 packed matrix.
FormatGemm GemmInt8;

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_GEMM_INT8_H_
