// ENC_TARGET, which caps the Highway target of every kernel: each case runs
// in a child process (the variable is read once per process), this test
// binary re-executed with the variable set and a filter for one Child test.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/gemm.h"
#include "kernels/gemm.h"
#include "src/target.h"

extern char** environ;

namespace {

// Runs this binary's test `child` with ENC_TARGET=value (and
// ENC_TARGET_TEST_CHILD=1 so that the Child tests run); its exit status.
int RunChild(const char* child, const char* value) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("ENC_TARGET=", 0) != 0 &&
        entry.rfind("GTEST_", 0) != 0) {  // ctest's sharding, if any
      env.push_back(entry);
    }
  }
  env.push_back(std::string("ENC_TARGET=") + value);
  env.push_back("ENC_TARGET_TEST_CHILD=1");
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string filter = std::string("--gtest_filter=Child.") + child;
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv,
                  envp.data()) != 0) {
    return -1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool InChild() { return std::getenv("ENC_TARGET_TEST_CHILD") != nullptr; }

TEST(Target, CapAtAvx2) { EXPECT_EQ(RunChild("CapAtAvx2", "avx2"), 0); }
TEST(Target, CapAtSse4) { EXPECT_EQ(RunChild("CapAtSse4", "SSE4"), 0); }
TEST(Target, UnknownNameFailsThePacking) {
  EXPECT_EQ(RunChild("UnknownName", "avx9"), 0);
}

// The packed kernel, the dispatch of the other kernels and the numbers under
// the cap `want`, which the CPU runs when `cpu_has_it`.
void CheckCappedAt(int64_t want, bool cpu_has_it) {
  ASSERT_EQ(enc::ApplyTargetCap(), ENC_OK) << enc_last_error();
  const int64_t n = 40, k = 30, m = 9;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> w(n * k), x(m * k), y(m * n);
  for (float& v : w) v = dist(rng);
  for (float& v : x) v = dist(rng);
  enc_packed_b* p = nullptr;
  ASSERT_EQ(enc_gemm_pack(w.data(), n, k, &p), ENC_OK) << enc_last_error();
  // The cap itself, or a lower target when the CPU lacks it (a higher bit is
  // a lower target).
  const int64_t got = enc::DispatchTarget();
  if (cpu_has_it) {
    EXPECT_EQ(got, want) << hwy::TargetName(got);
  } else {
    EXPECT_GT(got, want) << hwy::TargetName(got);
  }
  EXPECT_EQ(p->kernel.target, got);
  ASSERT_EQ(enc_gemm(m, x.data(), k, p, nullptr, ENC_ACT_NONE, nullptr, 0,
                     y.data(), n),
            ENC_OK);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += double(x[i * k + l]) * w[j * k + l];
      ASSERT_NEAR(y[i * n + j], s, 1e-4);
    }
  }
  enc_gemm_packed_free(p);
  // Later dispatches keep the cap (asking twice must not reset it).
  EXPECT_EQ(enc::DispatchTarget(), got);
}

TEST(Child, CapAtAvx2) {
  if (!InChild()) GTEST_SKIP() << "runs in a child of Target.CapAtAvx2";
  CheckCappedAt(HWY_AVX2,
                __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

TEST(Child, CapAtSse4) {
  if (!InChild()) GTEST_SKIP() << "runs in a child of Target.CapAtSse4";
  CheckCappedAt(HWY_SSE4, __builtin_cpu_supports("sse4.2"));
}

TEST(Child, UnknownName) {
  if (!InChild()) GTEST_SKIP() << "runs in a child of Target.UnknownNameFailsThePacking";
  const float w[1] = {1.0f};
  enc_packed_b* p = nullptr;
  EXPECT_EQ(enc_gemm_pack(w, 1, 1, &p), ENC_ERR_INPUT);
  EXPECT_EQ(p, nullptr);
  const std::string message = enc_last_error();
  EXPECT_NE(message.find("ENC_TARGET=avx9"), std::string::npos) << message;
  // Every later packing fails the same way: the cap is not half-applied.
  EXPECT_EQ(enc_gemm_pack(w, 1, 1, &p), ENC_ERR_INPUT);
}

}  // namespace
