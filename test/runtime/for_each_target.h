// Runs a test body once per Highway target compiled into the runtime (AVX3,
// AVX2, SSE4, ..., scalar), so that every dispatch path is exercised.
#ifndef ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_
#define ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_

#include <gtest/gtest.h>
#include <hwy/targets.h>

namespace enc_test {

template <class F>
void ForEachTarget(const F& f) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    f();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace enc_test

#endif  // ENC_TEST_RUNTIME_FOR_EACH_TARGET_H_
