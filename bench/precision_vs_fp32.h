// One low-precision GEMM against fp32 (gemm_int8_bench, gemm_bf16_bench):
// enc_gemm on the same X and W packed both ways, at 1 and 2 threads. The two
// run interleaved, call by call, and each reports the median of its calls in
// GOP/s (2 M N K operations) with the ratio.
#ifndef ENC_BENCH_PRECISION_VS_FP32_H_
#define ENC_BENCH_PRECISION_VS_FP32_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "enc/kernels/gemm.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"

namespace enc_bench {

inline enc_packed_b* Pack(enc_precision precision, const std::vector<float>& w,
                          int64_t n, int64_t k) {
  enc_packed_b* p = nullptr;
  const float* part = w.data();
  if (enc_gemm_pack_parts_as(precision, 1, &part, &n, k, &p) != ENC_OK) {
    std::fprintf(stderr, "pack failed: %s\n", enc_last_error());
    std::exit(1);
  }
  return p;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One way of packing W to run against fp32: a precision, and what to do
// before packing it (which kernel packs: AMX or not).
struct Variant {
  const char* name;
  enc_precision precision;
  std::function<void()> before_pack;
};

// Prints the table for `shapes` ({M, N, K} each): fp32 and every variant,
// interleaved call by call, their GOP/s and their ratio to fp32.
inline int RunAgainstFp32(const std::vector<Variant>& variants,
                          const std::vector<std::vector<int64_t>>& shapes,
                          int calls) {
  std::printf("%-16s %7s %12s", "M x N x K", "threads", "fp32 GOP/s");
  for (const Variant& v : variants) {
    char column[48];
    std::snprintf(column, sizeof(column), "%s GOP/s", v.name);
    std::printf(" %14s %7s", column, "ratio");
  }
  std::printf("\n");
  const size_t count = variants.size() + 1;
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(m * k), w(n * k), bias(n), y(m * n);
    for (float& v : x) v = dist(rng);
    for (float& v : w) v = 0.02f * dist(rng);
    for (float& v : bias) v = 0.1f * dist(rng);
    std::vector<enc_packed_b*> packed = {Pack(ENC_PRECISION_FP32, w, n, k)};
    for (const Variant& v : variants) {
      if (v.before_pack) v.before_pack();
      packed.push_back(Pack(v.precision, w, n, k));
    }
    for (int threads : {1, 2}) {
      enc_set_num_threads(threads);
      std::vector<std::vector<double>> seconds(count);
      for (int c = 0; c < calls + 10; ++c) {
        for (size_t p = 0; p < count; ++p) {
          const auto t0 = std::chrono::steady_clock::now();
          enc_gemm(m, x.data(), k, packed[p], bias.data(), ENC_ACT_GELU,
                   nullptr, 0, y.data(), n);
          const auto t1 = std::chrono::steady_clock::now();
          if (c >= 10)
            seconds[p].push_back(
                std::chrono::duration<double>(t1 - t0).count());
        }
      }
      const double ops = 2.0 * m * n * k * 1e-9;
      const double fp32 = ops / Median(seconds[0]);
      char shape[32];
      std::snprintf(shape, sizeof(shape), "%lldx%lldx%lld", (long long)m,
                    (long long)n, (long long)k);
      std::printf("%-16s %7d %12.1f", shape, threads, fp32);
      for (size_t p = 1; p < count; ++p) {
        const double low = ops / Median(seconds[p]);
        std::printf(" %14.1f %7.2f", low, low / fp32);
      }
      std::printf("\n");
    }
    for (enc_packed_b* p : packed) enc_gemm_packed_free(p);
  }
  return 0;
}

inline int RunAgainstFp32(enc_precision precision, const char* name,
                          const std::vector<std::vector<int64_t>>& shapes,
                          int calls) {
  return RunAgainstFp32({{name, precision, nullptr}}, shapes, calls);
}

}  // namespace enc_bench

#endif  // ENC_BENCH_PRECISION_VS_FP32_H_
