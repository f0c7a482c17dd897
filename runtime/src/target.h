// The Highway target the kernels dispatch to, and ENC_TARGET, which caps it.
//
// ENC_TARGET=avx2 (or amx, avx3_dl, avx3, avx512, sse4, ssse3, scalar; any
// case) disables every compiled target better than the one named, AMX's tiles
// (src/dispatch.h) unless it names amx, so that the AVX2 kernels
// can be run and measured on an AVX-512 machine. It is read once per process,
// before the first weight is packed (a packed weight keeps the layout and the
// GEMM kernel of the target that packed it, see kernels/gemm.h). A target the
// CPU lacks caps nothing; an unknown name fails every enc_gemm_pack call.
// The cap is the runtime's own dispatch's (src/dispatch.h: DisableTargets),
// not Highway's, which lives in libhwy.so: what a program does with
// hwy::DisableTargets or hwy::SupportedTargets does not touch it.
#ifndef ENC_RUNTIME_SRC_TARGET_H_
#define ENC_RUNTIME_SRC_TARGET_H_

#include <cstdint>

#include "enc/runtime.h"

namespace enc {

// Applies ENC_TARGET on the first call; every call returns its outcome:
// ENC_OK, or ENC_ERR_INPUT (with enc_last_error set) for an unknown name.
enc_status ApplyTargetCap();

// The target ENC_DYNAMIC_DISPATCH chooses now (one HWY_* bit), and its name
// ("AVX3", "AVX2", ...).
int64_t DispatchTarget();
const char* DispatchTargetName();

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_TARGET_H_
