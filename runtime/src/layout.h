// The runtime's side of enc/kernels/layout.h: the one check of a batch's
// lengths, shared by enc_check_input and every kernel that takes lengths.
#ifndef ENC_RUNTIME_SRC_LAYOUT_H_
#define ENC_RUNTIME_SRC_LAYOUT_H_

#include <stdint.h>

#include <algorithm>
#include <cstring>

#include "enc/runtime.h"

namespace enc {

// ENC_ERR_INPUT, with "<what>: lengths[b] is v, outside 0..seq_len
// (seq_len)" as the message, unless every lengths[b] (b < batch) is in
// 0..seq_len. NULL lengths (every sequence full) are valid.
enc_status CheckLengths(const char* what, int32_t batch, int32_t seq_len,
                        const int32_t* lengths);

// The rows of `out` [batch * seq_len, width] hold the packed layout (sequence
// b at rows first(b) + i, i < len[b]; sum(len) rows): moves each to its
// padded place b * seq_len + i, in place, runs each(row) on it, and zeroes
// the padding rows. Row first(b) + i goes to b * seq_len + i >= it, so moving
// the last sequence's last row first never overwrites a row not yet moved.
template <class Each>
void UnpackRowsInPlace(int32_t batch, int32_t seq_len, const int32_t* lengths,
                       int64_t width, float* out, const Each& each) {
  int64_t first = 0;
  for (int32_t b = 0; b < batch; ++b) first += lengths ? lengths[b] : seq_len;
  for (int32_t b = batch - 1; b >= 0; --b) {
    const int64_t len = lengths ? lengths[b] : seq_len;
    first -= len;
    float* seq = out + static_cast<int64_t>(b) * seq_len * width;
    for (int64_t i = len - 1; i >= 0; --i) {
      float* dst = seq + i * width;
      const float* src = out + (first + i) * width;
      if (dst != src) std::memmove(dst, src, sizeof(float) * width);
      each(dst);
    }
    std::fill(seq + len * width, seq + static_cast<int64_t>(seq_len) * width,
              0.0f);
  }
}

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_LAYOUT_H_
