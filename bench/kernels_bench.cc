// Kernel benchmarks: attention (BERT-base shapes), a softmax-heavy attention,
// LayerNorm rows of 768 (GB/s), and a gated FFN's first half as one fused
// GEMM against three passes. Run: kernels_bench [--benchmark_filter=...]
// ENC_TARGET=avx2 (etc.) caps the kernels' Highway target, as in a model.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "enc/kernels/attention.h"
#include "enc/kernels/elementwise.h"
#include "enc/kernels/gemm.h"
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

// counters[name]: `per_iteration` of it per iteration, as a rate.
void SetRate(benchmark::State& state, const char* name, double per_iteration) {
  state.counters[name] = benchmark::Counter(
      per_iteration * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// Arguments: seq_len, heads, d_k, threads (0 = one per core), window (0:
// global; > 0: a local block, keys within window / 2).
void BM_Attention(benchmark::State& state) {
  const int seq = static_cast<int>(state.range(0));
  const int heads = static_cast<int>(state.range(1));
  const int d_k = static_cast<int>(state.range(2));
  enc_set_num_threads(static_cast<int>(state.range(3)));
  const int window = static_cast<int>(state.range(4));
  const int d_model = heads * d_k;
  const std::vector<float> qkv =
      Random(static_cast<size_t>(seq) * 3 * d_model, 1);
  std::vector<float> out(static_cast<size_t>(seq) * d_model);
  enc_attention_params p{};
  p.heads = heads;
  p.d_k = d_k;
  p.max_len = seq;
  p.scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  p.window = window;
  for (auto _ : state) {
    enc_attention(&p, 1, seq, nullptr, qkv.data(), qkv.data() + d_model,
                  qkv.data() + 2 * d_model, 3 * d_model, out.data(), d_model);
    benchmark::DoNotOptimize(out.data());
  }
  // QK^T and PV: 2 * 2 * seq * keys * d_k flops per head, a query seeing
  // every key, or at most window + 1 of them (the useful flops).
  double keys = 0;
  for (int i = 0; i < seq; ++i) {
    keys += window > 0 ? std::min(seq, i + window / 2 + 1) -
                             std::max(0, i - window / 2)
                       : seq;
  }
  const double flops = 4.0 * keys * static_cast<double>(d_model);
  SetRate(state, "GFLOP/s", flops * 1e-9);
  SetRate(state, "Mexp/s", 1e-6 * heads * keys);
  state.counters["threads"] = enc_threads_count();
  enc_set_num_threads(0);
}
BENCHMARK(BM_Attention)
    ->ArgNames({"seq", "heads", "d_k", "thr", "window"})
    ->Args({128, 12, 64, 1, 0})
    ->Args({512, 12, 64, 1, 0})
    ->Args({128, 12, 64, 0, 0})
    ->Args({512, 12, 64, 0, 0})
    // A local block (ModernBERT: window 128) beside the global one above.
    ->Args({512, 12, 64, 1, 128})
    ->Args({512, 12, 64, 0, 128})
    // Long inputs: from 1,024 tokens on, heads run one at a time with every
    // thread on each (shared key/value panels).
    ->Args({2048, 12, 64, 0, 0})
    ->Args({2048, 12, 64, 0, 128})
    // ModernBERT's longest input: 8,192 tokens, a global block.
    ->Args({8192, 12, 64, 0, 0})
    // Softmax-heavy: d_model 768 as 96 heads of 8 (exp per flop x8).
    ->Args({512, 96, 8, 1, 0})
    ->Args({512, 96, 8, 0, 0})
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

// A gated FFN's gate and up projections and their product,
// Y = silu(X Wg^T + bg) * (X Wu^T + bu), [m, n] from [m, k]: one
// enc_gemm_gated call (fused = 1), or what runs without the fusion (0): two
// enc_gemm calls writing the two [m, n] projections, then enc_mul_rows.
// Arguments: m, k, n, threads (0 = one per core), fused.
void BM_GatedFfn(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  enc_set_num_threads(static_cast<int>(state.range(3)));
  const bool fused = state.range(4) != 0;
  const std::vector<float> x = Random(static_cast<size_t>(m * k), 1);
  const std::vector<float> wg = Random(static_cast<size_t>(n * k), 2);
  const std::vector<float> wu = Random(static_cast<size_t>(n * k), 3);
  const std::vector<float> bg = Random(static_cast<size_t>(n), 4);
  const std::vector<float> bu = Random(static_cast<size_t>(n), 5);
  std::vector<float> y(static_cast<size_t>(m * n));
  std::vector<float> g(fused ? 0 : y.size()), u(fused ? 0 : y.size());
  enc_packed_gated* gated = nullptr;
  enc_packed_b *pg = nullptr, *pu = nullptr;
  const bool packed =
      fused ? enc_gemm_pack_gated(wg.data(), wu.data(), n, k, &gated) == ENC_OK
            : enc_gemm_pack(wg.data(), n, k, &pg) == ENC_OK &&
                  enc_gemm_pack(wu.data(), n, k, &pu) == ENC_OK;
  if (!packed) state.SkipWithError(enc_last_error());
  for (auto _ : state) {
    if (fused) {
      enc_gemm_gated(m, x.data(), k, gated, bg.data(), bu.data(), ENC_ACT_SILU,
                     y.data(), n);
    } else {
      enc_gemm(m, x.data(), k, pg, bg.data(), ENC_ACT_SILU, nullptr, 0,
               g.data(), n);
      enc_gemm(m, x.data(), k, pu, bu.data(), ENC_ACT_NONE, nullptr, 0,
               u.data(), n);
      enc_mul_rows(m, n, g.data(), n, u.data(), n, y.data(), n);
    }
    benchmark::DoNotOptimize(y.data());
  }
  const double flops = 2.0 * 2.0 * static_cast<double>(m) * n * k;
  SetRate(state, "GFLOP/s", flops * 1e-9);
  state.counters["threads"] = enc_threads_count();
  enc_gemm_gated_free(gated);
  enc_gemm_packed_free(pg);
  enc_gemm_packed_free(pu);
  enc_set_num_threads(0);
}
// BERT-base-sized gated FFN (d_ff 2048 per branch) at seq 128, and
// ModernBERT-base's (d_ff 1152 per branch) at seq 512; 1 and 2 threads,
// fused beside unfused.
void GatedFfnShapes(benchmark::internal::Benchmark* b) {
  const int64_t shapes[][2] = {{128, 2048}, {512, 1152}};
  for (const auto& mn : shapes) {
    for (int64_t threads : {1, 2}) {
      for (int64_t fused : {1, 0}) b->Args({mn[0], 768, mn[1], threads, fused});
    }
  }
}
BENCHMARK(BM_GatedFfn)
    ->ArgNames({"m", "k", "n", "thr", "fused"})
    ->Apply(GatedFfnShapes)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

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
