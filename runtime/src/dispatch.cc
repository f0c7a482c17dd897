// Which Highway targets this CPU runs, from CPUID and XCR0, with the
// feature groups Highway 1.0.3 requires of each target (its targets.cc).
#include "src/dispatch.h"

#if defined(ENC_AMX_EMULATE)
#include "kernels/amx.h"
#endif

#include <atomic>

#if HWY_ARCH_X86
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace enc {
namespace {

#if HWY_ARCH_X86
struct Regs {
  uint32_t a, b, c, d;
};

Regs Cpuid(uint32_t leaf, uint32_t subleaf) {
  Regs r{};
  __cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
  return r;
}

// XCR0: which register states the OS saves across context switches.
uint32_t ReadXcr0() {
  uint32_t lo, hi;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo;
}

constexpr bool Has(uint32_t reg, int bit) { return (reg >> bit) & 1u; }

int64_t DetectX86() {
  const uint32_t max_leaf = Cpuid(0, 0).a;
  const Regs l1 = Cpuid(1, 0);
  const Regs l7 = max_leaf >= 7 ? Cpuid(7, 0) : Regs{};
  const bool lzcnt =
      Cpuid(0x80000000u, 0).a >= 0x80000001u && Has(Cpuid(0x80000001u, 0).c, 5);

  const bool ssse3 = Has(l1.d, 25) && Has(l1.d, 26) &&          // SSE, SSE2
                     Has(l1.c, 0) && Has(l1.c, 9);              // SSE3, SSSE3
  const bool sse4 = ssse3 && Has(l1.c, 19) && Has(l1.c, 20) &&  // SSE4.1, 4.2
                    Has(l1.c, 1) && Has(l1.c, 25);              // CLMUL, AES
  const bool avx2 = sse4 && Has(l1.c, 28) && Has(l7.b, 5) &&    // AVX, AVX2
                    Has(l1.c, 12) && Has(l1.c, 29) && lzcnt &&  // FMA, F16C
                    Has(l7.b, 3) && Has(l7.b, 8);               // BMI, BMI2
  const bool avx3 = avx2 && Has(l7.b, 16) && Has(l7.b, 17) &&   // F, DQ
                    Has(l7.b, 28) && Has(l7.b, 30) &&           // CD, BW
                    Has(l7.b, 31);                              // VL
  const bool avx3_dl = avx3 && Has(l7.c, 1) && Has(l7.c, 6) &&  // VBMI, VBMI2
                       Has(l7.c, 8) && Has(l7.c, 9) &&          // GFNI, VAES
                       Has(l7.c, 10) && Has(l7.c, 11) &&  // VPCLMULQDQ, VNNI
                       Has(l7.c, 12) && Has(l7.c, 14);    // BITALG, POPCNTDQ

  int64_t targets = 0;
  if (ssse3) targets |= HWY_SSSE3;
  if (sse4) targets |= HWY_SSE4;
  // AVX state needs the OS's XSAVE support of YMM (and for AVX-512, of the
  // opmask and ZMM registers); without OSXSAVE, no AVX at all.
  const bool osxsave = Has(l1.c, 27);
  const uint32_t xcr0 = osxsave ? ReadXcr0() : 0;
  const bool ymm = Has(xcr0, 1) && Has(xcr0, 2);
  const bool zmm = ymm && Has(xcr0, 5) && Has(xcr0, 6) && Has(xcr0, 7);
  if (avx2 && ymm) targets |= HWY_AVX2;
  if (avx3 && zmm) targets |= HWY_AVX3;
  if (avx3_dl && zmm) targets |= HWY_AVX3_DL;
  return targets;
}

// AMX: CPUID.7.0:EDX AMX-TILE (24) with AMX-INT8 (25) / AMX-BF16 (22); the
// OS saves the tile state (XCR0 bits 17 XTILECFG and 18 XTILEDATA); and,
// as Linux requires before a first tile instruction, the process's
// permission to use tile data (arch_prctl ARCH_REQ_XCOMP_PERM).
[[maybe_unused]] int DetectAmx() {
  const uint32_t max_leaf = Cpuid(0, 0).a;
  if (max_leaf < 7) return 0;
  const Regs l1 = Cpuid(1, 0), l7 = Cpuid(7, 0);
  if (!Has(l7.d, 24) || !Has(l1.c, 27)) return 0;
  const uint32_t xcr0 = ReadXcr0();
  if (!Has(xcr0, 17) || !Has(xcr0, 18)) return 0;
#if defined(__linux__)
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    return 0;
  }
#else
  return 0;  // no known way to ask for the tile state
#endif
  int units = 0;
  if (Has(l7.d, 25)) units |= kAmxInt8;
  if (Has(l7.d, 22)) units |= kAmxBf16;
  return units;
}
#endif  // HWY_ARCH_X86

int64_t Detect() {
  int64_t targets = HWY_SCALAR | HWY_EMU128;
#if HWY_ARCH_X86
  targets |= DetectX86();
#else
  // No detection elsewhere yet: what the compiler was told the CPU has.
  targets |= HWY_ENABLED_BASELINE;
#endif
  return targets;
}

// Written only by DisableTargets / SetSupportedTargetsForTest, which reset
// the cached mask; 0 in g_chosen means "not computed".
std::atomic<int64_t> g_disabled{0};
std::atomic<int64_t> g_mock{0};
std::atomic<int64_t> g_chosen{0};
std::atomic<bool> g_amx_disabled{false};
std::atomic<int> g_amx_mock{-1};

}  // namespace

bool CpuIsAmd() {
#if HWY_ARCH_X86
  static const bool amd = [] {
    const Regs r = Cpuid(0, 0);  // "Auth" "enti" "cAMD" in b, d, c
    return r.b == 0x68747541u && r.d == 0x69746E65u && r.c == 0x444D4163u;
  }();
  return amd;
#else
  return false;
#endif
}

int CpuAmx() {
#if defined(ENC_AMX_EMULATE)
  return amx_emulation::kEmulatedUnits;  // the instructions in software
#elif HWY_ARCH_X86
  static const int units = DetectAmx();  // thread-safe, once
  return units;
#else
  return 0;
#endif
}

int SupportedAmx() {
  // The tiles are compiled in the AVX3_DL target: AMX goes with it.
  if ((SupportedTargets() & HWY_AVX3_DL) == 0) return 0;
  const int mock = g_amx_mock.load(std::memory_order_relaxed);
  if (mock >= 0) return mock & CpuAmx();
  return g_amx_disabled.load(std::memory_order_relaxed) ? 0 : CpuAmx();
}

void DisableAmx() { g_amx_disabled.store(true); }

void SetAmxForTest(int units) { g_amx_mock.store(units); }

int64_t CpuTargets() {
  static const int64_t targets = Detect();  // thread-safe, once
  return targets;
}

int64_t SupportedTargets() {
  const int64_t mock = g_mock.load(std::memory_order_relaxed);
  int64_t targets = mock != 0 ? mock : CpuTargets();
  targets &= ~g_disabled.load(std::memory_order_relaxed);
  return targets != 0 ? targets : HWY_STATIC_TARGET;
}

void DisableTargets(int64_t targets) {
  g_disabled.store(targets);
  g_chosen.store(0);
}

void SetSupportedTargetsForTest(int64_t targets) {
  g_mock.store(targets);
  g_chosen.store(0);
}

int64_t ChosenTargetMask() {
  int64_t mask = g_chosen.load(std::memory_order_acquire);
  if (HWY_LIKELY(mask != 0)) return mask;
  mask = HWY_CHOSEN_TARGET_SHIFT(SupportedTargets()) |
         HWY_CHOSEN_TARGET_MASK_SCALAR;
  g_chosen.store(mask, std::memory_order_release);
  return mask;
}

}  // namespace enc
