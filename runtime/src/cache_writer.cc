#include "src/cache_writer.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "src/packed_file.h"

namespace enc {
namespace {

struct Job {
  std::string path;
  std::vector<enc_weight_desc> descs;
  std::vector<void*> slots;
  std::vector<std::string> sources;
  void* const* key = nullptr;  // the caller's slot array
  pid_t pid = 0;               // a forked child does not wait for its parent's
  pthread_t thread{};
};

// Never destroyed: the exit handler that drains it may run after static
// destructors.
struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Job>> jobs;
};

Registry& Jobs() {
  static Registry* registry = new Registry;
  return *registry;
}

void Write(const Job& job) {
  SavePacked(job.path.c_str(), job.descs.data(),
             static_cast<int32_t>(job.descs.size()), job.slots.data(),
             job.sources, SaveMode::kCacheEntry);
}

void* Run(void* arg) {
  // Below the forwards' priority: the copy is for later processes.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  Write(*static_cast<Job*>(arg));
  return nullptr;
}

// Takes the jobs matching `pred` out of the registry and joins them (a job
// of another process, inherited through fork, has no thread here: dropped).
template <class Pred>
void Drain(Pred pred) {
  std::vector<std::unique_ptr<Job>> done;
  {
    Registry& r = Jobs();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto it = r.jobs.begin(); it != r.jobs.end();) {
      if (pred(**it)) {
        done.push_back(std::move(*it));
        it = r.jobs.erase(it);
      } else {
        ++it;
      }
    }
  }
  const pid_t self = getpid();
  for (const auto& job : done) {
    if (job->pid == self) pthread_join(job->thread, nullptr);
  }
}

// Runs at exit, or when the library holding this runtime is unloaded: a
// write still reading the slots must end before their code and memory go.
void DrainAll() {
  Drain([](const Job&) { return true; });
}

bool SyncRequested() {
  const char* v = std::getenv("ENC_CACHE_SYNC");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

void StartCacheWrite(const std::string& path, const enc_weight_desc* descs,
                     int32_t n, void* const* slots,
                     std::vector<std::string> sources) {
  auto job = std::make_unique<Job>();
  job->path = path;
  job->descs.assign(descs, descs + n);
  job->slots.assign(slots, slots + n);
  job->sources = std::move(sources);
  job->key = slots;
  job->pid = getpid();
  if (SyncRequested()) {
    Write(*job);
    return;
  }
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(DrainAll); });
  {
    Registry& r = Jobs();
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& pending : r.jobs) {
      // The same entry is already being written by this process.
      if (pending->path == path && pending->pid == job->pid) return;
    }
    if (pthread_create(&job->thread, nullptr, Run, job.get()) == 0) {
      r.jobs.push_back(std::move(job));
      return;
    }
  }
  Write(*job);
}

void FinishCacheWrite(void* const* slots) {
  Drain([slots](const Job& job) { return job.key == slots; });
}

}  // namespace enc
