// One persistent thread pool for every kernel.
//
// A parallel loop is published as a 64-bit ticket: generation (32 bits) |
// chunk count (16 bits) | next chunk (16 bits). Threads claim chunks by CAS on
// the ticket, so a worker that wakes late (after its loop finished and a new
// one began) fails the CAS on the stale generation and claims nothing: the
// caller never waits for workers that took no chunk, only for claimed chunks
// to finish. Workers spin briefly on the ticket after a loop (back-to-back
// kernels do not pay a wake-up), then sleep on a condition variable.
//
// One caller at a time owns the pool (try-lock); a concurrent caller, or a
// call from inside a chunk, runs its loop inline. Resizing happens under the
// same lock, so it takes effect between loops.
#include "src/threads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENC_CPU_RELAX() _mm_pause()
#else
#define ENC_CPU_RELAX() std::this_thread::yield()
#endif

#include "src/status.h"

namespace enc {
namespace {

constexpr int kMaxThreads = 1024;
// Chunks per thread: more than one, so that threads that finish early (or a
// thread the OS preempts) balance out; claimed dynamically. kMaxThreads *
// kChunksPerThread fits the ticket's 16 bits.
constexpr int kChunksPerThread = 4;
// How long an idle worker spins on the ticket before it sleeps: long enough
// for the gaps between the kernels of a forward (microseconds) and between
// forwards run back to back; a caller in a longer pause finds its workers
// asleep, and then does not wait for them (ParallelForGuided: the caller
// claims what a late worker has not). Measured on tiny b1s128 at 2 threads
// (bench/README.md): spins of 0, 50 us, 300 us, 3 ms and 30 ms gave the same
// time within noise, with the benchmark's 20 ms pause between forwards and
// without; longer spins only burn a core.
constexpr auto kSpinTime = std::chrono::microseconds(300);

thread_local bool tls_in_parallel = false;

int HardwareThreads() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(std::min<unsigned>(hc, kMaxThreads));
}

inline uint64_t Generation(uint64_t ticket) { return ticket >> 32; }
inline uint64_t NextGeneration(uint64_t ticket) {
  return (Generation(ticket) + 1) & 0xFFFFFFFFu;  // wraps within 32 bits
}
inline int64_t ChunkCount(uint64_t ticket) { return (ticket >> 16) & 0xFFFF; }
inline int64_t NextChunk(uint64_t ticket) { return ticket & 0xFFFF; }

class Pool {
 public:
  Pool() : desired_(DefaultNumThreads()) {}

  int desired() const { return desired_.load(std::memory_order_relaxed); }

  // Requests `threads` (>= 1) and applies it now unless a loop runs.
  void Resize(int threads) {
    desired_.store(threads, std::memory_order_relaxed);
    if (tls_in_parallel) return;  // applied by the next loop, when idle
    std::lock_guard<std::mutex> lock(run_mutex_);
    ApplySizeLocked();
  }

  void Run(int64_t n, int64_t grain, enc_task_fn fn, void* ctx) {
    grain = std::max<int64_t>(grain, 1);
    const int64_t max_chunks = (n + grain - 1) / grain;  // n > 0, no overflow
    if (tls_in_parallel || desired() <= 1 || max_chunks <= 1) {
      fn(ctx, 0, n);
      return;
    }
    std::unique_lock<std::mutex> lock(run_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {  // another caller's loop owns the pool
      fn(ctx, 0, n);
      return;
    }
    ApplySizeLocked();
    const int threads = static_cast<int>(workers_.size()) + 1;
    const int64_t chunks =
        std::min<int64_t>(max_chunks, int64_t{threads} * kChunksPerThread);
    if (chunks <= 1) {
      fn(ctx, 0, n);
      return;
    }
    fn_ = fn;
    ctx_ = ctx;
    n_ = n;
    done_chunks_.store(0, std::memory_order_relaxed);
    const uint64_t gen =
        NextGeneration(ticket_.load(std::memory_order_relaxed));
    {
      std::lock_guard<std::mutex> sleep_lock(sleep_mutex_);
      ticket_.store((gen << 32) | (static_cast<uint64_t>(chunks) << 16),
                    std::memory_order_release);
    }
    wake_.notify_all();

    tls_in_parallel = true;
    RunChunks(gen);
    tls_in_parallel = false;
    // Wait for the chunks that workers claimed.
    for (int spins = 0; done_chunks_.load(std::memory_order_acquire) != chunks;
         ++spins) {
      if (spins < 4096) {
        ENC_CPU_RELAX();
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  // Claims and runs chunks of loop `gen` until none is left.
  void RunChunks(uint64_t gen) {
    uint64_t ticket = ticket_.load(std::memory_order_acquire);
    for (;;) {
      if (Generation(ticket) != gen) return;
      const int64_t chunks = ChunkCount(ticket);
      const int64_t chunk = NextChunk(ticket);
      if (chunk >= chunks) return;
      if (!ticket_.compare_exchange_weak(ticket, ticket + 1,
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        continue;  // `ticket` was reloaded
      }
      // The claim succeeded, so the loop cannot end (nor the job fields
      // change) before this chunk is counted done.
      const int64_t q = n_ / chunks, r = n_ % chunks;
      const int64_t begin = chunk * q + std::min(chunk, r);
      const int64_t end = begin + q + (chunk < r ? 1 : 0);
      fn_(ctx_, begin, end);
      done_chunks_.fetch_add(1, std::memory_order_release);
      ticket = ticket_.load(std::memory_order_acquire);
    }
  }

  // `seen`: the generation when the worker was created (so that a stop
  // published before the thread first runs still wakes it).
  void WorkerLoop(uint64_t seen) {
    tls_in_parallel = true;
    for (;;) {
      uint64_t gen = Generation(ticket_.load(std::memory_order_acquire));
      if (gen == seen) {
        const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
        int spins = 0;
        while (gen == seen) {
          ENC_CPU_RELAX();
          gen = Generation(ticket_.load(std::memory_order_acquire));
          if (gen != seen) break;
          if ((++spins & 63) == 0 &&
              std::chrono::steady_clock::now() > spin_until) {
            std::unique_lock<std::mutex> lock(sleep_mutex_);
            wake_.wait(lock, [&] {
              return Generation(ticket_.load(std::memory_order_acquire)) !=
                     seen;
            });
            gen = Generation(ticket_.load(std::memory_order_acquire));
          }
        }
      }
      seen = gen;
      if (stop_.load(std::memory_order_acquire)) return;
      RunChunks(gen);
    }
  }

  // Starts or stops workers to match desired(); run_mutex_ must be held.
  void ApplySizeLocked() {
    const int want = desired();
    if (want == static_cast<int>(workers_.size()) + 1) return;
    if (!workers_.empty()) {
      stop_.store(true, std::memory_order_release);
      {
        std::lock_guard<std::mutex> sleep_lock(sleep_mutex_);
        // A new generation with no chunks wakes every worker.
        const uint64_t gen =
            NextGeneration(ticket_.load(std::memory_order_relaxed));
        ticket_.store(gen << 32, std::memory_order_release);
      }
      wake_.notify_all();
      for (std::thread& t : workers_) t.join();
      workers_.clear();
      stop_.store(false, std::memory_order_release);
    }
    workers_.reserve(want - 1);
    const uint64_t gen = Generation(ticket_.load(std::memory_order_relaxed));
    for (int i = 1; i < want; ++i) {
      workers_.emplace_back([this, gen] { WorkerLoop(gen); });
    }
  }

  std::atomic<int> desired_;
  std::mutex run_mutex_;  // owned by the caller of the running loop
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_{false};

  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int64_t> done_chunks_{0};
  // The running loop; written before its ticket is published.
  enc_task_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
};

// Never destroyed: workers may outlive static destructors at exit.
Pool& GetPool() {
  static Pool* pool = new Pool();
  return *pool;
}

}  // namespace

int DefaultNumThreads() {
  if (const char* env = std::getenv("ENC_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) {
      return static_cast<int>(std::min<long>(v, kMaxThreads));
    }
  }
  return HardwareThreads();
}

bool InParallelRegion() { return tls_in_parallel; }

namespace {

struct GuidedLoop {
  int64_t n, grain, divisor;
  enc_task_fn fn;
  void* ctx;
  std::atomic<int64_t> next{0};
};

// One participating thread: claims ranges until none is left.
void RunGuided(void* p, int64_t, int64_t) {
  GuidedLoop& loop = *static_cast<GuidedLoop*>(p);
  int64_t begin = loop.next.load(std::memory_order_relaxed);
  while (begin < loop.n) {
    const int64_t size = std::max(loop.grain, (loop.n - begin) / loop.divisor);
    const int64_t end = std::min(loop.n, begin + size);
    if (loop.next.compare_exchange_weak(begin, end,
                                        std::memory_order_relaxed)) {
      loop.fn(loop.ctx, begin, end);
      begin = loop.next.load(std::memory_order_relaxed);
    }  // else `begin` was reloaded
  }
}

}  // namespace

void ParallelForGuided(int64_t n, int64_t grain, int threads, enc_task_fn fn,
                       void* ctx) {
  if (n <= 0 || fn == nullptr) return;
  grain = std::max<int64_t>(grain, 1);
  if (threads <= 1 || n <= grain) {
    fn(ctx, 0, n);
    return;
  }
  GuidedLoop loop;
  loop.n = n;
  loop.grain = grain;
  loop.divisor = 2 * int64_t{threads};
  loop.fn = fn;
  loop.ctx = ctx;
  // One pool chunk per participating thread; each claims its own ranges.
  enc_parallel_for(threads, 1, &RunGuided, &loop);
}

}  // namespace enc

extern "C" int enc_threads_count(void) { return enc::GetPool().desired(); }

extern "C" void enc_parallel_for(int64_t n, int64_t grain, enc_task_fn fn,
                                 void* ctx) {
  if (n <= 0 || fn == nullptr) return;
  enc::GetPool().Run(n, grain, fn, ctx);
}

extern "C" int enc_set_num_threads(int n) {
  if (n < 0) {
    enc::Fail(ENC_ERR_INPUT, "enc_set_num_threads: thread count %d is negative",
              n);
    return -1;
  }
  const int threads =
      n == 0 ? enc::HardwareThreads() : std::min(n, enc::kMaxThreads);
  enc::GetPool().Resize(threads);
  return threads;
}
