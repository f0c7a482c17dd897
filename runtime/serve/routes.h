// enc-serve's routes (docs/serve.md#routes), apart from the HTTP library:
// a request's method, path and body in, a status, content type, body and
// headers out. Text-embeddings-inference's request and response shapes,
// and OpenAI's for /v1/embeddings; errors as TEI's {"error", "error_type"}.
#ifndef ENC_RUNTIME_SERVE_ROUTES_H_
#define ENC_RUNTIME_SERVE_ROUTES_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "serve/batcher.h"
#include "serve/metrics.h"
#include "serve/model_host.h"

namespace enc {
namespace serve {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// TEI's error answer.
Reply ErrorReply(int status, const std::string& kind,
                 const std::string& message);

struct RouteOptions {
  int32_t max_client_batch_size = 32;  // inputs in one request
  std::string model_id;                // /info and /v1/embeddings' model
};

class Routes {
 public:
  Routes(ModelHost* host, Batcher* batcher, Metrics* metrics,
         RouteOptions options)
      : host_(host), batcher_(batcher), metrics_(metrics), options_(options) {}

  // Answers one request; `path` without its query string.
  Reply Handle(const std::string& method, const std::string& path,
               const std::string& body);
  // From now on every route but /metrics answers 503 (draining).
  void StartDraining() { draining_ = true; }

 private:
  Reply Route(const std::string& method, const std::string& path,
              const std::string& body, int64_t* tokens);
  ModelHost* host_;
  Batcher* batcher_;
  Metrics* metrics_;
  RouteOptions options_;
  std::atomic<bool> draining_{false};
};

}  // namespace serve
}  // namespace enc

#endif  // ENC_RUNTIME_SERVE_ROUTES_H_
