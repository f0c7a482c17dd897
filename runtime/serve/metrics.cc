#include "serve/metrics.h"

#include <cstdio>

namespace enc {
namespace serve {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const std::vector<double> kSeconds = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
const std::vector<double> kTokens = {8,   16,   32,   64,   128,  256,
                                     512, 1024, 2048, 4096, 8192, 16384};
const std::vector<double> kSizes = {1, 2, 4, 8, 16, 32, 64, 128, 256};

}  // namespace

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += v;
  ++count_;
}

std::string Histogram::Text(const std::string& name,
                            const std::string& help) const {
  std::string out =
      "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += name + "_bucket{le=\"" + Number(bounds_[i]) + "\"} " +
           std::to_string(cumulative) + "\n";
  }
  out += name + "_bucket{le=\"+Inf\"} " + std::to_string(count_) + "\n";
  out += name + "_sum " + Number(sum_) + "\n";
  out += name + "_count " + std::to_string(count_) + "\n";
  return out;
}

Metrics::Metrics()
    : request_seconds_(kSeconds),
      request_tokens_(kTokens),
      queue_seconds_(kSeconds),
      batch_size_(kSizes),
      batch_tokens_(kTokens) {}

void Metrics::CountRequest(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
}

void Metrics::CountError(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mu_);
  ++errors_[kind];
}

void Metrics::ObserveRequest(double seconds, int64_t tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  request_seconds_.Observe(seconds);
  request_tokens_.Observe(static_cast<double>(tokens));
}

void Metrics::ObserveQueueTime(double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_seconds_.Observe(seconds);
}

void Metrics::ObserveBatch(int64_t sequences, int64_t tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  batch_size_.Observe(static_cast<double>(sequences));
  batch_tokens_.Observe(static_cast<double>(tokens));
}

std::string Metrics::Text(int32_t queue_size) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out =
      "# HELP enc_requests_total Requests answered, by route and status.\n"
      "# TYPE enc_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out += "enc_requests_total{route=\"" + key.first + "\",status=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP enc_errors_total Requests refused, by kind.\n"
      "# TYPE enc_errors_total counter\n";
  for (const auto& [kind, n] : errors_) {
    out +=
        "enc_errors_total{kind=\"" + kind + "\"} " + std::to_string(n) + "\n";
  }
  out += request_seconds_.Text("enc_request_duration_seconds",
                               "Time from arrival to answer.");
  out += request_tokens_.Text("enc_request_tokens",
                              "Tokens the model read for one request.");
  out += queue_seconds_.Text("enc_queue_duration_seconds",
                             "Time a request waited for its last batch.");
  out += batch_size_.Text("enc_batch_size", "Sequences in one forward call.");
  out += batch_tokens_.Text("enc_batch_tokens", "Tokens in one forward call.");
  out +=
      "# HELP enc_queue_size Requests queued or running.\n"
      "# TYPE enc_queue_size gauge\n"
      "enc_queue_size " +
      std::to_string(queue_size) + "\n";
  return out;
}

}  // namespace serve
}  // namespace enc
