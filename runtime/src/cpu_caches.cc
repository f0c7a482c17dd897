#include "src/cpu_caches.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace enc {
namespace {

constexpr CacheSizes kFallback = {32 * 1024, 512 * 1024};

// Reads one line of a sysfs file into buf; false if it cannot.
bool ReadLine(const char* path, char* buf, int size) {
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  const bool ok = std::fgets(buf, size, f) != nullptr;
  std::fclose(f);
  return ok;
}

// Counts the CPUs of a sysfs shared_cpu_list such as "0-3,8".
int64_t CountCpus(const char* list) {
  int64_t count = 0;
  const char* p = list;
  while (*p != '\0' && *p != '\n') {
    long a = 0, b = 0;
    int used = 0;
    if (std::sscanf(p, "%ld-%ld%n", &a, &b, &used) == 2 && b >= a) {
      count += b - a + 1;
    } else if (std::sscanf(p, "%ld%n", &a, &used) == 1) {
      count += 1;
    } else {
      break;
    }
    p += used;
    if (*p == ',') ++p;
  }
  return count > 0 ? count : 1;
}

// Level 1 data and level 2 from sysfs; zero where absent.
CacheSizes FromSysfs() {
  CacheSizes sizes = {0, 0};
  for (int index = 0; index < 8; ++index) {
    char path[96], buf[128];
    auto read = [&](const char* file) {
      std::snprintf(path, sizeof(path),
                    "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index,
                    file);
      return ReadLine(path, buf, sizeof(buf));
    };
    if (!read("level")) break;
    const int level = std::atoi(buf);
    if (!read("type")) continue;
    const bool data = std::strncmp(buf, "Data", 4) == 0 ||
                      std::strncmp(buf, "Unified", 7) == 0;
    if (!data || !read("size")) continue;
    char unit = 0;
    long value = 0;
    if (std::sscanf(buf, "%ld%c", &value, &unit) < 1 || value <= 0) continue;
    int64_t bytes = value;
    if (unit == 'K') bytes <<= 10;
    if (unit == 'M') bytes <<= 20;
    if (read("shared_cpu_list")) bytes /= CountCpus(buf);
    if (level == 1) sizes.l1d = bytes;
    if (level == 2) sizes.l2 = bytes;
  }
  return sizes;
}

// Level 1 data and level 2 from CPUID's deterministic cache parameters.
CacheSizes FromCpuid() {
  CacheSizes sizes = {0, 0};
#if defined(__x86_64__) || defined(__i386__)
  unsigned max_leaf = 0, ebx = 0, ecx = 0, edx = 0;
  unsigned leaf = 4;
  if (__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx) && max_leaf < 4) leaf = 0;
  unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  if (ebx == 0x68747541u && max_ext >= 0x8000001Du) leaf = 0x8000001Du;  // AMD
  if (leaf == 0) return sizes;
  for (unsigned sub = 0; sub < 16; ++sub) {
    unsigned eax = 0;
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    const unsigned type = eax & 0x1F;  // 0: no more caches; 1 data; 3 unified
    if (type == 0) break;
    if (type != 1 && type != 3) continue;
    const unsigned level = (eax >> 5) & 0x7;
    const int64_t sharing = ((eax >> 14) & 0xFFF) + 1;  // logical CPUs
    const int64_t bytes = int64_t{((ebx >> 22) & 0x3FF) + 1} *
                          (((ebx >> 12) & 0x3FF) + 1) * ((ebx & 0xFFF) + 1) *
                          (int64_t{ecx} + 1);
    if (level == 1) sizes.l1d = bytes / sharing;
    if (level == 2) sizes.l2 = bytes / sharing;
  }
#endif
  return sizes;
}

CacheSizes Detect() {
  CacheSizes sizes = FromSysfs();
  const CacheSizes cpuid = FromCpuid();
  if (sizes.l1d <= 0) sizes.l1d = cpuid.l1d;
  if (sizes.l2 <= 0) sizes.l2 = cpuid.l2;
  if (sizes.l1d < 8 * 1024) sizes.l1d = kFallback.l1d;
  if (sizes.l2 < 64 * 1024) sizes.l2 = kFallback.l2;
  return sizes;
}

}  // namespace

const CacheSizes& GetCacheSizes() {
  static const CacheSizes sizes = Detect();
  return sizes;
}

}  // namespace enc
