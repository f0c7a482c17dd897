// The runtime's own per-target dispatch: Highway's ops and per-target
// compilation (foreach_target.h, header-only), without Highway's library.
//
// HWY_EXPORT / HWY_DYNAMIC_DISPATCH choose the target through
// hwy::GetChosenTarget() and hwy::SupportedTargets(), which live in
// libhwy.so (Debian ships no static libhwy); a shared library built by
// `encc --emit=shared` must depend on nothing beyond libc, libstdc++ and
// libm. ENC_EXPORT builds the same table as HWY_EXPORT (HWY_CHOOSE_TARGET_LIST,
// one entry per target this translation unit compiled) and
// ENC_DYNAMIC_DISPATCH indexes it with the targets this file detects (CPUID
// and XCR0, once), in Highway's ChosenTarget bit layout (hwy/targets.h):
//
//   ENC_EXPORT(NormRows);                        // at namespace scope,
//   HWY_ONCE ENC_DYNAMIC_DISPATCH(NormRows)(args);        // the best compiled
//   target
#ifndef ENC_RUNTIME_SRC_DISPATCH_H_
#define ENC_RUNTIME_SRC_DISPATCH_H_

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

namespace enc {

// HWY_* bits of the targets this CPU and its OS can run (HWY_SCALAR and
// HWY_EMU128 always), detected on the first call.
int64_t CpuTargets();

// The targets dispatch chooses among: CpuTargets() (or the mock of
// SetSupportedTargetsForTest) without those DisableTargets named; never 0
// (HWY_STATIC_TARGET when nothing would be left).
int64_t SupportedTargets();

// Subsequent dispatches skip `targets` (HWY_* bits; 0 re-enables all).
void DisableTargets(int64_t targets);

// Tests: subsequent dispatches act as if the CPU ran exactly `targets`
// (0: the CPU's own again). Not for concurrent use with kernel calls.
void SetSupportedTargetsForTest(int64_t targets);

// AMX, which is not a Highway target (Highway has no AMX): the GEMM formats
// that use its tiles are compiled in the AVX3_DL target with the
// instructions' own encodings. Units, as bits:
enum AmxUnit : int { kAmxInt8 = 1, kAmxBf16 = 2 };

// The AMX units this CPU and its OS run, once the process has been granted
// the tile state (arch_prctl, asked on the first call); 0 if any of it fails.
int CpuAmx();

// The units the kernels use now: CpuAmx() (or the mock of SetAmxForTest),
// unless DisableAmx was called, and only while AVX3_DL is the best
// supported target.
int SupportedAmx();

// Subsequent packs use no AMX (ENC_TARGET naming a Highway target).
void DisableAmx();

// Tests: `units` (bits, at most CpuAmx()) instead of the CPU's own; -1
// restores the CPU's own.
void SetAmxForTest(int units);

// Whether CPUID's vendor is "AuthenticAMD" (the kernels that differ by
// vendor where the ISA is the same: gemm_bf16.cc's choice of vdpbf16ps).
bool CpuIsAmd();

// SupportedTargets() in Highway's ChosenTarget layout (the bit of the best
// target lowest, HWY_CHOSEN_TARGET_MASK_SCALAR always set).
int64_t ChosenTargetMask();

// The index into an ENC_EXPORT table whose translation unit compiled the
// targets `compiled` (HWY_CHOSEN_TARGET_MASK_TARGETS, in that layout).
inline size_t DispatchIndex(int64_t compiled) {
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(ChosenTargetMask() & compiled));
}

}  // namespace enc

#define ENC_DISPATCH_TABLE(FUNC_NAME) HWY_CONCAT(FUNC_NAME, EncDispatchTable)

// Entry 0 is unused (Highway's lazy-initialisation slot: the mask here is
// computed before any lookup), then one per dynamic target, then the fallback.
#define ENC_EXPORT(FUNC_NAME)                                             \
  HWY_MAYBE_UNUSED static decltype(&HWY_STATIC_DISPATCH(FUNC_NAME)) const \
  ENC_DISPATCH_TABLE(FUNC_NAME)[HWY_MAX_DYNAMIC_TARGETS + 2] = {          \
      nullptr, HWY_CHOOSE_TARGET_LIST(FUNC_NAME),                         \
      HWY_CHOOSE_FALLBACK(FUNC_NAME)}

#define ENC_DYNAMIC_DISPATCH(FUNC_NAME) \
  (*(ENC_DISPATCH_TABLE(                \
      FUNC_NAME)[::enc::DispatchIndex(HWY_CHOSEN_TARGET_MASK_TARGETS)]))

#endif  // ENC_RUNTIME_SRC_DISPATCH_H_
