// Kernel benchmarks: attention (BERT-base shapes), a softmax-heavy attention,
// and LayerNorm rows of 768 (GB/s). Run: kernels_bench [--benchmark_filter=...]
// ENC_TARGET=avx2 (etc.) caps the kernels' Highway target, as in a model.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "enc/kernels/attention.h"
#include "enc/kernels/norm.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "src/target.h"

namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

// Arguments: seq_len, heads, d_k, threads (0 = one per core).
void BM_Attention(benchmark::State& state) {
  const int seq = static_cast<int>(state.range(0));
  const int heads = static_cast<int>(state.range(1));
  const int d_k = static_cast<int>(state.range(2));
  enc_set_num_threads(static_cast<int>(state.range(3)));
  const int d_model = heads * d_k;
  const std::vector<float> qkv = Random(static_cast<size_t>(seq) * 3 * d_model, 1);
  std::vector<float> out(static_cast<size_t>(seq) * d_model);
  enc_attention_params p{};
  p.heads = heads;
  p.d_k = d_k;
  p.max_len = seq;
  p.scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  for (auto _ : state) {
    enc_attention(&p, 1, seq, nullptr, qkv.data(), qkv.data() + d_model,
                  qkv.data() + 2 * d_model, 3 * d_model, out.data(), d_model);
    benchmark::DoNotOptimize(out.data());
  }
  // QK^T and PV: 2 * 2 * seq^2 * d_k flops per head.
  const double flops = 4.0 * seq * seq * static_cast<double>(d_model);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["Mexp/s"] = benchmark::Counter(
      1e-6 * heads * seq * static_cast<double>(seq) * state.iterations(),
      benchmark::Counter::kIsRate);
  state.counters["threads"] = enc_threads_count();
  enc_set_num_threads(0);
}
BENCHMARK(BM_Attention)
    ->ArgNames({"seq", "heads", "d_k", "thr"})
    ->Args({128, 12, 64, 1})
    ->Args({512, 12, 64, 1})
    ->Args({128, 12, 64, 0})
    ->Args({512, 12, 64, 0})
    // Softmax-heavy: d_model 768 as 96 heads of 8 (exp per flop x8).
    ->Args({512, 96, 8, 1})
    ->Args({512, 96, 8, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// LayerNorm over `rows` rows of 768.
void BM_LayerNorm(benchmark::State& state) {
  const int64_t rows = state.range(0), d = 768;
  const std::vector<float> x = Random(rows * d, 2), gamma = Random(d, 4),
                           beta = Random(d, 5);
  std::vector<float> y(rows * d);
  for (auto _ : state) {
    enc_layer_norm(rows, d, x.data(), gamma.data(), beta.data(), 1e-5f,
                   y.data());
    benchmark::DoNotOptimize(y.data());
  }
  const double bytes = static_cast<double>(rows) * d * 4 * 2;
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
}
BENCHMARK(BM_LayerNorm)->ArgName("rows")->Arg(128)->Arg(4096)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (enc::ApplyTargetCap() != ENC_OK) {
    std::fprintf(stderr, "kernels_bench: %s\n", enc_last_error());
    return 1;
  }
  std::printf("Highway target: %s\n", enc::DispatchTargetName());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
