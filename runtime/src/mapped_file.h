// Files mapped read-only and shared (MAP_SHARED), counted by what views
// them: a packed-weights file's slots point into its mapping, and the last
// slot freed unmaps it (docs/weights.md#packed-weights-files).
#ifndef ENC_RUNTIME_SRC_MAPPED_FILE_H_
#define ENC_RUNTIME_SRC_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>

#include "enc/runtime.h"

namespace enc {

// Maps the whole of `path` read-only; the caller holds one reference.
// ENC_ERR_IO naming the file if it cannot be opened, is empty or not mapped.
enc_status MapFile(const char* path, const uint8_t** base, size_t* size);

// One more reference to the mapping that holds p (p must be in one).
void RetainMapped(const void* p);

// If p lies in a mapping, drops one reference (unmapping at none) and
// returns true; else false (p is the caller's to free).
bool ReleaseIfMapped(const void* p);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_MAPPED_FILE_H_
