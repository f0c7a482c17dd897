// The packed row layout of enc/kernels/layout.h.
#include "enc/kernels/layout.h"

#include "src/layout.h"
#include "src/status.h"

namespace enc {
enc_status CheckLengths(const char* what, int32_t batch, int32_t seq_len,
                        const int32_t* lengths) {
  for (int32_t b = 0; lengths != nullptr && b < batch; ++b) {
    if (lengths[b] < 0 || lengths[b] > seq_len) {
      return Fail(ENC_ERR_INPUT,
                  "%s: lengths[%d] is %d, outside 0..%d (seq_len)", what, b,
                  lengths[b], seq_len);
    }
  }
  return ENC_OK;
}
}  // namespace enc

extern "C" int64_t enc_valid_rows(int32_t batch, int32_t seq_len,
                                  const int32_t* lengths) {
  if (lengths == nullptr) return static_cast<int64_t>(batch) * seq_len;
  int64_t rows = 0;
  for (int32_t b = 0; b < batch; ++b) rows += lengths[b];
  return rows;
}
