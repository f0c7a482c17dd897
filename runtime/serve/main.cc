// enc-serve: an HTTP server for a model built by `encc --emit=shared`
// (docs/serve.md). Text-embeddings-inference's routes, token-budget
// batching, a bounded queue (429 when full) and a graceful drain on
// SIGTERM or SIGINT.
#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "serve/batcher.h"
#include "serve/metrics.h"
#include "serve/model_host.h"
#include "serve/routes.h"

namespace {

constexpr const char* kUsage =
    "usage: enc-serve --library LIB.so --weights W [--encoder NAME]\n"
    "    [--host 127.0.0.1] [--port 8080] [--max-batch-tokens 16384]\n"
    "    [--max-batch-requests 64] [--max-queue 256]\n"
    "    [--max-body-bytes 2097152] [--max-client-batch-size 32]\n"
    "    [--threads N] [--model-id ID] [--read-timeout 5]\n"
    "    [--drain-timeout 30] [--batch-gather-us 2000] [--api-key KEY]\n"
    "--port 0 picks a free port; the first line on stdout names it.\n"
    "With --api-key (or ENC_SERVE_API_KEY), every route but /health needs\n"
    "the header 'Authorization: Bearer KEY'.\n";

struct Options {
  std::string library, weights, encoder, host = "127.0.0.1", model_id, api_key;
  int64_t port = 8080, max_batch_tokens = 16384, max_batch_requests = 64,
          max_queue = 256, max_body_bytes = 2097152, max_client_batch_size = 32,
          threads = 0, read_timeout = 5, drain_timeout = 30,
          batch_gather_us = 2000;
};

// Parses argv into *o; false after printing what is wrong.
bool Parse(int argc, char** argv, Options* o) {
  struct Int {
    const char* flag;
    int64_t* value;
    int64_t lo, hi;
  };
  const Int ints[] = {
      {"--port", &o->port, 0, 65535},
      {"--max-batch-tokens", &o->max_batch_tokens, 1, int64_t{1} << 30},
      {"--max-batch-requests", &o->max_batch_requests, 1, 1 << 20},
      {"--max-queue", &o->max_queue, 1, 1 << 16},
      {"--max-body-bytes", &o->max_body_bytes, 1, int64_t{1} << 32},
      {"--max-client-batch-size", &o->max_client_batch_size, 1, 1 << 20},
      {"--threads", &o->threads, 0, 4096},
      {"--read-timeout", &o->read_timeout, 1, 3600},
      {"--drain-timeout", &o->drain_timeout, 0, 3600},
      {"--batch-gather-us", &o->batch_gather_us, 0, 1000000},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "enc-serve: %s needs a value\n%s", a.c_str(),
                   kUsage);
      return false;
    }
    const std::string v = argv[++i];
    if (a == "--library") {
      o->library = v;
    } else if (a == "--weights") {
      o->weights = v;
    } else if (a == "--encoder") {
      o->encoder = v;
    } else if (a == "--host") {
      o->host = v;
    } else if (a == "--model-id") {
      o->model_id = v;
    } else if (a == "--api-key") {
      o->api_key = v;
    } else {
      bool found = false;
      for (const Int& f : ints) {
        if (a != f.flag) continue;
        found = true;
        char* end = nullptr;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < f.lo || n > f.hi) {
          std::fprintf(stderr,
                       "enc-serve: %s %s is not an integer in [%lld, %lld]\n",
                       f.flag, v.c_str(), static_cast<long long>(f.lo),
                       static_cast<long long>(f.hi));
          return false;
        }
        *f.value = n;
      }
      if (!found) {
        std::fprintf(stderr, "enc-serve: unknown option %s\n%s", a.c_str(),
                     kUsage);
        return false;
      }
    }
  }
  if (o->library.empty() || o->weights.empty()) {
    std::fprintf(stderr, "enc-serve: --library and --weights are required\n%s",
                 kUsage);
    return false;
  }
  if (o->model_id.empty()) o->model_id = o->library;
  if (o->api_key.empty()) {
    // The environment keeps the key out of the process list.
    if (const char* key = std::getenv("ENC_SERVE_API_KEY")) o->api_key = key;
  }
  return true;
}

// Whether `header` is "Bearer KEY", compared in time that does not depend on
// where it first differs.
bool Authorized(const std::string& header, const std::string& key) {
  const std::string want = "Bearer " + key;
  if (header.size() != want.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff |= static_cast<unsigned char>(header[i] ^ want[i]);
  }
  return diff == 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) return 2;
  // SIGTERM and SIGINT go to one thread (below), blocked in every other.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is not fatal

  std::string why;
  std::unique_ptr<enc::serve::ModelHost> host = enc::serve::ModelHost::Open(
      o.library, o.encoder, o.weights, static_cast<int>(o.threads), &why);
  if (!host) {
    std::fprintf(stderr, "enc-serve: %s\n", why.c_str());
    return 1;
  }
  enc::serve::Metrics metrics;
  enc::serve::BatcherOptions bo;
  bo.max_batch_tokens = o.max_batch_tokens;
  bo.max_batch_sequences = static_cast<int32_t>(o.max_batch_requests);
  bo.max_queue = static_cast<int32_t>(o.max_queue);
  bo.gather = std::chrono::microseconds(o.batch_gather_us);
  auto batcher =
      std::make_unique<enc::serve::Batcher>(host.get(), &metrics, bo);
  enc::serve::RouteOptions ro;
  ro.max_client_batch_size = static_cast<int32_t>(o.max_client_batch_size);
  ro.model_id = o.model_id;
  enc::serve::Routes routes(host.get(), batcher.get(), &metrics, ro);

  httplib::Server server;
  // More HTTP workers than the queue holds: overload shows as 429s, not as
  // connections left waiting to be accepted.
  const size_t workers = static_cast<size_t>(o.max_queue) + 32;
  server.new_task_queue = [workers] {
    return new httplib::ThreadPool(workers);
  };
  server.set_payload_max_length(static_cast<size_t>(o.max_body_bytes));
  // cpp-httplib closes a connection after 5 requests by default; clients
  // that keep one open (as load balancers and SDKs do) should not pay a
  // reconnect every fifth request.
  server.set_keep_alive_max_count(100000);
  server.set_read_timeout(static_cast<time_t>(o.read_timeout));
  server.set_write_timeout(static_cast<time_t>(o.read_timeout));
  std::atomic<int> in_flight{0};
  auto handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (!o.api_key.empty() && req.path != "/health" &&
        !Authorized(req.get_header_value("Authorization"), o.api_key)) {
      const enc::serve::Reply r = enc::serve::ErrorReply(
          401, "Unauthorized",
          "this server needs the header 'Authorization: Bearer <its key>'");
      metrics.CountError("Unauthorized");
      res.status = r.status;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content(r.body, r.content_type.c_str());
      return;
    }
    ++in_flight;
    const enc::serve::Reply r = routes.Handle(req.method, req.path, req.body);
    res.status = r.status;
    for (const auto& [k, v] : r.headers) res.set_header(k, v);
    res.set_content(r.body, r.content_type.c_str());
    --in_flight;
  };
  server.Get(".*", handle);
  server.Post(".*", handle);
  server.Put(".*", handle);
  server.Delete(".*", handle);
  server.Patch(".*", handle);
  // What the HTTP layer refuses itself (a body over the limit, a request
  // it cannot parse) answers as TEI's error JSON too.
  server.set_error_handler(
      [&](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        // cpp-httplib caps form-encoded bodies (curl -d's default type) lower.
        const bool form = req.get_header_value("Content-Type") ==
                          "application/x-www-form-urlencoded";
        const std::string message =
            res.status != 413 ? "the request is malformed (HTTP " +
                                    std::to_string(res.status) + ")"
            : form ? "a form-encoded body is limited to 8192 bytes: send "
                     "Content-Type: application/json"
                   : "the request body is larger than --max-body-bytes (" +
                         std::to_string(o.max_body_bytes) + ")";
        const enc::serve::Reply r =
            enc::serve::ErrorReply(res.status, "Validation", message);
        metrics.CountError("Validation");
        res.set_content(r.body, r.content_type.c_str());
      });

  // cpp-httplib listens with a backlog of 5: a burst of new connections
  // then waits out SYN retries (1 s, 3 s). Linux lets listen() be called
  // again on the bound socket to raise it.
  int listen_fd = -1;
  server.set_tcp_nodelay(true);
  server.set_socket_options([&listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd = sock;
  });
  int port = static_cast<int>(o.port);
  if (port == 0) {
    port = server.bind_to_any_port(o.host);
  } else if (!server.bind_to_port(o.host, port)) {
    port = -1;
  }
  if (port >= 0 && listen_fd >= 0) ::listen(listen_fd, 4096);
  if (port < 0) {
    std::fprintf(stderr, "enc-serve: cannot listen on %s:%lld\n",
                 o.host.c_str(), static_cast<long long>(o.port));
    return 1;
  }
  std::printf(
      "enc-serve: listening on http://%s:%d (%s, head %s, out_dim %d)\n",
      o.host.c_str(), port, host->info().name, host->head_name(),
      host->info().out_dim);
  std::fflush(stdout);

  // The drain: on a signal, every new request answers 503; what is queued
  // and in flight finishes (within --drain-timeout); then the server stops.
  std::thread drain([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    routes.StartDraining();
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::seconds(o.drain_timeout);
    while ((batcher->Pending() > 0 || in_flight.load() > 0) &&
           std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::fprintf(stderr, "enc-serve: signal %d: drained (%d still queued)\n",
                 sig, batcher->Pending());
    server.stop();
  });
  const bool ok = server.listen_after_bind();
  if (!ok) kill(getpid(), SIGTERM);  // the drain thread waits for a signal
  drain.join();
  batcher.reset();
  return ok ? 0 : 1;
}
