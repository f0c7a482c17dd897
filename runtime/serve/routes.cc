#include "serve/routes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "enc/kernels/classifier.h"
#include "src/json_depth.h"

namespace enc {
namespace serve {
namespace {

using nlohmann::json;

// JSON nested deeper than any request is refused before parsing.
constexpr int kMaxDepth = 32;

// A refusal: thrown inside a route, answered as TEI's error JSON.
struct Refusal {
  int status;
  std::string kind, message;
};

[[noreturn]] void Refuse(int status, const std::string& kind,
                         const std::string& message) {
  throw Refusal{status, kind, message};
}

// The routes that take a body; with /health, /info and /metrics, every
// route there is (and the only values a metric's route label takes).
const char* const kPosts[] = {"/embed",     "/v1/embeddings", "/rerank",
                              "/predict",   "/tokenize",      "/embed_sparse",
                              "/embed_all", "/decode",        "/similarity"};
const char* const kGets[] = {"/health", "/info", "/metrics"};

bool IsOneOf(const std::string& path, const char* const* first,
             const char* const* last) {
  return std::any_of(first, last, [&](const char* p) { return path == p; });
}

// The inputs of one request: none is "Empty", more than the client batch
// size is 413 (TEI's).
void CheckBatch(size_t count, int32_t max_batch) {
  if (count == 0) Refuse(400, "Empty", "batch is empty");
  if (static_cast<int64_t>(count) > max_batch) {
    Refuse(413, "Validation",
           "batch size " + std::to_string(count) +
               " > maximum allowed batch size " + std::to_string(max_batch));
  }
}

json ParseBody(const std::string& body) {
  if (JsonDepth(body) > kMaxDepth) {
    Refuse(400, "Validation",
           "the JSON is nested deeper than " + std::to_string(kMaxDepth) +
               " levels");
  }
  try {
    json j = json::parse(body);
    if (!j.is_object()) {
      Refuse(422, "Validation", "the request body is not a JSON object");
    }
    return j;
  } catch (const json::exception& e) {
    Refuse(400, "Validation",
           std::string("the request body is not valid JSON: ") + e.what());
  }
}

bool Flag(const json& j, const char* key, bool fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    Refuse(422, "Validation", std::string("'") + key + "' is not a boolean");
  }
  return it->get<bool>();
}

// The texts of `key`: a string or a list of strings, not empty.
std::vector<std::string> Texts(const json& j, const char* key,
                               int32_t max_batch) {
  const auto it = j.find(key);
  if (it == j.end()) {
    Refuse(422, "Validation", std::string("missing field '") + key + "'");
  }
  std::vector<std::string> out;
  if (it->is_string()) {
    out.push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (const json& t : *it) {
      if (!t.is_string()) {
        Refuse(422, "Validation",
               std::string("'") + key + "' holds something not a string");
      }
      out.push_back(t.get<std::string>());
    }
  } else {
    Refuse(422, "Validation",
           std::string("'") + key + "' is neither a string nor a list");
  }
  CheckBatch(out.size(), max_batch);
  for (const std::string& t : out) {
    if (t.empty()) Refuse(400, "Empty", "an input is empty");
  }
  return out;
}

// One input of /embed or /v1/embeddings: a text, or token ids taken as
// they are (OpenAI's and text-embeddings-inference's pre-tokenized form).
struct EmbedInput {
  std::string text;
  std::vector<int64_t> ids;
  bool is_ids = false;
};

// The inputs of `key`: a string, token ids, or a list of strings and lists
// of token ids; not empty.
std::vector<EmbedInput> EmbedInputs(const json& j, const char* key,
                                    int32_t max_batch) {
  const auto it = j.find(key);
  if (it == j.end()) {
    Refuse(422, "Validation", std::string("missing field '") + key + "'");
  }
  auto ids_of = [&](const json& list) {
    EmbedInput in;
    in.is_ids = true;
    for (const json& v : list) {
      if (!v.is_number_integer()) {
        Refuse(422, "Validation",
               std::string("'") + key +
                   "' holds a list of token ids with something not an "
                   "integer");
      }
      in.ids.push_back(v.get<int64_t>());
    }
    if (in.ids.empty()) Refuse(400, "Empty", "an input is empty");
    return in;
  };
  std::vector<EmbedInput> out;
  if (it->is_string()) {
    out.push_back({it->get<std::string>(), {}, false});
  } else if (it->is_array() && !it->empty() && (*it)[0].is_number_integer()) {
    out.push_back(ids_of(*it));
  } else if (it->is_array()) {
    for (const json& t : *it) {
      if (t.is_string()) {
        out.push_back({t.get<std::string>(), {}, false});
      } else if (t.is_array()) {
        out.push_back(ids_of(t));
      } else {
        Refuse(422, "Validation",
               std::string("'") + key +
                   "' holds something neither a string nor a list of token "
                   "ids");
      }
    }
  } else {
    Refuse(422, "Validation",
           std::string("'") + key + "' is neither a string nor a list");
  }
  CheckBatch(out.size(), max_batch);
  for (const EmbedInput& in : out) {
    if (!in.is_ids && in.text.empty()) {
      Refuse(400, "Empty", "an input is empty");
    }
  }
  return out;
}

// Runs the model over `seqs`: one row of out_dim floats each, or one per
// token from a model of per-token output.
std::vector<float> Run(Batcher* batcher, std::vector<Sequence> seqs) {
  auto job = std::make_shared<Job>();
  job->seqs = std::move(seqs);
  if (!batcher->Submit(job)) {
    Refuse(429, "Overloaded", "model is overloaded: the queue is full");
  }
  job->Wait();
  if (!job->error.empty()) Refuse(500, "Backend", job->error);
  return std::move(job->rows);
}

void RequireHead(const ModelHost& host, const std::string& route, bool ok,
                 const char* needs) {
  if (!ok) {
    Refuse(400, "Validation",
           "this model (head " + std::string(host.head_name()) + ", pooling " +
               host.pooling_name() + ") cannot serve " + route + ": it needs " +
               needs);
  }
}

std::string Base64(const float* v, size_t n) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = reinterpret_cast<const unsigned char*>(v);
  const size_t bytes = n * sizeof(float);
  std::string out;
  out.reserve((bytes + 2) / 3 * 4);
  for (size_t i = 0; i < bytes; i += 3) {
    const uint32_t b = p[i] << 16 | (i + 1 < bytes ? p[i + 1] << 8 : 0) |
                       (i + 2 < bytes ? p[i + 2] : 0);
    out += kAlphabet[b >> 18 & 63];
    out += kAlphabet[b >> 12 & 63];
    out += i + 1 < bytes ? kAlphabet[b >> 6 & 63] : '=';
    out += i + 2 < bytes ? kAlphabet[b & 63] : '=';
  }
  return out;
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

Reply ErrorReply(int status, const std::string& kind,
                 const std::string& message) {
  Reply r;
  r.status = status;
  r.body = json{{"error", message}, {"error_type", kind}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
  if (status == 429) r.headers.emplace_back("Retry-After", "1");
  return r;
}

Reply Routes::Handle(const std::string& method, const std::string& path,
                     const std::string& body) {
  const auto start = std::chrono::steady_clock::now();
  int64_t tokens = 0;
  Reply reply;
  try {
    reply = Route(method, path, body, &tokens);
  } catch (const Refusal& r) {
    reply = ErrorReply(r.status, r.kind, r.message);
    metrics_->CountError(r.kind);
  } catch (const std::bad_alloc&) {
    reply = ErrorReply(503, "Overloaded", "out of memory");
    metrics_->CountError("Overloaded");
  } catch (const std::exception& e) {
    reply = ErrorReply(500, "Backend", e.what());
    metrics_->CountError("Backend");
  }
  // Known routes only: a client choosing paths cannot grow the metrics.
  const bool known = IsOneOf(path, std::begin(kPosts), std::end(kPosts)) ||
                     IsOneOf(path, std::begin(kGets), std::end(kGets));
  metrics_->CountRequest(known ? path : "other", reply.status);
  if (reply.status == 200 && tokens > 0) {
    metrics_->ObserveRequest(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        tokens);
  }
  return reply;
}

Reply Routes::Route(const std::string& method, const std::string& path,
                    const std::string& body, int64_t* tokens) {
  const enc_encoder_info& info = host_->info();
  Reply reply;
  if (path == "/metrics" && method == "GET") {
    reply.content_type = "text/plain; version=0.0.4";
    reply.body = metrics_->Text(batcher_->Pending());
    return reply;
  }
  if (draining_) {
    Refuse(503, "Unhealthy", "the server is shutting down");
  }
  if (path == "/health" && method == "GET") {
    reply.body = "";
    return reply;
  }
  if (path == "/info" && method == "GET") {
    json model_type;
    switch (static_cast<enc_head_kind>(info.head)) {  // checked at open
      case ENC_HEAD_CLASSIFIER:
        model_type = {{"classifier",
                       {{"id2label", json::object()},
                        {"label2id", json::object()},
                        {"num_labels", info.out_dim}}}};
        for (int32_t i = 0; i < info.out_dim; ++i) {
          model_type["classifier"]["id2label"][std::to_string(i)] =
              "LABEL_" + std::to_string(i);
        }
        break;
      case ENC_HEAD_NONE:
      case ENC_HEAD_DENSE:
      case ENC_HEAD_COLBERT:
      case ENC_HEAD_MLM:
      case ENC_HEAD_SPLADE:
        model_type = {{"embedding", {{"pooling", host_->pooling_name()}}}};
        break;
    }
    reply.body = json{{"model_id", options_.model_id},
                      {"model_type", model_type},
                      {"head", host_->head_name()},
                      {"dimensions", info.out_dim},
                      {"max_input_length", host_->max_input()},
                      {"max_client_batch_size", options_.max_client_batch_size},
                      {"normalized", info.normalize != 0},
                      {"version", "encc"}}
                     .dump();
    return reply;
  }
  const bool known = IsOneOf(path, std::begin(kPosts), std::end(kPosts));
  if (!known && !IsOneOf(path, std::begin(kGets), std::end(kGets))) {
    Refuse(404, "Validation", "no route " + path);
  }
  if (method != "POST" || !known) {
    Refuse(405, "Validation", method + " is not allowed on " + path);
  }
  const json req = ParseBody(body);
  const bool pooled = info.pooling != 0;

  if (path == "/tokenize") {
    const bool special = Flag(req, "add_special_tokens", true);
    json out = json::array();
    for (const std::string& text :
         Texts(req, "inputs", options_.max_client_batch_size)) {
      std::vector<TokenInfo> toks;
      std::string why;
      if (!host_->Tokens(text, special, &toks, &why)) {
        Refuse(422, "Tokenizer", why);
      }
      json list = json::array();
      for (const TokenInfo& t : toks) {
        list.push_back({{"id", t.id},
                        {"text", t.text},
                        {"special", t.special},
                        {"start", t.start < 0 ? json() : json(t.start)},
                        {"stop", t.stop < 0 ? json() : json(t.stop)}});
      }
      out.push_back(std::move(list));
    }
    reply.body = out.dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
  }

  if (path == "/decode") {
    // TEI's form: `ids`, one list of token ids or a list of them.
    const auto it = req.find("ids");
    if (it == req.end()) Refuse(422, "Validation", "missing field 'ids'");
    std::vector<const json*> lists;
    if (it->is_array() && !it->empty() && (*it)[0].is_array()) {
      for (const json& l : *it) lists.push_back(&l);
    } else {
      lists.push_back(&*it);
    }
    CheckBatch(lists.size(), options_.max_client_batch_size);
    const int32_t vocab = enc_tokenizer_vocab_size(host_->tokenizer());
    const bool skip = Flag(req, "skip_special_tokens", true);
    json out = json::array();
    for (const json* l : lists) {
      if (!l->is_array()) {
        Refuse(422, "Validation",
               "'ids' is neither a list of token ids nor a list of them");
      }
      std::vector<int32_t> ids;
      for (const json& v : *l) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
            v.get<int64_t>() >= vocab) {
          Refuse(422, "Validation",
                 "'ids' holds " + v.dump() +
                     ", not a token id of the tokenizer (0 to " +
                     std::to_string(vocab - 1) + ")");
        }
        ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
      }
      std::string text, why;
      if (!host_->Decode(ids, skip, &text, &why)) {
        Refuse(422, "Tokenizer", why);
      }
      out.push_back(std::move(text));
    }
    reply.body = out.dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
  }

  // The routes that run the model: tokenized here, on this thread.
  const bool truncate = Flag(req, "truncate", false);
  auto tokenize = [&](const std::string& text, const std::string* pair) {
    Sequence s;
    bool too_long = false;
    std::string why;
    const std::string_view p = pair ? std::string_view(*pair) : "";
    if (!host_->Tokenize(text, pair ? &p : nullptr, truncate, &s, &too_long,
                         &why)) {
      Refuse(too_long ? 413 : 422, too_long ? "Validation" : "Tokenizer", why);
    }
    *tokens += static_cast<int64_t>(s.ids.size());
    return s;
  };
  // Token ids as they are: no special tokens added, each checked against
  // the vocabulary, the length against the same limit as a text's.
  auto from_ids = [&](const std::vector<int64_t>& ids) {
    if (info.vocab <= 0) {
      Refuse(400, "Validation",
             "this model reads float embeddings, not token ids");
    }
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < 0 || ids[k] >= info.vocab) {
        Refuse(422, "Validation",
               "token id " + std::to_string(ids[k]) + " at position " +
                   std::to_string(k) + " is outside the vocabulary 0.." +
                   std::to_string(info.vocab - 1));
      }
    }
    size_t n = ids.size();
    const size_t limit = static_cast<size_t>(host_->max_input());
    if (n > limit) {
      if (!truncate) {
        Refuse(413, "Validation",
               "input has " + std::to_string(n) +
                   " tokens, more than the model's " + std::to_string(limit) +
                   " (set truncate to cut it)");
      }
      n = limit;
    }
    Sequence s;
    s.ids.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n));
    s.types.assign(n, 0);
    *tokens += static_cast<int64_t>(n);
    return s;
  };
  const size_t width = info.out_dim;

  if (path == "/embed_all") {
    // TEI's: every token's row, special tokens included, as computed.
    RequireHead(*host_, path, !pooled,
                "per-token output (pooling = none, as a colbert head has)");
    const std::vector<EmbedInput> texts =
        EmbedInputs(req, "inputs", options_.max_client_batch_size);
    std::vector<Sequence> seqs;
    for (const EmbedInput& in : texts) {
      seqs.push_back(in.is_ids ? from_ids(in.ids) : tokenize(in.text, nullptr));
    }
    std::vector<size_t> lengths;
    for (const Sequence& s : seqs) lengths.push_back(s.ids.size());
    const std::vector<float> rows = Run(batcher_, std::move(seqs));
    json out = json::array();
    const float* row = rows.data();
    for (size_t len : lengths) {
      json tokens_out = json::array();
      for (size_t t = 0; t < len; ++t, row += width) {
        tokens_out.push_back(std::vector<float>(row, row + width));
      }
      out.push_back(std::move(tokens_out));
    }
    reply.body = out.dump();
    return reply;
  }

  if (path == "/embed" || path == "/v1/embeddings") {
    const bool openai = path == "/v1/embeddings";
    RequireHead(
        *host_, path,
        pooled && (info.head == ENC_HEAD_NONE || info.head == ENC_HEAD_DENSE),
        "pooling and no task head");
    const std::vector<EmbedInput> texts = EmbedInputs(
        req, openai ? "input" : "inputs", options_.max_client_batch_size);
    const bool normalize = openai || Flag(req, "normalize", true);
    if (!normalize && info.normalize) {
      Refuse(400, "Validation",
             "this model normalizes its output (compiled in); normalize = "
             "false cannot be served");
    }
    size_t dims = width;
    if (req.contains("dimensions") && !req["dimensions"].is_null()) {
      const json& d = req["dimensions"];
      if (!d.is_number_integer() || d.get<int64_t>() < 1 ||
          d.get<int64_t>() > static_cast<int64_t>(width)) {
        Refuse(400, "Validation",
               "dimensions must be an integer in [1, " + std::to_string(width) +
                   "]");
      }
      dims = d.get<size_t>();
    }
    std::string format = "float";
    if (openai && req.contains("encoding_format")) {
      if (!req["encoding_format"].is_string() ||
          (req["encoding_format"] != "float" &&
           req["encoding_format"] != "base64")) {
        Refuse(422, "Validation", "encoding_format is float or base64");
      }
      format = req["encoding_format"].get<std::string>();
    }
    std::vector<Sequence> seqs;
    for (const EmbedInput& in : texts) {
      seqs.push_back(in.is_ids ? from_ids(in.ids) : tokenize(in.text, nullptr));
    }
    std::vector<float> rows = Run(batcher_, std::move(seqs));
    json out = json::array();
    for (size_t i = 0; i < texts.size(); ++i) {
      float* row = rows.data() + i * width;
      // A prefix (Matryoshka) is renormalized; a model's own normalized
      // rows at full width are returned as computed.
      if (normalize && (dims != width || !info.normalize)) {
        double sum = 0;
        for (size_t k = 0; k < dims; ++k) sum += double(row[k]) * row[k];
        const float scale =
            sum > 0 ? static_cast<float>(1.0 / std::sqrt(sum)) : 0.0f;
        for (size_t k = 0; k < dims; ++k) row[k] *= scale;
      }
      if (!openai) {
        out.push_back(std::vector<float>(row, row + dims));
      } else if (format == "base64") {
        out.push_back({{"object", "embedding"},
                       {"embedding", Base64(row, dims)},
                       {"index", i}});
      } else {
        out.push_back({{"object", "embedding"},
                       {"embedding", std::vector<float>(row, row + dims)},
                       {"index", i}});
      }
    }
    if (openai) {
      out = {
          {"object", "list"},
          {"data", std::move(out)},
          {"model", req.value("model", options_.model_id)},
          {"usage", {{"prompt_tokens", *tokens}, {"total_tokens", *tokens}}}};
    }
    reply.body = out.dump();
    return reply;
  }

  if (path == "/similarity") {
    // TEI's (and the Hub's sentence-similarity task): the cosine of
    // source_sentence's embedding with each of sentences', one forward.
    RequireHead(
        *host_, path,
        pooled && (info.head == ENC_HEAD_NONE || info.head == ENC_HEAD_DENSE),
        "pooling and no task head");
    const auto it = req.find("inputs");
    if (it == req.end() || !it->is_object()) {
      Refuse(422, "Validation",
             "missing field 'inputs' (an object with 'source_sentence' and "
             "'sentences')");
    }
    const auto source = it->find("source_sentence");
    if (source == it->end() || !source->is_string()) {
      Refuse(422, "Validation",
             "missing field 'inputs.source_sentence' (a string)");
    }
    if (source->get_ref<const std::string&>().empty()) {
      Refuse(400, "Empty", "the source sentence is empty");
    }
    // The source sentence takes one of the batch's places.
    const std::vector<std::string> sentences =
        Texts(*it, "sentences", options_.max_client_batch_size - 1);
    std::vector<Sequence> seqs;
    seqs.push_back(tokenize(source->get<std::string>(), nullptr));
    for (const std::string& t : sentences) seqs.push_back(tokenize(t, nullptr));
    const std::vector<float> rows = Run(batcher_, std::move(seqs));
    auto norm = [&](size_t i) {
      double sum = 0;
      for (size_t k = 0; k < width; ++k) {
        sum += double(rows[i * width + k]) * rows[i * width + k];
      }
      return std::sqrt(sum);
    };
    const double source_norm = norm(0);
    json out = json::array();
    for (size_t i = 1; i <= sentences.size(); ++i) {
      double dot = 0;
      for (size_t k = 0; k < width; ++k) {
        dot += double(rows[k]) * rows[i * width + k];
      }
      const double n = source_norm * norm(i);
      out.push_back(static_cast<float>(n > 0 ? dot / n : 0.0));
    }
    reply.body = out.dump();
    return reply;
  }

  if (path == "/embed_sparse") {
    RequireHead(*host_, path, info.head == ENC_HEAD_SPLADE, "a splade head");
    const std::vector<std::string> texts =
        Texts(req, "inputs", options_.max_client_batch_size);
    std::vector<Sequence> seqs;
    for (const std::string& t : texts) seqs.push_back(tokenize(t, nullptr));
    const std::vector<float> rows = Run(batcher_, std::move(seqs));
    json out = json::array();
    for (size_t i = 0; i < texts.size(); ++i) {
      json list = json::array();
      for (size_t k = 0; k < width; ++k) {
        const float v = rows[i * width + k];
        if (v > 0) list.push_back({{"index", k}, {"value", v}});
      }
      out.push_back(std::move(list));
    }
    reply.body = out.dump();
    return reply;
  }

  // /predict and /rerank: a classifier's logits.
  RequireHead(*host_, path, info.head == ENC_HEAD_CLASSIFIER && pooled,
              "a classifier head");
  // TEI's raw_scores: the logits, else sigmoid (one label) or softmax. A
  // model whose head already applies them (its `scores`) cannot give logits.
  const bool raw = Flag(req, "raw_scores", false);
  if (raw && info.scores != ENC_SCORES_NONE) {
    Refuse(400, "Validation",
           "this model's classifier gives probabilities (scores is compiled "
           "in); raw_scores = true cannot be served");
  }
  auto scores = [&](const float* logits) {
    std::vector<float> s(logits, logits + width);
    if (raw || info.scores != ENC_SCORES_NONE) return s;
    if (width == 1) {
      s[0] = Sigmoid(s[0]);
      return s;
    }
    const float top = *std::max_element(s.begin(), s.end());
    double sum = 0;
    for (float& v : s) sum += v = std::exp(v - top);
    for (float& v : s) v = static_cast<float>(v / sum);
    return s;
  };

  if (path == "/rerank") {
    RequireHead(*host_, path, width == 1, "a classifier with one label");
    const auto q = req.find("query");
    if (q == req.end() || !q->is_string()) {
      Refuse(422, "Validation", "missing field 'query' (a string)");
    }
    const std::string query = q->get<std::string>();
    if (query.empty()) Refuse(400, "Empty", "the query is empty");
    const std::vector<std::string> texts =
        Texts(req, "texts", options_.max_client_batch_size);
    const bool return_text = Flag(req, "return_text", false);
    std::vector<Sequence> seqs;
    for (const std::string& t : texts) seqs.push_back(tokenize(query, &t));
    const std::vector<float> rows = Run(batcher_, std::move(seqs));
    std::vector<size_t> order(texts.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<float> score(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) score[i] = scores(&rows[i])[0];
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return score[a] != score[b] ? score[a] > score[b] : a < b;
    });
    json out = json::array();
    for (size_t i : order) {
      json r = {{"index", i}, {"score", score[i]}};
      if (return_text) r["text"] = texts[i];
      out.push_back(std::move(r));
    }
    reply.body = out.dump();
    return reply;
  }

  // /predict: "text", ["text", "pair"], or a list of either.
  const auto in = req.find("inputs");
  if (in == req.end()) Refuse(422, "Validation", "missing field 'inputs'");
  auto pair_of = [](const json& j) {
    return j.is_array() && j.size() == 2 && j[0].is_string() &&
           j[1].is_string();
  };
  std::vector<std::pair<std::string, std::string>> items;
  bool single = true;
  auto add = [&](const json& j) {
    if (j.is_string()) {
      items.emplace_back(j.get<std::string>(), std::string());
    } else if (pair_of(j)) {
      items.emplace_back(j[0].get<std::string>(), j[1].get<std::string>());
      if (items.back().second.empty()) Refuse(400, "Empty", "a pair is empty");
    } else {
      Refuse(422, "Validation",
             "'inputs' is a text, a [text, pair] list, or a list of those");
    }
    if (items.back().first.empty()) Refuse(400, "Empty", "an input is empty");
  };
  if (in->is_string() || pair_of(*in)) {
    add(*in);
  } else if (in->is_array()) {
    single = false;
    for (const json& j : *in) add(j);
  } else {
    add(*in);  // refused with the message above
  }
  CheckBatch(items.size(), options_.max_client_batch_size);
  std::vector<Sequence> seqs;
  for (const auto& [text, pair] : items) {
    seqs.push_back(tokenize(text, pair.empty() ? nullptr : &pair));
  }
  const std::vector<float> rows = Run(batcher_, std::move(seqs));
  json out = json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::vector<float> s = scores(&rows[i * width]);
    std::vector<size_t> order(width);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return s[a] != s[b] ? s[a] > s[b] : a < b;
    });
    json list = json::array();
    for (size_t k : order) {
      list.push_back(
          {{"score", s[k]}, {"label", "LABEL_" + std::to_string(k)}});
    }
    out.push_back(std::move(list));
  }
  reply.body = (single ? out[0] : out).dump();
  return reply;
}

}  // namespace serve
}  // namespace enc
