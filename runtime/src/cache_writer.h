// Writing ENC_CACHE_DIR entries behind the load that made them
// (docs/weights.md#the-cache-directory): the load returns as soon as the
// model is packed, and a background thread writes its packed copy while the
// caller already runs forwards. Freeing the model, unloading the library or
// exiting the process waits for the write, since it reads the model's slots.
#ifndef ENC_RUNTIME_SRC_CACHE_WRITER_H_
#define ENC_RUNTIME_SRC_CACHE_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "enc/kernels/model.h"

namespace enc {

// Starts writing the packed copy of `slots` (loaded for `descs` from
// `sources`) to `path` on a background thread. When no thread can be
// started, or ENC_CACHE_SYNC=1, it is written before this returns. Failures
// are not reported: the cache is an optimisation (the next load packs again).
void StartCacheWrite(const std::string& path, const enc_weight_desc* descs,
                     int32_t n, void* const* slots,
                     std::vector<std::string> sources);

// Waits for the write that reads `slots`, if one runs; before they are freed.
void FinishCacheWrite(void* const* slots);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_CACHE_WRITER_H_
