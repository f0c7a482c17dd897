// enc-serve's counters and histograms, as GET /metrics gives them in
// Prometheus' text format (docs/serve.md#metrics). Thread-safe.
#ifndef ENC_RUNTIME_SERVE_METRICS_H_
#define ENC_RUNTIME_SERVE_METRICS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace enc {
namespace serve {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
    counts_.assign(bounds_.size() + 1, 0);
  }
  void Observe(double v);
  // Prometheus lines for `name` (cumulative buckets, +Inf, sum, count).
  std::string Text(const std::string& name, const std::string& help) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // the last: above every bound
  double sum_ = 0;
  uint64_t count_ = 0;
};

class Metrics {
 public:
  Metrics();
  // One answered request: its route and HTTP status.
  void CountRequest(const std::string& route, int status);
  // One refused request, by kind (TEI's error_type).
  void CountError(const std::string& kind);
  void ObserveRequest(double seconds, int64_t tokens);
  void ObserveQueueTime(double seconds);
  void ObserveBatch(int64_t sequences, int64_t tokens);
  std::string Text(int32_t queue_size) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, uint64_t> errors_;
  Histogram request_seconds_, request_tokens_, queue_seconds_, batch_size_,
      batch_tokens_;
};

}  // namespace serve
}  // namespace enc

#endif  // ENC_RUNTIME_SERVE_METRICS_H_
