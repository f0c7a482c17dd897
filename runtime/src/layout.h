// The runtime's side of enc/kernels/layout.h: the one check of a batch's
// lengths, shared by enc_check_input and every kernel that takes lengths.
#ifndef ENC_RUNTIME_SRC_LAYOUT_H_
#define ENC_RUNTIME_SRC_LAYOUT_H_

#include <stdint.h>

#include "enc/runtime.h"

namespace enc {

// ENC_ERR_INPUT, with "<what>: lengths[b] is v, outside 0..seq_len
// (seq_len)" as the message, unless every lengths[b] (b < batch) is in
// 0..seq_len. NULL lengths (every sequence full) are valid.
enc_status CheckLengths(const char* what, int32_t batch, int32_t seq_len,
                        const int32_t* lengths);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_LAYOUT_H_
