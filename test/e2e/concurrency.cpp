// Concurrent forward calls on one loaded model (docs/c-abi.md: "safe to call
// concurrently on one loaded model from several threads"): 8 threads each run
// 50 forwards of different batch sizes and lengths, and every result must be
// identical, bit for bit, to the same call made alone. Also: the thread count
// changed while idle, and many load/free cycles, with failed loads between.
//
// Built against the generated header of `bert_like` (Inputs/conformance.enc).
// usage: concurrency WEIGHTS [BAD_WEIGHTS...]
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

// The runtime's test hook (kernels/attention-inl.h): sequences at least
// min_len long run head by head, whatever the thread count; 0: the default.
namespace enc {
void SetAttentionSplitFromForTest(int64_t min_len);
}

namespace {
constexpr int kThreads = 8, kCallsPerThread = 50, kCases = 12, kLoadCycles = 50;

struct Case {
  int32_t batch, seq;
  std::vector<int32_t> ids, types, lengths;
  std::vector<float> expected;
};

enc_input InputOf(const Case& c) {
  enc_input in{};
  in.batch = c.batch;
  in.seq_len = c.seq;
  in.tokens = c.ids.data();
  in.token_types = c.types.data();
  in.lengths = c.lengths.data();
  return in;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  bert_like* model = nullptr;
  if (bert_like_load(argv[1], &model) != ENC_OK) {
    std::printf("FAIL load: %s\n", enc_last_error());
    return 1;
  }
  std::mt19937 rng(7);
  std::vector<Case> cases(kCases);
  for (Case& c : cases) {
    c.batch = 1 + rng() % 4;
    c.seq = 1 + rng() % bert_like_MAX_LEN;
    for (int i = 0; i < c.batch * c.seq; ++i) {
      c.ids.push_back(rng() % bert_like_VOCAB);
      c.types.push_back(rng() % bert_like_TYPE_VOCAB);
    }
    for (int b = 0; b < c.batch; ++b) c.lengths.push_back(rng() % (c.seq + 1));
    c.expected.assign(size_t(c.batch) * c.seq * bert_like_D_MODEL, 0.0f);
    enc_input in = InputOf(c);
    if (bert_like_forward(model, &in, c.expected.data()) != ENC_OK) {
      std::printf("FAIL forward: %s\n", enc_last_error());
      return 1;
    }
  }

  // Each pass: kThreads threads x kCallsPerThread forwards against the
  // expected results. The second forces every sequence through attention's
  // head-by-head path (shared panels, attention.cc), which gives the same
  // bits, so that concurrent callers cover it too (and TSan, in its build).
  std::atomic<int> mismatches{0}, errors{0};
  for (int64_t split_from : {0, 1}) {
    enc::SetAttentionSplitFromForTest(split_from);
    const int mismatches_before = mismatches, errors_before = errors;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::vector<float> out;
        for (int k = 0; k < kCallsPerThread; ++k) {
          const Case& c = cases[(t * 5 + k * 7) % kCases];
          out.assign(c.expected.size(), -1.0f);
          enc_input in = InputOf(c);
          if (bert_like_forward(model, &in, out.data()) != ENC_OK) {
            ++errors;
          } else if (std::memcmp(out.data(), c.expected.data(),
                                 out.size() * sizeof(float)) != 0) {
            ++mismatches;
          }
        }
      });
    }
    for (std::thread& th : threads) th.join();
    std::printf("%d threads x %d forwards%s: %d mismatches, %d errors\n",
                kThreads, kCallsPerThread,
                split_from > 0 ? ", attention head by head" : "",
                mismatches - mismatches_before, errors - errors_before);
  }
  enc::SetAttentionSplitFromForTest(0);

  // The pool resized while idle: same results at 1, 3 and one-per-core.
  int resize_mismatches = 0;
  for (int n : {1, 3, 0}) {
    int got = enc_set_num_threads(n);
    std::vector<float> out(cases[0].expected.size());
    enc_input in = InputOf(cases[0]);
    if (got < 1 || bert_like_forward(model, &in, out.data()) != ENC_OK ||
        std::memcmp(out.data(), cases[0].expected.data(), out.size() * 4) != 0)
      ++resize_mismatches;
  }
  std::printf("enc_set_num_threads 1, 3, 0: %d mismatches; -1 gives %d\n",
              resize_mismatches, enc_set_num_threads(-1));
  bert_like_free(model);

  // Load and free repeatedly, and fail to load each bad file as often: under
  // the ASan build, LeakSanitizer fails the process if any of it leaks.
  int load_failures = 0, bad_loads = 0;
  for (int i = 0; i < kLoadCycles; ++i) {
    bert_like* m = nullptr;
    if (bert_like_load(argv[1], &m) != ENC_OK) ++load_failures;
    bert_like_free(m);
    for (int f = 2; f < argc; ++f) {
      m = reinterpret_cast<bert_like*>(1);
      if (bert_like_load(argv[f], &m) == ENC_OK || m != nullptr) ++bad_loads;
      bert_like_free(m);
    }
  }
  std::printf(
      "%d load/free cycles: %d failures; %d bad files x %d: %d loaded\n",
      kLoadCycles, load_failures, argc - 2, kLoadCycles, bad_loads);
  return mismatches || errors || resize_mismatches || load_failures || bad_loads
             ? 1
             : 0;
}
