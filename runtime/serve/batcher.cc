#include "serve/batcher.h"

#include <algorithm>
#include <utility>

namespace enc {
namespace serve {

void Job::Wait() {
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
}

void Job::Finish(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu);
  if (!why.empty() && error.empty()) error = why;
  done = true;
  cv.notify_all();
}

Batcher::Batcher(ModelHost* host, Metrics* metrics, BatcherOptions options)
    : host_(host), metrics_(metrics), options_(options) {
  thread_ = std::thread([this] { Run(); });
}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool Batcher::Submit(const std::shared_ptr<Job>& job) {
  job->queued = std::chrono::steady_clock::now();
  job->next = 0;
  job->remaining = job->seqs.size();
  const size_t width = static_cast<size_t>(host_->info().out_dim);
  const bool per_token = host_->info().pooling == 0;
  job->starts.resize(job->seqs.size());
  size_t floats = 0;
  for (size_t i = 0; i < job->seqs.size(); ++i) {
    job->starts[i] = floats;
    floats += width * (per_token ? job->seqs[i].ids.size() : 1);
  }
  job->rows.assign(floats, 0.0f);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_ >= options_.max_queue) return false;
    ++pending_;
    for (const Sequence& s : job->seqs) {
      queued_tokens_ += static_cast<int64_t>(s.ids.size());
    }
    queued_seqs_ += static_cast<int64_t>(job->seqs.size());
    queue_.push_back(job);
  }
  cv_.notify_one();
  return true;
}

int32_t Batcher::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_;
}

void Batcher::Run() {
  const size_t width = host_->info().out_dim;
  const bool per_token = host_->info().pooling == 0;
  std::vector<const Sequence*> seqs;
  // Where each sequence's row goes: its job and index.
  std::vector<std::pair<std::shared_ptr<Job>, size_t>> owners;
  std::vector<float> rows;
  for (;;) {
    seqs.clear();
    owners.clear();
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      cv_.wait_until(lock, queue_.front()->queued + options_.gather, [&] {
        return stopping_ || queued_tokens_ >= options_.max_batch_tokens ||
               queued_seqs_ >= options_.max_batch_sequences;
      });
      // Oldest first, until the budget: at least one sequence, so a
      // sequence longer than the budget still runs, alone.
      int64_t tokens = 0;
      for (auto it = queue_.begin(); it != queue_.end();) {
        Job& job = **it;
        while (job.next < job.seqs.size()) {
          const auto n = static_cast<int64_t>(job.seqs[job.next].ids.size());
          if (!seqs.empty() && (tokens + n > options_.max_batch_tokens ||
                                static_cast<int32_t>(seqs.size()) >=
                                    options_.max_batch_sequences)) {
            break;
          }
          tokens += n;
          queued_tokens_ -= n;
          --queued_seqs_;
          seqs.push_back(&job.seqs[job.next]);
          owners.emplace_back(*it, job.next);
          ++job.next;
        }
        if (job.next < job.seqs.size()) break;  // the batch is full
        metrics_->ObserveQueueTime(
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          job.queued)
                .count());
        it = queue_.erase(it);  // every sequence taken; it finishes below
      }
      metrics_->ObserveBatch(static_cast<int64_t>(seqs.size()), tokens);
    }
    // A model of per-token output writes [batch, longest, out_dim].
    size_t longest = 1;
    if (per_token) {
      for (const Sequence* s : seqs) longest = std::max(longest, s->ids.size());
    }
    rows.resize(seqs.size() * longest * width);
    std::string why;
    const bool ok = host_->Forward(seqs, rows.data(), &why);
    for (size_t i = 0; i < owners.size(); ++i) {
      Job& job = *owners[i].first;
      if (ok) {
        const size_t n = width * (per_token ? seqs[i]->ids.size() : 1);
        const auto from =
            rows.begin() + static_cast<std::ptrdiff_t>(i * longest * width);
        std::copy(from, from + static_cast<std::ptrdiff_t>(n),
                  job.rows.begin() + static_cast<std::ptrdiff_t>(
                                         job.starts[owners[i].second]));
      } else if (job.error.empty()) {
        job.error = why;
      }
      if (--job.remaining == 0) {
        job.Finish(ok ? std::string() : why);
        std::lock_guard<std::mutex> lock(mu_);
        --pending_;
      }
    }
  }
}

}  // namespace serve
}  // namespace enc
