// Read-only shared mappings, reference-counted (src/mapped_file.h).
#include "src/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "src/status.h"

namespace enc {
namespace {

struct Mapping {
  const uint8_t* base;
  size_t size;
  int64_t refs;
};

std::mutex& Lock() {
  static std::mutex mu;
  return mu;
}

// Few mappings live at once (one per loaded packed model): a list will do.
std::vector<Mapping>& Mappings() {
  static auto* list = new std::vector<Mapping>();  // never destroyed
  return *list;
}

Mapping* Find(const void* p) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (Mapping& m : Mappings()) {
    if (b >= m.base && b < m.base + m.size) return &m;
  }
  return nullptr;
}

}  // namespace

enc_status MapFile(const char* path, const uint8_t** base, size_t* size) {
  *base = nullptr;
  *size = 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Fail(ENC_ERR_IO, "%s: cannot open: %s", path, std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Fail(ENC_ERR_IO, "%s: not a regular file", path);
  }
  if (st.st_size == 0) {
    close(fd);
    return Fail(ENC_ERR_FORMAT, "%s: the file is empty", path);
  }
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                 MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    return Fail(ENC_ERR_IO, "%s: cannot map %lld bytes: %s", path,
                static_cast<long long>(st.st_size), std::strerror(err));
  }
  std::lock_guard<std::mutex> hold(Lock());
  Mappings().push_back(
      {static_cast<const uint8_t*>(p), static_cast<size_t>(st.st_size), 1});
  *base = static_cast<const uint8_t*>(p);
  *size = static_cast<size_t>(st.st_size);
  return ENC_OK;
}

void RetainMapped(const void* p) {
  std::lock_guard<std::mutex> hold(Lock());
  if (Mapping* m = Find(p)) ++m->refs;
}

bool ReleaseIfMapped(const void* p) {
  if (p == nullptr) return false;
  std::lock_guard<std::mutex> hold(Lock());
  Mapping* m = Find(p);
  if (m == nullptr) return false;
  if (--m->refs == 0) {
    munmap(const_cast<uint8_t*>(m->base), m->size);
    std::vector<Mapping>& list = Mappings();
    list.erase(list.begin() + (m - list.data()));
  }
  return true;
}

}  // namespace enc
