// GEMM throughput: enc_gemm (pre-packed W) vs oneDNN dnnl_sgemm and OpenBLAS
// cblas_sgemm, same data, same run, at 1 and 2 threads, on the shapes of a
// BERT-base encoder (M = tokens) and of the small `tiny` model. Prints Google
// Benchmark's table (GFLOPS counter) and then a summary with ratios and the
// fraction of the measured FMA peak of the instruction set each library ran:
// encc's Highway target (ENC_TARGET caps it) and oneDNN's (ONEDNN_MAX_CPU_ISA
// caps it). bench/gemm_report.sh runs it natively and with both capped at AVX2.
//
//   Y[M, N] = X[M, K] W[N, K]^T   (no bias, no activation: a plain sgemm)
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <time.h>

#include <cctype>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "enc/kernels/gemm.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "fma_peak.h"
#include "src/target.h"

namespace {

struct Problem {
  int64_t m, n, k;
  std::vector<float> x, w, y;
  enc_packed_b* packed = nullptr;
};

// One problem per shape, built once and shared by the three libraries.
Problem& GetProblem(int64_t m, int64_t n, int64_t k) {
  static std::map<std::tuple<int64_t, int64_t, int64_t>,
                  std::unique_ptr<Problem>>
      problems;
  auto& p = problems[{m, n, k}];
  if (!p) {
    p = std::make_unique<Problem>();
    p->m = m;
    p->n = n;
    p->k = k;
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1, 1);
    p->x.resize(m * k);
    p->w.resize(n * k);
    p->y.resize(m * n);
    for (float& v : p->x) v = dist(rng);
    for (float& v : p->w) v = dist(rng);
    if (enc_gemm_pack(p->w.data(), n, k, &p->packed) != ENC_OK) {
      std::fprintf(stderr, "pack failed: %s\n", enc_last_error());
      std::abort();
    }
  }
  return *p;
}

// Lets the previous library's idle threads (OpenMP, OpenBLAS spin for up to
// ~0.1 s after a call) go to sleep before this benchmark measures.
void SettleOtherThreads() {
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
}

double ProcessCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// GFLOPS: wall-clock throughput. GFLOPS_cpu: flops per second of process CPU
// time, times the thread count, i.e. what the run would reach if its threads
// had their cores to themselves (on a loaded machine the wall clock mostly
// measures the other processes; spinning threads count as busy).
void SetCounters(benchmark::State& state, const Problem& p, double cpu_s) {
  const double flops = 2e-9 * p.m * p.n * p.k;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  if (cpu_s > 0) {
    state.counters["GFLOPS_cpu"] =
        flops * state.iterations() / cpu_s * state.range(3);
  }
}

// Times `gemm` on the state's problem with `set_threads` threads.
template <typename SetThreads, typename Gemm>
void TimeGemm(benchmark::State& state, SetThreads set_threads, Gemm gemm) {
  Problem& p = GetProblem(state.range(0), state.range(1), state.range(2));
  set_threads(static_cast<int>(state.range(3)));
  SettleOtherThreads();
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    gemm(p);
    benchmark::ClobberMemory();
  }
  SetCounters(state, p, ProcessCpuSeconds() - cpu0);
}

void BM_Enc(benchmark::State& state) {
  TimeGemm(
      state, [](int t) { enc_set_num_threads(t); },
      [](Problem& p) {
        enc_gemm(p.m, p.x.data(), p.k, p.packed, nullptr, ENC_ACT_NONE, nullptr,
                 0, p.y.data(), p.n);
      });
}

void BM_OneDnn(benchmark::State& state) {
  TimeGemm(
      state, [](int t) { omp_set_num_threads(t); },
      [](Problem& p) {
        dnnl_sgemm('N', 'T', p.m, p.n, p.k, 1.0f, p.x.data(), p.k, p.w.data(),
                   p.k, 0.0f, p.y.data(), p.n);
      });
}

void BM_OpenBlas(benchmark::State& state) {
  TimeGemm(
      state, [](int t) { openblas_set_num_threads(t); },
      [](Problem& p) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.m, p.n, p.k,
                    1.0f, p.x.data(), p.k, p.w.data(), p.k, 0.0f, p.y.data(),
                    p.n);
      });
}

// BERT-base (d 768, d_ff 3072, 128 and 512 tokens), then tiny (d 128,
// d_ff 512, 128 tokens), where threads must not cost more than they save.
const int64_t kShapes[][3] = {
    {128, 768, 768}, {128, 2304, 768}, {128, 3072, 768}, {128, 768, 3072},
    {512, 768, 768}, {512, 3072, 768}, {128, 384, 128},  {128, 128, 128},
    {128, 512, 128}, {128, 128, 512}};

// The instruction set oneDNN runs: the best the CPU has, unless
// ONEDNN_MAX_CPU_ISA caps it at AVX2 (or below, where no FMA peak applies).
bool OneDnnIsa(FmaIsa* isa) {
  std::string cap;
  if (const char* env = std::getenv("ONEDNN_MAX_CPU_ISA")) {
    for (const char* c = env; *c; ++c)
      cap += static_cast<char>(std::toupper(*c));
  }
  if (cap.empty() || cap == "ALL" || cap.rfind("AVX512", 0) == 0 ||
      cap.rfind("AVX10", 0) == 0) {
    if (FmaIsaSupported(FmaIsa::kAvx512)) {
      *isa = FmaIsa::kAvx512;
      return true;
    }
  }
  if (cap.empty() || cap == "ALL" || cap.rfind("AVX2", 0) == 0 ||
      cap.rfind("AVX512", 0) == 0 || cap.rfind("AVX10", 0) == 0) {
    *isa = FmaIsa::kAvx2;
    return FmaIsaSupported(FmaIsa::kAvx2);
  }
  return false;
}

// Shape-major order, so that the three libraries run back to back per shape.
void RegisterAll() {
  for (const auto& s : kShapes) {
    for (int64_t threads : {1, 2}) {
      const std::vector<int64_t> args = {s[0], s[1], s[2], threads};
      for (auto [name, fn] :
           {std::pair{"enc", BM_Enc}, std::pair{"onednn", BM_OneDnn},
            std::pair{"openblas", BM_OpenBlas}}) {
        benchmark::RegisterBenchmark(name, fn)
            ->Args(args)
            ->ArgNames({"M", "N", "K", "threads"})
            ->UseRealTime()
            ->MinTime(0.3)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

// Keeps the GFLOPS of every run for the summary.
// Keeps the GFLOPS of every repetition, keyed by
// "lib/M:../N:../K:../threads:T".
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      std::string key = run.benchmark_name();
      key = key.substr(0, key.find("/min_time"));
      auto it = run.counters.find("GFLOPS");
      if (it != run.counters.end()) gflops[key].push_back(it->second);
      it = run.counters.find("GFLOPS_cpu");
      if (it != run.counters.end()) gflops_cpu[key].push_back(it->second);
    }
  }
  // The median of the repetitions (0 if none ran).
  static double Median(const std::map<std::string, std::vector<double>>& table,
                       const std::string& key) {
    auto it = table.find(key);
    if (it == table.end() || it->second.empty()) return 0.0;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  std::map<std::string, std::vector<double>> gflops, gflops_cpu;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (enc::ApplyTargetCap() != ENC_OK) {  // before any packing
    std::fprintf(stderr, "gemm_bench: %s\n", enc_last_error());
    return 1;
  }
  RegisterAll();
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);

  // The target encc's kernels ran (fixed per process once a weight is packed).
  const char* target = enc::DispatchTargetName();
  FmaIsa enc_isa = FmaIsa{}, dnnl_isa = FmaIsa{};
  const bool enc_fma = FmaIsaForTarget(target, &enc_isa);
  const bool dnnl_fma = OneDnnIsa(&dnnl_isa);
  auto peak_of = [](bool has, FmaIsa isa, int threads) {
    return has ? MeasureFmaPeakGflops(isa, threads) : 0.0;
  };
  const double enc_peak[3] = {0, peak_of(enc_fma, enc_isa, 1),
                              peak_of(enc_fma, enc_isa, 2)};
  const double dnnl_peak[3] = {0, peak_of(dnnl_fma, dnnl_isa, 1),
                               peak_of(dnnl_fma, dnnl_isa, 2)};
  const char* onednn_cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  std::printf(
      "\nencc: Highway target %s (ENC_TARGET=%s), FMA peak (%s, measured): "
      "%.1f GFLOP/s at 1 thread, %.1f at 2\n",
      target, std::getenv("ENC_TARGET") ? std::getenv("ENC_TARGET") : "",
      enc_fma ? FmaIsaName(enc_isa) : "none", enc_peak[1], enc_peak[2]);
  std::printf(
      "oneDNN: ONEDNN_MAX_CPU_ISA=%s, FMA peak (%s, measured): %.1f "
      "GFLOP/s at 1 thread, %.1f at 2\n\n",
      onednn_cap ? onednn_cap : "", dnnl_fma ? FmaIsaName(dnnl_isa) : "none",
      dnnl_peak[1], dnnl_peak[2]);
  std::printf(
      "GFLOP/s by the wall clock, median of the repetitions "
      "(--benchmark_repetitions); %%peak: of the FMA peak of the instruction "
      "set that library ran; [cpu]: per second of process CPU time x "
      "threads\n");
  std::printf("%-16s %3s %7s %7s %8s %8s %9s %9s %9s  %9s %9s\n", "M x N x K",
              "thr", "enc", "oneDNN", "OpenBLAS", "enc/dnnl", "enc/oblas",
              "enc%peak", "dnnl%peak", "enc[cpu]", "dnnl[cpu]");
  for (const auto& s : kShapes) {
    for (int threads : {1, 2}) {
      char suffix[96];
      std::snprintf(suffix, sizeof(suffix), "/M:%lld/N:%lld/K:%lld/threads:%d",
                    static_cast<long long>(s[0]), static_cast<long long>(s[1]),
                    static_cast<long long>(s[2]), threads);
      auto get = [&](const char* lib, bool cpu = false) {
        return Collector::Median(cpu ? collector.gflops_cpu : collector.gflops,
                                 std::string(lib) + suffix);
      };
      const double e = get("enc"), d = get("onednn"), o = get("openblas");
      const double ec = get("enc", true), dc = get("onednn", true);
      if (e == 0 && d == 0 && o == 0) continue;
      char shape[32];
      std::snprintf(shape, sizeof(shape), "%lldx%lldx%lld",
                    static_cast<long long>(s[0]), static_cast<long long>(s[1]),
                    static_cast<long long>(s[2]));
      std::printf(
          "%-16s %3d %7.1f %7.1f %8.1f %8.2f %9.2f %8.1f%% %8.1f%%  %9.1f "
          "%9.1f\n",
          shape, threads, e, d, o, d > 0 ? e / d : 0, o > 0 ? e / o : 0,
          enc_peak[threads] > 0 ? 100 * e / enc_peak[threads] : 0,
          dnnl_peak[threads] > 0 ? 100 * d / dnnl_peak[threads] : 0, ec, dc);
    }
  }
  return 0;
}
