// Long-lived encc side of bench/e2e.py. Generic over the model as
// test/e2e/harness.cpp is; e2e.py builds it per model with
//   c++ -std=c++17 -O2 -I<runtime include> -I<runtime> -DENC_MODEL=name
//       -DENC_D_MODEL=d -include model.h
//       encc_runner.cpp model.o libenc_runtime.a -lhwy -lhwy_contrib -lpthread
// usage: encc_runner WEIGHTS THREADS
// Loads the model (timed), then answers one line per command on stdin:
//   case B S INPUT.f32 LENGTHS.i32|- [OUT.f32|-]  -> "ok WORKSPACE_BYTES"
//        (reads the inputs; runs one forward and writes the output if asked)
//   run N   -> "times T1 ... TN cpu CPU_S wall WALL_S" (ms per forward; process
//              CPU and wall seconds over the N forwards)
//   rss     -> "rss VMHWM_BYTES RU_MAXRSS_BYTES" (peak RSS of this process;
//              ru_maxrss may include the parent's, see VmHwmBytes)
//   quit
// The first line printed is "loaded LOAD_MS THREADS_IN_USE VMHWM_BEFORE_LOAD
// TARGET", TARGET the Highway target the kernels run (ENC_TARGET caps it).
// With ENC_RUNNER_IN_PLACE=1 the output is written over the input's array
// (an in-place forward, docs/c-abi.md#memory), so no second array is held;
// a later forward then reads the previous output.
#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "src/target.h"  // the runtime's own: which target the kernels run

#define ENC_CAT2(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT2(a, b)
#define MODEL_LOAD ENC_CAT(ENC_MODEL, _load)
#define MODEL_FORWARD ENC_CAT(ENC_MODEL, _forward)
#define MODEL_FREE ENC_CAT(ENC_MODEL, _free)
#define MODEL_WORKSPACE ENC_CAT(ENC_MODEL, _workspace_bytes)

namespace {
template <typename T>
std::vector<T> ReadFile(const std::string& path) {
  std::vector<T> data;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "encc_runner: cannot open %s\n", path.c_str());
    std::exit(2);
  }
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  data.resize(size / sizeof(T));
  if (std::fread(data.data(), sizeof(T), data.size(), f) != data.size()) {
    std::fprintf(stderr, "encc_runner: short read of %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(f);
  return data;
}

// This process's own peak RSS in bytes: VmHWM of /proc/self/status. Unlike
// ru_maxrss it is not inherited: exec() raises ru_maxrss to the parent's
// high-water mark when the parent used vfork (as Python's subprocess does),
// so a runner started by a 3 GB Python process would report 3 GB.
long long VmHwmBytes() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long long kb = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
  std::fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: encc_runner WEIGHTS THREADS\n");
    return 2;
  }
  const int threads = enc_set_num_threads(std::atoi(argv[2]));
  const long long hwm_before =
      VmHwmBytes();  // the process (runtime, pool) without a model
  ENC_MODEL* model = nullptr;
  const auto t0 = Clock::now();
  if (enc_status s = MODEL_LOAD(argv[1], &model)) {
    std::fprintf(stderr, "encc_runner: load failed: %s: %s\n",
                 enc_status_name(s), enc_last_error());
    return 3;
  }
  std::printf("loaded %.3f %d %lld %s\n", 1e3 * Seconds(t0, Clock::now()),
              threads, hwm_before, enc::DispatchTargetName());
  std::fflush(stdout);

  const char* in_place_env = std::getenv("ENC_RUNNER_IN_PLACE");
  const bool in_place = in_place_env != nullptr && in_place_env[0] == '1';
  std::vector<float> emb, out;
  std::vector<int32_t> lens;
  enc_input in{};
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream ss(line);
    std::string cmd;
    ss >> cmd;
    if (cmd == "case") {
      int b = 0, s = 0;
      std::string in_path, len_path, out_path = "-";
      ss >> b >> s >> in_path >> len_path >> out_path;
      emb = ReadFile<float>(in_path);
      lens = len_path == "-" ? std::vector<int32_t>()
                             : ReadFile<int32_t>(len_path);
      in = enc_input{};
      in.batch = b;
      in.seq_len = s;
      in.embeddings = emb.data();
      in.lengths = lens.empty() ? nullptr : lens.data();
      if (in_place) {
        emb.resize(std::max(emb.size(), size_t(b) * s * ENC_D_MODEL));
        in.embeddings = emb.data();
        out.clear();
        out.shrink_to_fit();
      } else {
        out.assign(size_t(b) * s * ENC_D_MODEL, 0.0f);
      }
      float* out_ptr = in_place ? emb.data() : out.data();
      if (enc_status st = MODEL_FORWARD(model, &in, out_ptr)) {
        std::fprintf(stderr, "encc_runner: forward failed: %s: %s\n",
                     enc_status_name(st), enc_last_error());
        return 3;
      }
      if (out_path != "-") {
        FILE* f = std::fopen(out_path.c_str(), "wb");
        const size_t n = size_t(b) * s * ENC_D_MODEL;
        if (!f || std::fwrite(out_ptr, sizeof(float), n, f) != n) {
          std::fprintf(stderr, "encc_runner: cannot write %s\n",
                       out_path.c_str());
          return 2;
        }
        std::fclose(f);
      }
      std::printf("ok %lld\n", static_cast<long long>(MODEL_WORKSPACE(b, s)));
    } else if (cmd == "run") {
      int n = 1;
      ss >> n;
      std::vector<double> ms(n);
      const double c0 = CpuSeconds();
      const auto w0 = Clock::now();
      for (int i = 0; i < n; ++i) {
        const auto a = Clock::now();
        if (enc_status st =
                MODEL_FORWARD(model, &in, in_place ? emb.data() : out.data())) {
          std::fprintf(stderr, "encc_runner: forward failed: %s: %s\n",
                       enc_status_name(st), enc_last_error());
          return 3;
        }
        ms[i] = 1e3 * Seconds(a, Clock::now());
      }
      const double wall = Seconds(w0, Clock::now()), cpu = CpuSeconds() - c0;
      std::printf("times");
      for (double t : ms) std::printf(" %.6f", t);
      std::printf(" cpu %.6f wall %.6f\n", cpu, wall);
    } else if (cmd == "rss") {
      rusage u{};
      getrusage(RUSAGE_SELF, &u);
      std::printf("rss %lld %lld\n", VmHwmBytes(),
                  static_cast<long long>(u.ru_maxrss) * 1024);
    } else if (cmd == "quit") {
      break;
    } else if (!cmd.empty()) {
      std::fprintf(stderr, "encc_runner: unknown command %s\n", cmd.c_str());
      return 2;
    }
    std::fflush(stdout);
  }
  MODEL_FREE(model);
  return 0;
}
