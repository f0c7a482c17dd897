// The machine's measured fp32 FMA peak per instruction set (see fma_peak.cc).
#ifndef ENC_BENCH_FMA_PEAK_H_
#define ENC_BENCH_FMA_PEAK_H_

// The vector FMA instruction sets whose peak is measured.
enum class FmaIsa {
  kAvx2,    // AVX2 + FMA3, 256-bit (what Highway's AVX2 target runs)
  kAvx512,  // AVX-512F, 512-bit (Highway's AVX3 and AVX3_DL targets)
};

inline constexpr FmaIsa kFmaIsas[] = {FmaIsa::kAvx2, FmaIsa::kAvx512};

// "avx2", "avx512".
const char* FmaIsaName(FmaIsa isa);

// Whether this CPU runs the instruction set.
bool FmaIsaSupported(FmaIsa isa);

// The instruction set whose peak bounds code of the Highway target named
// `target` ("AVX3", "AVX2", ... as hwy::TargetName prints it); false for a
// target without FMA (SSE4, SSSE3, scalar).
bool FmaIsaForTarget(const char* target, FmaIsa* isa);

// GFLOP/s of independent FMA chains of `isa` on `threads` threads (best of a
// few runs), or 0 if the CPU lacks the instruction set.
double MeasureFmaPeakGflops(FmaIsa isa, int threads);

#endif  // ENC_BENCH_FMA_PEAK_H_
