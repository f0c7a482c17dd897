/* The runtime's thread pool, as the kernels use it (plain C).
 *
 * One persistent pool serves every kernel. enc_parallel_for splits [0, n) into
 * contiguous chunks and runs them on the pool's threads and on the calling
 * thread; it returns when every chunk is done. It never deadlocks: a call made
 * while the pool is busy with another caller's loop, or from inside a chunk
 * (nested), runs the whole range inline on the calling thread. */
#ifndef ENC_KERNELS_THREADS_H_
#define ENC_KERNELS_THREADS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs fn(ctx, begin, end) on disjoint chunks covering [0, n) exactly once. */
typedef void (*enc_task_fn)(void *ctx, int64_t begin, int64_t end);

/* The number of threads a parallel loop may use, the caller included (>= 1).
 * Kernels size their partition of the work with it. */
int enc_threads_count(void);

/* Splits [0, n) into contiguous chunks of at least `grain` indices (grain < 1
 * counts as 1), at most 4 per thread of enc_threads_count(), of near-equal
 * size, and runs them in parallel; threads claim chunks dynamically, so a
 * thread that is late or preempted takes fewer. At most enc_threads_count()
 * calls of fn run at once, but a chunk is not tied to a thread: size scratch
 * per chunk (or per call of fn), not per thread. n <= 0 does nothing. */
void enc_parallel_for(int64_t n, int64_t grain, enc_task_fn fn, void *ctx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_THREADS_H_ */
