// Runs a test body once per Highway target compiled into the runtime (AVX3,
// AVX2, SSE4, ..., scalar) that this CPU runs, so that every dispatch path is
// exercised: the runtime's own dispatch (src/dispatch.h) is told to use that
// target alone.
#ifndef ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_
#define ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <vector>

#include "src/dispatch.h"

namespace enc_test {

// The compiled targets this CPU runs, best first (one HWY_* bit each).
inline std::vector<int64_t> RunnableTargets() {
  std::vector<int64_t> targets;
  for (int64_t rest = enc::CpuTargets() & HWY_TARGETS; rest != 0;
       rest &= rest - 1) {
    targets.push_back(rest & -rest);
  }
  return targets;
}

template <class F>
void ForEachTarget(const F& f) {
  for (int64_t target : RunnableTargets()) {
    enc::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    f();
  }
  enc::SetSupportedTargetsForTest(0);
}

}  // namespace enc_test

#endif  // ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_
