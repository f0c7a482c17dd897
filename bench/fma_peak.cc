// The fp32 FMA peak of this machine, per vector instruction set: independent
// FMA chains on every thread (enough to cover latency x pipes on current x86
// cores), no memory traffic. Built into gemm_bench (for the "fraction of
// peak" columns) and, with ENC_FMA_PEAK_MAIN, as the standalone fma_peak,
// which prints one line per instruction set the CPU has and thread count:
//   fma_peak isa=avx2 threads=1: 88.1 GFLOP/s
#include "fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// AVX-512: 16 chains (of 32 zmm). AVX2: 12 chains, so that the chains and the
// two operands fit the 16 ymm registers without spilling; 12 still covers an
// FMA latency of 5 cycles on 2 pipes.
constexpr int kChains512 = 16;
constexpr int kChains256 = 12;

// Name(iters, seed): kChains independent FMA chains of Vec (kLanes floats)
// for `iters` steps under the target attribute Target; returns their sum
// (summed through memory: GCC 12's _mm512_reduce_add_ps trips its own
// -Wuninitialized). One body for both widths, instantiated below.
#define ENC_FMA_CHAINS(Name, Target, Vec, kChains, kLanes, Set1, Fmadd, Add, \
                       Storeu)                                               \
  __attribute__((target(Target), noinline)) float Name(int64_t iters,        \
                                                       float seed) {         \
    Vec acc[kChains];                                                        \
    for (int i = 0; i < kChains; ++i) acc[i] = Set1(seed + i);               \
    const Vec a = Set1(0.999999f), b = Set1(1e-7f);                          \
    for (int64_t it = 0; it < iters; ++it) {                                 \
      _Pragma("GCC unroll 16") for (int i = 0; i < kChains; ++i) acc[i] =    \
          Fmadd(acc[i], a, b);                                               \
    }                                                                        \
    Vec sum = acc[0];                                                        \
    for (int i = 1; i < kChains; ++i) sum = Add(sum, acc[i]);                \
    float lanes[kLanes];                                                     \
    Storeu(lanes, sum);                                                      \
    float total = 0.0f;                                                      \
    for (float v : lanes) total += v;                                        \
    return total;                                                            \
  }
ENC_FMA_CHAINS(Chains512, "avx512f", __m512, kChains512, 16, _mm512_set1_ps,
               _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps)
ENC_FMA_CHAINS(Chains256, "avx2,fma", __m256, kChains256, 8, _mm256_set1_ps,
               _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps)
#undef ENC_FMA_CHAINS

}  // namespace

const char* FmaIsaName(FmaIsa isa) {
  switch (isa) {
    case FmaIsa::kAvx2:
      return "avx2";
    case FmaIsa::kAvx512:
      return "avx512";
  }
  return "?";
}

bool FmaIsaSupported(FmaIsa isa) {
  switch (isa) {
    case FmaIsa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case FmaIsa::kAvx512:
      return __builtin_cpu_supports("avx512f");
  }
  return false;
}

bool FmaIsaForTarget(const char* target, FmaIsa* isa) {
  if (std::strcmp(target, "AVX3") == 0 || std::strcmp(target, "AVX3_DL") == 0 ||
      std::strcmp(target, "AVX3_ZEN4") == 0) {
    *isa = FmaIsa::kAvx512;
    return true;
  }
  if (std::strcmp(target, "AVX2") == 0) {
    *isa = FmaIsa::kAvx2;
    return true;
  }
  return false;
}

double MeasureFmaPeakGflops(FmaIsa isa, int threads) {
  if (!FmaIsaSupported(isa)) return 0.0;
  const bool wide = isa == FmaIsa::kAvx512;
  // Short runs, many of them, keeping the best: on a shared VM a core is
  // sometimes taken away for a while, and a long run would average that in.
  const int64_t iters = wide ? 4'000'000 : 5'000'000;
  const double flops_per_iter =
      wide ? 2.0 * 16 * kChains512 : 2.0 * 8 * kChains256;
  double best = 0;
  // Rep 0 is a warm-up (the core's clock settles for the instruction set).
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        sink[t] =
            wide ? Chains512(iters, 1.0f + t) : Chains256(iters, 1.0f + t);
      });
    }
    for (auto& th : pool) th.join();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (rep > 0) {
      best =
          std::max(best, flops_per_iter * double(iters) * threads / s * 1e-9);
    }
  }
  return best;
}

#ifdef ENC_FMA_PEAK_MAIN
int main() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (FmaIsa isa : kFmaIsas) {
    if (!FmaIsaSupported(isa)) continue;
    for (unsigned t = 1; t <= cores; ++t) {
      std::printf("fma_peak isa=%s threads=%u: %.1f GFLOP/s\n", FmaIsaName(isa),
                  t, MeasureFmaPeakGflops(isa, static_cast<int>(t)));
    }
  }
  return 0;
}
#endif
