// The runtime's own target dispatch (src/dispatch.h): its CPU detection
// agrees with Highway's library, and ENC_DYNAMIC_DISPATCH calls the code
// compiled for the target it chose.
#include <gtest/gtest.h>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "dispatch_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace enc_test {
namespace HWY_NAMESPACE {
int64_t CompiledFor() { return HWY_TARGET; }
}  // namespace HWY_NAMESPACE
}  // namespace enc_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <hwy/targets.h>

#include "for_each_target.h"
#include "src/dispatch.h"

namespace enc_test {
namespace {

ENC_EXPORT(CompiledFor);

int64_t Dispatched() { return ENC_DYNAMIC_DISPATCH(CompiledFor)(); }

TEST(Dispatch, DetectsWhatHighwayDetects) {
  // Highway's own detection (libhwy, which only the tests link).
  EXPECT_EQ(enc::CpuTargets() & HWY_TARGETS,
            hwy::SupportedTargets() & HWY_TARGETS);
}

TEST(Dispatch, ChoosesTheBestCompiledTarget) {
  const int64_t runnable = enc::CpuTargets() & HWY_TARGETS;
  ASSERT_NE(runnable, 0);
  EXPECT_EQ(Dispatched(), runnable & -runnable);  // the lowest bit is the best
}

TEST(Dispatch, EachTargetRunsItsOwnCode) {
  for (int64_t target : RunnableTargets()) {
    enc::SetSupportedTargetsForTest(target);
    EXPECT_EQ(Dispatched(), target) << hwy::TargetName(target);
  }
  enc::SetSupportedTargetsForTest(0);
  const int64_t runnable = enc::CpuTargets() & HWY_TARGETS;
  EXPECT_EQ(Dispatched(), runnable & -runnable);
}

TEST(Dispatch, DisabledTargetsAreSkipped) {
  const std::vector<int64_t> targets = RunnableTargets();
  if (targets.size() < 2) GTEST_SKIP() << "one compiled target runs here";
  enc::DisableTargets(targets[0]);
  EXPECT_EQ(Dispatched(), targets[1]) << hwy::TargetName(targets[1]);
  enc::DisableTargets(0);
  EXPECT_EQ(Dispatched(), targets[0]) << hwy::TargetName(targets[0]);
}

TEST(Dispatch, NothingLeftFallsBackToTheStaticTarget) {
  enc::DisableTargets(~int64_t{0});
  EXPECT_EQ(enc::SupportedTargets(), HWY_STATIC_TARGET);
  EXPECT_EQ(Dispatched(), HWY_STATIC_TARGET);
  enc::DisableTargets(0);
}

}  // namespace
}  // namespace enc_test
#endif  // HWY_ONCE
