// The fp32 FMA peak of this machine: 16 independent AVX-512 FMA chains per
// thread (enough to cover latency x pipes on current x86 cores), no memory
// traffic. Built into gemm_bench (for the "fraction of peak" column) and, with
// ENC_FMA_PEAK_MAIN, as the standalone fma_peak.
#include "fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr int kChains = 16;

__attribute__((target("avx512f"), noinline)) float FmaChains(int64_t iters,
                                                             float seed) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(seed + i);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  // Summed through memory: GCC 12's _mm512_reduce_add_ps trips its own
  // -Wuninitialized.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0.0f;
  for (float v : lanes) total += v;
  return total;
}

}  // namespace

double MeasureFmaPeakGflops(int threads) {
  if (!__builtin_cpu_supports("avx512f")) return 0.0;
  const int64_t iters = 20'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { sink[t] = FmaChains(iters, 1.0f + t); });
    }
    for (auto& th : pool) th.join();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const double flops = 2.0 * 16 * kChains * double(iters) * threads;
    best = std::max(best, flops / s * 1e-9);
  }
  return best;
}

#ifdef ENC_FMA_PEAK_MAIN
int main() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 1; t <= cores; ++t) {
    std::printf("fma_peak threads=%u: %.1f GFLOP/s\n", t,
                MeasureFmaPeakGflops(static_cast<int>(t)));
  }
  return 0;
}
#endif
