// The machine's measured fp32 FMA peak (see fma_peak.cc).
#ifndef ENC_BENCH_FMA_PEAK_H_
#define ENC_BENCH_FMA_PEAK_H_

// GFLOP/s of independent AVX-512 FMA chains on `threads` threads (best of a
// few runs), or 0 if the CPU lacks AVX-512F.
double MeasureFmaPeakGflops(int threads);

#endif  // ENC_BENCH_FMA_PEAK_H_
