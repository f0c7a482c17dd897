// Output pooling: argument checks and per-target dispatch.
#include "enc/kernels/pool.h"

#include "src/layout.h"
#include "src/status.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pool.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/pool-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
void Pool(const PoolArgs& a) { PoolBatch(a); }
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/dispatch.h"

namespace enc {
ENC_EXPORT(Pool);
static void RunPool(const PoolArgs& a) { ENC_DYNAMIC_DISPATCH(Pool)(a); }
}  // namespace enc

extern "C" enc_status enc_pool(int32_t mode, int32_t normalize, int32_t batch,
                               int32_t seq_len, int64_t d,
                               const int32_t* lengths, const float* x,
                               int64_t ld_x, float* out, int64_t ld_out) {
  using enc::Fail;
  if (mode < ENC_POOL_NONE || mode > ENC_POOL_LAST) {
    return Fail(ENC_ERR_INPUT, "enc_pool: unknown pooling mode %d", mode);
  }
  if (normalize != 0 && normalize != 1) {
    return Fail(ENC_ERR_INPUT, "enc_pool: normalize (%d) is neither 0 nor 1",
                normalize);
  }
  if (batch < 0) return Fail(ENC_ERR_INPUT, "enc_pool: batch (%d) < 0", batch);
  if (seq_len < 1)
    return Fail(ENC_ERR_INPUT, "enc_pool: seq_len (%d) < 1", seq_len);
  if (d < 1) return Fail(ENC_ERR_INPUT, "enc_pool: d (%lld) < 1", (long long)d);
  if (x == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_pool: %s is NULL",
                x == nullptr ? "x" : "out");
  }
  if (ld_x < d)
    return Fail(ENC_ERR_INPUT, "enc_pool: ld_x (%lld) < d (%lld)",
                (long long)ld_x, (long long)d);
  if (ld_out < d)
    return Fail(ENC_ERR_INPUT, "enc_pool: ld_out (%lld) < d (%lld)",
                (long long)ld_out, (long long)d);
  if (out == x && (mode != ENC_POOL_NONE || ld_out != ld_x)) {
    return Fail(ENC_ERR_INPUT,
                "enc_pool: out is x, which only none pooling with ld_out == "
                "ld_x unpacks in place");
  }
  if (enc_status s = enc::CheckLengths("enc_pool", batch, seq_len, lengths)) {
    return s;
  }
  if (batch == 0) return ENC_OK;
  enc::RunPool(enc::PoolArgs{mode, normalize != 0, batch, seq_len, d, lengths,
                             x, ld_x, out, ld_out});
  return ENC_OK;
}
#endif  // HWY_ONCE
