// The parameters of the GEMM format tests: each Highway target alone, and
// kAmx, AVX3_DL with AMX's tiles (real, or emulated in the
// *_amx_emulated_test executables: test/runtime/CMakeLists.txt).
#ifndef ENC_TEST_RUNTIME_AMX_PARAMS_H_
#define ENC_TEST_RUNTIME_AMX_PARAMS_H_

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <string>
#include <vector>

#include "src/dispatch.h"

namespace enc_test {

// Not a Highway target, which are single bits.
inline constexpr int64_t kAmx = -1;

// The Highway target a parameter runs.
inline int64_t TargetOf(int64_t param) {
  return param == kAmx ? HWY_AVX3_DL : param;
}

inline std::string TargetParamName(
    const ::testing::TestParamInfo<int64_t>& info) {
  return info.param == kAmx ? "AMX" : hwy::TargetName(info.param);
}

// Highway's list holds the targets the test's file compiled, which lack
// AVX3_DL: only the runtime's GEMM formats compile it, so it is added where
// the CPU runs it.
inline std::vector<int64_t> TargetsAndAmx() {
  std::vector<int64_t> targets = {kAmx};
  if (enc::CpuTargets() & HWY_AVX3_DL) targets.push_back(HWY_AVX3_DL);
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) targets.push_back(t);
  return targets;
}

}  // namespace enc_test

#endif  // ENC_TEST_RUNTIME_AMX_PARAMS_H_
