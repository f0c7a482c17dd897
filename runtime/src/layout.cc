// The packed row layout of enc/kernels/layout.h.
#include "enc/kernels/layout.h"

extern "C" int64_t enc_valid_rows(int32_t batch, int32_t seq_len,
                                  const int32_t* lengths) {
  if (lengths == nullptr) return static_cast<int64_t>(batch) * seq_len;
  int64_t rows = 0;
  for (int32_t b = 0; b < batch; ++b) rows += lengths[b];
  return rows;
}
