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

__attribute__((target("avx512f"), noinline)) float Chains512(int64_t iters,
                                                             float seed) {
  __m512 acc[kChains512];
  for (int i = 0; i < kChains512; ++i) acc[i] = _mm512_set1_ps(seed + i);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains512; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains512; ++i) sum = _mm512_add_ps(sum, acc[i]);
  // Summed through memory: GCC 12's _mm512_reduce_add_ps trips its own
  // -Wuninitialized.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0.0f;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"), noinline)) float Chains256(int64_t iters,
                                                              float seed) {
  __m256 acc[kChains256];
  for (int i = 0; i < kChains256; ++i) acc[i] = _mm256_set1_ps(seed + i);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains256; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains256; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

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
