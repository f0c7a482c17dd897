#include "src/large_alloc.h"

#include <sys/mman.h>

#include <cstdlib>

namespace enc {

void* AllocLarge(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= kHuge ? kHuge : 64;
  const size_t rounded = (bytes == 0 ? 64 : bytes + 63) / 64 * 64;
  void* p = nullptr;
  if (posix_memalign(&p, align, rounded) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: without THP (or with it disabled) the buffer still works.
  if (align == kHuge) madvise(p, rounded / kHuge * kHuge, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace enc
