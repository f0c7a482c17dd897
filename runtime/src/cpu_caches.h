// The data cache sizes of this CPU's cores, read once, for the kernels' cache
// blocking (so that block sizes follow the machine, not the one they were
// tuned on).
#ifndef ENC_RUNTIME_SRC_CPU_CACHES_H_
#define ENC_RUNTIME_SRC_CPU_CACHES_H_

#include <cstdint>

namespace enc {

// Each hardware thread's share: a cache that SMT siblings (or several cores)
// share counts once per thread that shares it, as the pool may run them all.
struct CacheSizes {
  int64_t l1d;  // bytes of L1 data cache
  int64_t l2;   // bytes of L2
};

// From /sys/devices/system/cpu/cpu0/cache, else CPUID (leaf 4 on Intel,
// 0x8000001D on AMD), else 32 KiB and 512 KiB. Read on the first call.
const CacheSizes& GetCacheSizes();

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_CPU_CACHES_H_
