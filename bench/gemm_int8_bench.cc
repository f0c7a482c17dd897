// precision = int8 against fp32: enc_gemm on the same X and W packed both
// ways, on BERT-base's shapes (128 tokens; d 768, d_ff 3072), at 1 and 2
// threads. The two run interleaved, call by call, and each reports the
// median of its calls in GOP/s (2 M N K operations) with the ratio.
//
//   gemm_int8_bench [CALLS]      (under `quiet bench`; ENC_TARGET caps the ISA)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "enc/kernels/gemm.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "src/target.h"

namespace {

enc_packed_b* Pack(enc_precision precision, const std::vector<float>& w,
                   int64_t n, int64_t k) {
  enc_packed_b* p = nullptr;
  const float* part = w.data();
  if (enc_gemm_pack_parts_as(precision, 1, &part, &n, k, &p) != ENC_OK) {
    std::fprintf(stderr, "pack failed: %s\n", enc_last_error());
    std::exit(1);
  }
  return p;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  const int64_t shapes[][3] = {{128, 768, 768}, {128, 3072, 768}, {128, 768, 3072}};
  // Packing applies ENC_TARGET: pack once before naming the target.
  {
    const std::vector<float> one(1, 1.0f);
    enc_gemm_packed_free(Pack(ENC_PRECISION_INT8, one, 1, 1));
  }
  std::printf("int8 vs fp32 enc_gemm (Y = X W^T + bias, gelu) on %s, %d "
              "interleaved calls each, medians\n",
              enc::DispatchTargetName(), calls);
  std::printf("%-16s %7s %12s %12s %7s\n", "M x N x K", "threads", "fp32 GOP/s",
              "int8 GOP/s", "ratio");
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(m * k), w(n * k), bias(n), y(m * n);
    for (float& v : x) v = dist(rng);
    for (float& v : w) v = 0.02f * dist(rng);
    for (float& v : bias) v = 0.1f * dist(rng);
    enc_packed_b* packed[2] = {Pack(ENC_PRECISION_FP32, w, n, k),
                               Pack(ENC_PRECISION_INT8, w, n, k)};
    for (int threads : {1, 2}) {
      enc_set_num_threads(threads);
      std::vector<double> seconds[2];
      for (int c = 0; c < calls + 10; ++c) {
        for (int p = 0; p < 2; ++p) {
          const auto t0 = std::chrono::steady_clock::now();
          enc_gemm(m, x.data(), k, packed[p], bias.data(), ENC_ACT_GELU, nullptr,
                   0, y.data(), n);
          const auto t1 = std::chrono::steady_clock::now();
          if (c >= 10) seconds[p].push_back(std::chrono::duration<double>(t1 - t0).count());
        }
      }
      const double ops = 2.0 * m * n * k * 1e-9;
      const double fp32 = ops / Median(seconds[0]), int8 = ops / Median(seconds[1]);
      char shape[32];
      std::snprintf(shape, sizeof(shape), "%lldx%lldx%lld", (long long)m,
                    (long long)n, (long long)k);
      std::printf("%-16s %7d %12.1f %12.1f %7.2f\n", shape, threads, fp32, int8,
                  int8 / fp32);
    }
    enc_gemm_packed_free(packed[0]);
    enc_gemm_packed_free(packed[1]);
  }
  return 0;
}
