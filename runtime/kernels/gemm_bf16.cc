// precision = bf16 is part of the language and of the C ABI, but this
// runtime has no bf16 GEMM: packing fails with a message saying so, before
// anything is allocated.
#include "kernels/gemm_bf16.h"

#include "src/status.h"

namespace enc {

namespace {
constexpr const char* kMissing =
    "precision = bf16 is not implemented by this runtime";
}  // namespace

enc_status PackBf16(int32_t, const float* const*, const int64_t*, int64_t,
                    enc_packed_b** out) {
  *out = nullptr;
  return Fail(ENC_ERR_INPUT, "enc_gemm_pack: %s", kMissing);
}

enc_status GemmBf16(int64_t, const float*, int64_t, const enc_packed_b*,
                    const float*, enc_activation, const float*, int64_t,
                    float*, int64_t) {
  return Fail(ENC_ERR_INPUT, "enc_gemm: %s", kMissing);
}

}  // namespace enc
