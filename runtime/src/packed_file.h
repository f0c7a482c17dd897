// Packed-weights files (docs/weights.md#packed-weights-files): every slot of
// a loaded model, in the layout, precision and alignment the kernels read,
// behind a header that says which model, target and source they were packed
// for. Loading maps the file (MAP_SHARED) and views the slots in place, so
// processes on one host share one copy in the page cache.
#ifndef ENC_RUNTIME_SRC_PACKED_FILE_H_
#define ENC_RUNTIME_SRC_PACKED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "enc/kernels/model.h"

namespace enc {

// True if the file at `path` starts with a packed-weights file's magic.
bool IsPackedFile(const char* path);

// Fills slots[i] for descs[i] from the packed file `path`, viewing its
// mapping. The descriptors were checked. Errors name the file and what
// differs (model, target, kernel, version) or is broken (the header, the
// section table, a section's range or, with ENC_VERIFY_PACKED=1, its
// checksum). On failure nothing is held.
enc_status LoadPacked(const char* path, const enc_weight_desc* descs, int32_t n,
                      void** slots);

// How SavePacked writes: a packed file (`encc pack`, NAME_pack) records the
// hash of its sources' bytes and is fsynced before the rename; a cache entry
// (ENC_CACHE_DIR) records their sizes alone and is not fsynced, since a torn
// entry after a crash fails the loader's checks and is written again.
enum class SaveMode { kPackFile, kCacheEntry };

// Writes the loaded slots to `path` atomically (a temporary name in the same
// directory, then a rename): `sources` are the weights files they came from.
enc_status SavePacked(const char* path, const enc_weight_desc* descs, int32_t n,
                      void* const* slots,
                      const std::vector<std::string>& sources, SaveMode mode);

// Where ENC_CACHE_DIR keeps the packed copy of these sources for this model
// and target: DIR/<key>.encw, the key hashing the descriptors, the dispatch
// target and each source's path, device, inode, size and modification time
// (so an edited weights file gets a new entry). "" when ENC_CACHE_DIR is
// unset or empty, or a source cannot be stat'ed.
std::string CachePath(const enc_weight_desc* descs, int32_t n,
                      const std::vector<std::string>& sources);

// For the fuzzer: recomputes a file's section-table and header checksums in
// place (where the header says the table is, if that is inside the file), so
// that mutated files reach the checks behind them.
void RestampPackedChecksums(uint8_t* file, size_t size);

// The hash of a descriptor table: what a packed file was packed for.
uint64_t DescriptorHash(const enc_weight_desc* descs, int32_t n);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_PACKED_FILE_H_
