// Token-budget batching (docs/serve.md#batching): requests, already
// tokenized on their own threads, wait in one bounded queue; one thread
// takes sequences from the front, oldest first, until the next would pass
// the token budget or the sequence cap, runs one forward over them (ragged:
// no compute on padding) and hands each request its rows. A request whose
// sequences do not fit one batch is split across several. A batch that is
// not full waits up to `gather` after its oldest request for more.
#ifndef ENC_RUNTIME_SERVE_BATCHER_H_
#define ENC_RUNTIME_SERVE_BATCHER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/metrics.h"
#include "serve/model_host.h"

namespace enc {
namespace serve {

// One request's work: its sequences in, their rows out: one row of out_dim
// floats per sequence from a pooling model, one per token from a model of
// per-token output (pooling = none), sequence after sequence.
struct Job {
  std::vector<Sequence> seqs;
  std::vector<float> rows;     // every sequence's rows once done
  std::vector<size_t> starts;  // where each sequence's rows start in `rows`
  std::string error;           // set when the forward failed
  std::chrono::steady_clock::time_point queued;

  // Blocks until every row is written (or the job failed).
  void Wait();

 private:
  friend class Batcher;
  size_t next = 0;       // the first sequence not yet in a batch
  size_t remaining = 0;  // sequences not yet computed
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  void Finish(const std::string& why);
};

struct BatcherOptions {
  int64_t max_batch_tokens = 16384;
  int32_t max_batch_sequences = 64;
  int32_t max_queue = 256;  // requests waiting or running
  // How long the oldest request may wait for others to fill its batch
  // (clients answered together come back together).
  std::chrono::microseconds gather{2000};
};

class Batcher {
 public:
  Batcher(ModelHost* host, Metrics* metrics, BatcherOptions options);
  ~Batcher();  // finishes what is queued, then stops

  // Queues `job`; false (nothing queued) when max_queue requests are in.
  bool Submit(const std::shared_ptr<Job>& job);
  // Requests queued or running.
  int32_t Pending() const;

 private:
  void Run();
  ModelHost* host_;
  Metrics* metrics_;
  BatcherOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  int32_t pending_ = 0;
  int64_t queued_tokens_ = 0, queued_seqs_ = 0;  // not yet in a batch
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace serve
}  // namespace enc

#endif  // ENC_RUNTIME_SERVE_BATCHER_H_
