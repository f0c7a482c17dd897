// Fallback fp32 FMA peak for bench/e2e.py when build/bin/fma_peak (built from
// bench/fma_peak.cc with ENC_BUILD_BENCH=ON) is absent: 16 independent
// AVX-512 FMA chains per thread, no memory traffic, best of 3.
// Prints "fma_peak threads=T: X GFLOP/s" for each T given on the command line,
// the format fma_peak uses.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
constexpr int kChains = 16;

__attribute__((target("avx512f"), noinline)) float Chains(int64_t iters, float seed) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(seed + i);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

double Peak(int threads) {
  const int64_t iters = 20'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sink[t] = Chains(iters, 1.0f + t); });
    for (auto& th : pool) th.join();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * 16 * kChains * double(iters) * threads / s * 1e-9);
  }
  return best;
}
}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "fma_runner: no AVX-512F\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    const int t = std::atoi(argv[i]);
    std::printf("fma_peak threads=%d: %.1f GFLOP/s\n", t, Peak(t));
  }
  return 0;
}
