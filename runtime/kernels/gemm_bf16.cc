// precision = bf16 (docs/numerics.md#precision): packing W to bf16 pairs
// (kernels/gemm_bf16.h) and enc_gemm on them, per Highway target
// (kernels/gemm_bf16-inl.h), split over the thread pool as the fp32 GEMM.
#include "kernels/gemm_bf16.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

// The AVX-512 VNNI target is compiled here, beside the runtime's usual ones:
// the AMX tiles are compiled in it (src/dispatch.h).
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm_bf16.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm_bf16-inl.h"

#if HWY_ONCE
#if HWY_ARCH_X86
#include <cpuid.h>
#endif

#include "enc/kernels/threads.h"
#include "kernels/gemm.h"
#include "src/dispatch.h"
#include "src/large_alloc.h"
#include "src/status.h"

namespace enc {
ENC_EXPORT(GetBf16Kernel);
ENC_EXPORT(GetAmxBf16Kernel);
ENC_EXPORT(RoundRowsBf16);

namespace {

std::atomic<Bf16Choice> g_choice{Bf16Choice::kAuto};

// CPUID.(EAX=7, ECX=1):EAX bit 5, with the AVX-512 state enabled by the OS
// (XCR0 bits 1, 2, 5, 6, 7).
bool DetectAvx512Bf16() {
#if HWY_ARCH_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || a < 1) return false;
  if (!__get_cpuid_count(7, 1, &a, &b, &c, &d) || !(a & (1u << 5)))
    return false;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
    return false;  // OSXSAVE
  uint32_t xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  (void)xcr0_hi;
  constexpr uint32_t kAvx512State =
      0xE6;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
  return (xcr0_lo & kAvx512State) == kAvx512State;
#else
  return false;
#endif
}

struct PackArgs {
  WeightRows w;
  int64_t panel, kpairs;
  uint32_t* dst;
};

// Panels [begin, end): pair-major, as the fp32 packing is k-major.
void PackPanels(void* ctx, int64_t begin, int64_t end) {
  const PackArgs& a = *static_cast<const PackArgs*>(ctx);
  const int64_t width = a.panel, k = a.w.k;
  for (int64_t p = begin; p < end; ++p) {
    uint32_t* panel = a.dst + p * a.kpairs * width;
    const int64_t cols = std::min(width, a.w.n - p * width);
    const float* rows[kMaxGemmPanel];
    for (int64_t j = 0; j < cols; ++j) rows[j] = a.w.Row(p * width + j);
    for (int64_t q = 0; q < a.kpairs; ++q) {
      uint32_t* out = panel + q * width;
      int64_t j = 0;
      if (2 * q < k) {  // past k: the tiles' zero padding
        for (; j < cols; ++j) {
          const uint32_t lo = Bf16Bits(rows[j][2 * q]);
          const uint32_t hi = 2 * q + 1 < k ? Bf16Bits(rows[j][2 * q + 1]) : 0u;
          out[j] = lo | hi << 16;
        }
      }
      for (; j < width; ++j) out[j] = 0;
    }
  }
}

}  // namespace

bool CpuHasAvx512Bf16() {
  static const bool has = DetectAvx512Bf16();
  return has;
}

bool Bf16DotIsFaster() { return CpuIsAmd(); }

Bf16Kernel ChooseBf16Kernel() {
  const Bf16Choice choice = g_choice.load();
  if (choice == Bf16Choice::kAuto && (SupportedAmx() & kAmxBf16)) {
    const Bf16Kernel amx = ENC_DYNAMIC_DISPATCH(GetAmxBf16Kernel)();
    if (amx.block != nullptr) return amx;
  }
  const bool dot = choice == Bf16Choice::kDot ||
                   (choice == Bf16Choice::kAuto && Bf16DotIsFaster());
  return ENC_DYNAMIC_DISPATCH(GetBf16Kernel)(!dot);
}

void SetBf16ChoiceForTest(Bf16Choice choice) { g_choice.store(choice); }

void RoundRowsToBf16Pairs(const float* x, int64_t ldx, int64_t k, int64_t r0,
                          int64_t r1, uint32_t* xb, int64_t ldxb) {
  ENC_DYNAMIC_DISPATCH(RoundRowsBf16)(x, ldx, k, r0, r1, xb, ldxb);
}

bool PlanBf16(int64_t n, int64_t k, Bf16Plan* plan) {
  Bf16Plan& p = *plan;
  p.kernel = ChooseBf16Kernel();
  PlanPanels(p.kernel, n, (k + 1) / 2, &p.panels, &p.kpairs);
  const int64_t width = p.kernel.panel;
  if (p.kpairs > (int64_t{1} << 40) / (p.panels * width)) return false;
  p.bytes = p.panels * p.kpairs * width * int64_t{sizeof(uint32_t)};
  return true;
}

enc_status PackBf16(int32_t num_parts, const float* const* parts,
                    const int64_t* rows, int64_t k, enc_packed_b** out) {
  const char* fn = "enc_gemm_pack";
  *out = nullptr;
  WeightRows w{};
  w.num_parts = num_parts;
  w.k = k;
  for (int32_t i = 0; i < num_parts; ++i) {
    w.parts[i] = parts[i];
    w.first_row[i + 1] = w.first_row[i] + rows[i];
  }
  for (int32_t i = num_parts + 1; i <= WeightRows::kMaxParts; ++i) {
    w.first_row[i] = w.first_row[num_parts];
  }
  w.n = w.first_row[num_parts];
  Bf16Plan plan;
  if (!PlanBf16(w.n, k, &plan)) {
    return Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                static_cast<long long>(w.n), static_cast<long long>(k));
  }
  const Bf16Kernel kernel = plan.kernel;
  const int64_t width = kernel.panel, n = w.n;
  const int64_t panels = plan.panels, kpairs = plan.kpairs;
  const size_t bytes = static_cast<size_t>(plan.bytes);
  auto* packed = new (std::nothrow) enc_packed_b{};
  void* data = AllocLarge(bytes);
  if (packed == nullptr || data == nullptr) {
    delete packed;
    std::free(data);
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
  }
  PackArgs args{w, width, kpairs, static_cast<uint32_t*>(data)};
  enc_parallel_for(panels, 1, &PackPanels, &args);
  packed->n = n;
  packed->k = k;
  packed->panels = panels;
  packed->precision = ENC_PRECISION_BF16;
  packed->bf16.kernel = kernel;
  packed->bf16.data = args.dst;
  packed->bf16.kpairs = kpairs;
  packed->bytes = static_cast<int64_t>(bytes);
  *out = packed;
  return ENC_OK;
}

enc_status GemmBf16(int64_t m, const float* x, int64_t ldx,
                    const enc_packed_b* w, const float* bias,
                    enc_activation act, const float* residual, int64_t ldr,
                    float* y, int64_t ldy) {
  const Bf16Panels& b = w->bf16;
  if (b.data == nullptr || b.kernel.block == nullptr ||
      b.kpairs < (w->k + 1) / 2 || b.kernel.group_multiple < 1 ||
      b.kpairs % b.kernel.group_multiple != 0) {
    return Fail(ENC_ERR_INPUT, "enc_gemm: w is not a bf16 packed matrix");
  }
  // The dot kernel's X in bf16 pairs, for this call: the calling thread's
  // buffer, kept across calls (freed at exit), rows on the pool.
  struct Buffer {
    ~Buffer() { std::free(words); }
    uint32_t* words = nullptr;
    int64_t capacity = 0;
  };
  static thread_local Buffer xb;
  const int64_t ldxb = b.kpairs;
  // The rows the tiles read: m, and the AMX tile's zero rows past it.
  const int64_t words = (m + b.kernel.pad_rows) * ldxb;
  if (b.kernel.dot && words > xb.capacity) {
    std::free(xb.words);
    xb.capacity = 0;
    xb.words = static_cast<uint32_t*>(
        AllocLarge(static_cast<size_t>(words) * sizeof(uint32_t)));
    if (xb.words == nullptr) {
      return Fail(ENC_ERR_NOMEM,
                  "enc_gemm: cannot allocate %lld bytes for the bf16 x",
                  static_cast<long long>(words * 4));
    }
    xb.capacity = words;
  }
  if (b.kernel.dot && b.kernel.pad_rows > 0) {
    std::memset(
        xb.words + m * ldxb, 0,
        static_cast<size_t>(b.kernel.pad_rows * ldxb) * sizeof(uint32_t));
  }
  if (b.kernel.dot) {
    struct Round {
      const float* x;
      int64_t ldx, k;
      uint32_t* xb;
      int64_t ldxb;
    } round{x, ldx, w->k, xb.words, ldxb};
    enc_parallel_for(
        m, 16,
        [](void* ctx, int64_t begin, int64_t end) {
          const Round& a = *static_cast<const Round*>(ctx);
          RoundRowsToBf16Pairs(a.x, a.ldx, a.k, begin, end, a.xb, a.ldxb);
        },
        &round);
  }
  const Bf16Args args{{bias, act, residual, ldr, y, ldy},
                      m,
                      w->n,
                      w->k,
                      x,
                      ldx,
                      b.data,
                      b.kpairs,
                      b.kernel.dot ? xb.words : nullptr,
                      ldxb};
  RunFormat(args, static_cast<const FormatKernel<Bf16Args>&>(b.kernel), m, w->n,
            w->k, w->panels);
  return ENC_OK;
}

}  // namespace enc
#endif  // HWY_ONCE
