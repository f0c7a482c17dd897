// The per-thread scratch buffer of forward calls (enc/kernels/model.h): one
// per thread, grown on demand and never shrunk, so a steady stream of calls
// allocates nothing; freed by the thread_local destructor at thread exit.
#include <cstdint>
#include <cstdlib>

#include "enc/kernels/model.h"
#include "src/status.h"

namespace {

constexpr int64_t kAlign = 64;

struct Workspace {
  void* data = nullptr;
  int64_t capacity = 0;  // bytes, a multiple of kAlign
  ~Workspace() { std::free(data); }
};

thread_local Workspace workspace;

}  // namespace

extern "C" void* enc_workspace(int64_t bytes) {
  if (bytes < 0) {
    enc::Fail(ENC_ERR_NOMEM, "enc_workspace: bytes (%lld) is negative",
              (long long)bytes);
    return nullptr;
  }
  Workspace& ws = workspace;
  if (bytes <= ws.capacity && ws.data != nullptr) return ws.data;
  if (bytes > INT64_MAX - kAlign ||
      static_cast<uint64_t>(bytes) > SIZE_MAX - kAlign) {
    enc::Fail(ENC_ERR_NOMEM, "enc_workspace: cannot allocate %lld bytes",
              (long long)bytes);
    return nullptr;
  }
  const int64_t want =
      bytes == 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
  // The contents need not survive growth: free first, so the peak is one
  // buffer.
  std::free(ws.data);
  ws.data = nullptr;
  ws.capacity = 0;
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, static_cast<size_t>(want)) != 0) {
    enc::Fail(ENC_ERR_NOMEM, "enc_workspace: cannot allocate %lld bytes",
              (long long)want);
    return nullptr;
  }
  ws.data = p;
  ws.capacity = want;
  return p;
}

extern "C" int64_t enc_workspace_capacity(void) { return workspace.capacity; }
