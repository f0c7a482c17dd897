// Writing ENC_CACHE_DIR entries behind the load that made them
// (docs/weights.md#the-cache-directory): the load returns as soon as the
// model is packed, and a process forked from it writes its packed copy from
// a copy-on-write snapshot while the caller already runs forwards. Nothing
// waits for that process: freeing the model, unloading the library and
// exiting do not.
#ifndef ENC_RUNTIME_SRC_CACHE_WRITER_H_
#define ENC_RUNTIME_SRC_CACHE_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "enc/kernels/model.h"

namespace enc {

// Starts writing the packed copy of `slots` (loaded for `descs` from
// `sources`) to `path` in a forked process. When no process can be forked,
// or ENC_CACHE_SYNC=1, it is written before this returns. Failures are not
// reported: the cache is an optimisation (the next load packs again).
void StartCacheWrite(const std::string& path, const enc_weight_desc* descs,
                     int32_t n, void* const* slots,
                     const std::vector<std::string>& sources);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_CACHE_WRITER_H_
