// Allocation of the model's large, long-lived buffers (converted tables,
// packed weights).
#ifndef ENC_RUNTIME_SRC_LARGE_ALLOC_H_
#define ENC_RUNTIME_SRC_LARGE_ALLOC_H_

#include <cstddef>

namespace enc {

// At least `bytes` bytes, 64-byte aligned, freed with std::free; nullptr on
// failure. Buffers of 2 MiB or more start on a 2 MiB boundary and are
// advised for transparent huge pages: loading writes each of them once, and
// one fault per 2 MiB instead of per 4 KiB is most of what makes loading
// fast. Pages are only committed as they are written.
void* AllocLarge(size_t bytes);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_LARGE_ALLOC_H_
