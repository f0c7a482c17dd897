#include "src/cache_writer.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "src/packed_file.h"

namespace enc {
namespace {

void Write(const std::string& path, const enc_weight_desc* descs, int32_t n,
           void* const* slots, const std::vector<std::string>& sources) {
  SavePacked(path.c_str(), descs, n, slots, sources, SaveMode::kCacheEntry);
}

// Closes every descriptor the writer inherited: a pipe or socket of the
// caller's must not stay open (its reader waiting for end-of-file) while the
// entry is written.
void CloseInheritedDescriptors() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 0u, ~0u, 0u) == 0) return;
#endif
  const long max_fd = sysconf(_SC_OPEN_MAX);
  for (long fd = 0; fd < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536);
       ++fd) {
    close(static_cast<int>(fd));
  }
}

// Forks the writer: a child that forks it and exits at once, so that the
// writer, adopted by init, is nobody's to wait for. The writer works on its
// copy-on-write snapshot of the slots, in its own session (a Ctrl-C to the
// caller's terminal does not cut the entry short), below the forwards'
// priority. False when no process could be forked.
bool ForkWriter(const std::string& path, const enc_weight_desc* descs,
                int32_t n, void* const* slots,
                const std::vector<std::string>& sources) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    const pid_t writer = fork();
    if (writer == 0) {
      CloseInheritedDescriptors();
      setsid();
      setpriority(PRIO_PROCESS, 0, 10);
      Write(path, descs, n, slots, sources);
      _exit(0);
    }
    _exit(writer < 0 ? 1 : 0);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    // ECHILD: the caller reaps its children itself (SIGCHLD ignored, or a
    // handler that waits for any child); the writer was forked or not, and
    // either way this load's model is whole.
    if (errno == ECHILD) return true;
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool SyncRequested() {
  const char* v = std::getenv("ENC_CACHE_SYNC");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

void StartCacheWrite(const std::string& path, const enc_weight_desc* descs,
                     int32_t n, void* const* slots,
                     const std::vector<std::string>& sources) {
  if (SyncRequested() || !ForkWriter(path, descs, n, slots, sources)) {
    Write(path, descs, n, slots, sources);
  }
}

}  // namespace enc
