// The runtime's persistent thread pool behind enc/kernels/threads.h and
// enc_set_num_threads.
#ifndef ENC_RUNTIME_SRC_THREADS_H_
#define ENC_RUNTIME_SRC_THREADS_H_

#include <cstdint>

#include "enc/kernels/threads.h"

namespace enc {

// The pool size a fresh process starts with: ENC_NUM_THREADS when it is a
// positive integer, else one thread per core.
int DefaultNumThreads();

// True on a pool worker and on a caller thread while it runs a parallel loop:
// a parallel_for from there runs inline.
bool InParallelRegion();

// Runs fn over [0, n) on up to `threads` threads of the pool, the caller
// included, in contiguous ranges that each thread claims as it arrives:
// max(grain, remaining / (2 * threads)) indices at a time. Early ranges are
// long (few claims, long contiguous runs for the caches), the last ones short,
// so no thread waits long at the join, and a thread that arrives late (a
// sleeping worker) or is preempted simply takes less. threads <= 1, or
// n <= grain, runs fn(ctx, 0, n) inline. The ranges run in increasing order
// of begin on each thread.
void ParallelForGuided(int64_t n, int64_t grain, int threads, enc_task_fn fn,
                       void* ctx);

// Runs fn over [0, n) as enc_parallel_for does (C++ convenience wrapper).
template <class Fn>
void ParallelFor(int64_t n, int64_t grain, const Fn& fn) {
  enc_parallel_for(
      n, grain,
      [](void* ctx, int64_t begin, int64_t end) {
        (*static_cast<const Fn*>(ctx))(begin, end);
      },
      const_cast<Fn*>(&fn));
}

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_THREADS_H_
