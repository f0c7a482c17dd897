#include "src/target.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/target.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
int64_t ThisTarget() { return HWY_TARGET; }
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <hwy/targets.h>  // hwy::TargetName (inline)

#include <cctype>
#include <cstdlib>
#include <string>

#include "src/dispatch.h"
#include "src/status.h"

namespace enc {
namespace {

struct NamedTarget {
  const char* name;
  int64_t target;
};

// The names ENC_TARGET accepts, best first.
constexpr NamedTarget kTargets[] = {
    {"amx", HWY_AVX3_DL}, {"avx3_dl", HWY_AVX3_DL}, {"avx3", HWY_AVX3},
    {"avx512", HWY_AVX3}, {"avx2", HWY_AVX2},       {"sse4", HWY_SSE4},
    {"ssse3", HWY_SSSE3}, {"scalar", HWY_SCALAR},
};

struct CapResult {
  bool ok = true;
  std::string value;  // ENC_TARGET as given, for the error message
};

CapResult ReadAndApplyCap() {
  CapResult result;
  const char* env = std::getenv("ENC_TARGET");
  if (env == nullptr || *env == '\0') return result;
  std::string name;
  for (const char* c = env; *c != '\0'; ++c) {
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  }
  for (const NamedTarget& t : kTargets) {
    if (name == t.name) {
      // Better targets have lower bits: disable every bit below this one.
      DisableTargets(t.target - 1);
      // AMX sits above every Highway target (src/dispatch.h).
      if (name != "amx") DisableAmx();
      return result;
    }
  }
  result.ok = false;
  result.value = env;
  return result;
}

}  // namespace

enc_status ApplyTargetCap() {
  static const CapResult result = ReadAndApplyCap();  // thread-safe, once
  if (result.ok) return ENC_OK;
  return Fail(
      ENC_ERR_INPUT,
      "ENC_TARGET=%s is not a target name (amx, avx3_dl, avx3, avx512, avx2, "
      "sse4, ssse3, scalar)",
      result.value.c_str());
}

ENC_EXPORT(ThisTarget);

// Asks the dispatch itself.
int64_t DispatchTarget() { return ENC_DYNAMIC_DISPATCH(ThisTarget)(); }

const char* DispatchTargetName() { return hwy::TargetName(DispatchTarget()); }

}  // namespace enc
#endif  // HWY_ONCE
