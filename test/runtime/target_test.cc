// ENC_TARGET, which caps the Highway target of every kernel: each case runs
// in a child process (the variable is read once per process), this test
// binary re-executed with the variable set and ENC_TARGET_TEST_CHILD naming
// the check to run; the child runs it before main and exits with its result.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/gemm.h"
#include "kernels/gemm.h"
#include "src/dispatch.h"
#include "src/target.h"

extern char** environ;

namespace {

// Runs this binary as a child with ENC_TARGET=value that runs `check` (see
// RunChildCheck); its exit status.
int RunChild(const char* check, const char* value) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("ENC_TARGET", 0) != 0) env.push_back(entry);
  }
  env.push_back(std::string("ENC_TARGET=") + value);
  env.push_back(std::string("ENC_TARGET_TEST_CHILD=") + check);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv,
                  envp.data()) != 0) {
    return -1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Target, CapAtAvx2) { EXPECT_EQ(RunChild("avx2", "avx2"), 0); }
TEST(Target, CapAtSse4) { EXPECT_EQ(RunChild("sse4", "SSE4"), 0); }
// avx3_dl keeps AMX's tiles off; amx (or no ENC_TARGET) keeps them on where
// the CPU has them: int8 packs on the tiles exactly then.
TEST(Target, Avx3DlTurnsAmxOff) { EXPECT_EQ(RunChild("no_amx", "avx3_dl"), 0); }
TEST(Target, AmxKeepsAmx) { EXPECT_EQ(RunChild("amx", "AMX"), 0); }
TEST(Target, UnknownNameFailsThePacking) {
  EXPECT_EQ(RunChild("unknown", "avx9"), 0);
}

// In the child: a failed check prints why and counts.
int failures = 0;
void Check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "target_test child: %s\n", what.c_str());
  ++failures;
}

// The packed kernel, the dispatch of the other kernels and the numbers under
// the cap `want`, which the CPU runs when `cpu_has_it`.
void CheckCappedAt(int64_t want, bool cpu_has_it) {
  Check(enc::ApplyTargetCap() == ENC_OK, enc_last_error());
  const int64_t n = 40, k = 30, m = 9;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> w(n * k), x(m * k), y(m * n);
  for (float& v : w) v = dist(rng);
  for (float& v : x) v = dist(rng);
  enc_packed_b* p = nullptr;
  if (enc_gemm_pack(w.data(), n, k, &p) != ENC_OK) {
    Check(false, std::string("pack: ") + enc_last_error());
    return;
  }
  // The cap itself, or a lower target when the CPU lacks it (a higher bit is
  // a lower target).
  const int64_t got = enc::DispatchTarget();
  const std::string name = hwy::TargetName(got);
  Check(cpu_has_it ? got == want : got > want, "dispatch target " + name);
  Check(p->layout.target == got,
        "packed kernel " + std::string(hwy::TargetName(p->layout.target)));
  Check(enc_gemm(m, x.data(), k, p, nullptr, ENC_ACT_NONE, nullptr, 0, y.data(),
                 n) == ENC_OK,
        "enc_gemm failed");
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += double(x[i * k + l]) * w[j * k + l];
      if (std::fabs(y[i * n + j] - s) > 1e-4) {
        Check(false, "wrong product at " + std::to_string(i) + ", " +
                         std::to_string(j));
        i = m;
        break;
      }
    }
  }
  enc_gemm_packed_free(p);
  // Later dispatches keep the cap (asking twice must not reset it).
  Check(enc::DispatchTarget() == got, "the cap did not hold");
}

// Whether an int8 matrix packs on AMX's tiles (16-group K) under the cap,
// as `want_amx` says.
void CheckAmx(bool want_amx) {
  Check(enc::ApplyTargetCap() == ENC_OK, enc_last_error());
  const float w[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float* part = w;
  const int64_t rows = 1;
  enc_packed_b* p = nullptr;
  if (enc_gemm_pack_parts_as(ENC_PRECISION_INT8, 1, &part, &rows, 4, &p) !=
      ENC_OK) {
    Check(false, std::string("pack: ") + enc_last_error());
    return;
  }
  Check((p->int8.kernel.group_multiple == 16) == want_amx,
        "packed on AMX: " + std::to_string(p->int8.kernel.group_multiple));
  Check((enc::SupportedAmx() != 0) == want_amx, "SupportedAmx");
  enc_gemm_packed_free(p);
}

void CheckUnknownName() {
  const float w[1] = {1.0f};
  enc_packed_b* p = reinterpret_cast<enc_packed_b*>(&failures);
  Check(enc_gemm_pack(w, 1, 1, &p) == ENC_ERR_INPUT, "pack did not fail");
  Check(p == nullptr, "out was not cleared");
  const std::string message = enc_last_error();
  Check(message.find("ENC_TARGET=avx9") != std::string::npos,
        "message: " + message);
  // Every later packing fails the same way: the cap is not half-applied.
  Check(enc_gemm_pack(w, 1, 1, &p) == ENC_ERR_INPUT,
        "second pack did not fail");
}

// Before main: a child runs its check and exits with the number of failures.
const bool kChildRan = [] {
  const char* check = std::getenv("ENC_TARGET_TEST_CHILD");
  if (check == nullptr) return false;
  const std::string c = check;
  if (c == "avx2") {
    CheckCappedAt(HWY_AVX2, __builtin_cpu_supports("avx2") &&
                                __builtin_cpu_supports("fma"));
  } else if (c == "sse4") {
    CheckCappedAt(HWY_SSE4, __builtin_cpu_supports("sse4.2"));
  } else if (c == "no_amx") {
    CheckAmx(false);
  } else if (c == "amx") {
    CheckAmx((enc::CpuAmx() & enc::kAmxInt8) != 0 &&
             (enc::CpuTargets() & HWY_AVX3_DL) != 0);
  } else if (c == "unknown") {
    CheckUnknownName();
  } else {
    Check(false, "unknown check " + c);
  }
  std::exit(failures == 0 ? 0 : 1);
}();

}  // namespace
