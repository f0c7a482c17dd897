#include "serve/model_host.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

namespace enc {
namespace serve {
namespace {

const char* kHeads[] = {"none", "classifier", "colbert",
                        "mlm",  "splade",     "dense"};  // enc_head_kind
const char* kPoolings[] = {"none", "cls", "mean", "max", "last"};

// The status name and message of the library's last error.
std::string LibraryError(const char* (*last_error)(), const char* what) {
  return std::string(what) + ": " +
         (last_error != nullptr ? last_error() : "(no message)");
}

}  // namespace

std::unique_ptr<ModelHost> ModelHost::Open(const std::string& library,
                                           const std::string& encoder,
                                           const std::string& weights,
                                           int threads, std::string* why) {
  std::unique_ptr<ModelHost> host(new ModelHost);
  host->library_ = library;
  // RTLD_NODELETE: the library's pool threads are parked in its code at
  // exit, so it must stay mapped after dlclose.
  host->dl_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (host->dl_ == nullptr) {
    *why = library + ": cannot load the library: " + dlerror();
    return nullptr;
  }
  auto* encoders = reinterpret_cast<enc_library_encoders_fn*>(
      dlsym(host->dl_, "enc_library_encoders"));
  host->last_error_ =
      reinterpret_cast<const char* (*)()>(dlsym(host->dl_, "enc_last_error"));
  if (encoders == nullptr) {
    *why = library +
           " is not a library built by encc --emit=shared (it has no "
           "enc_library_encoders)";
    return nullptr;
  }
  int32_t count = 0;
  const enc_encoder_info* table = encoders(&count);
  if (table == nullptr || count < 1) {
    *why = library + " lists no encoders";
    return nullptr;
  }
  if (table[0].abi_version != ENC_LIBRARY_ABI_VERSION) {
    *why = library + " describes its encoders in layout version " +
           std::to_string(table[0].abi_version) + "; enc-serve reads " +
           std::to_string(ENC_LIBRARY_ABI_VERSION);
    return nullptr;
  }
  std::string names;
  for (int32_t i = 0; i < count; ++i) {
    names += std::string(i ? ", " : "") + table[i].name;
    if (encoder.empty() ? count == 1 : encoder == table[i].name) {
      host->info_ = &table[i];
    }
  }
  if (host->info_ == nullptr) {
    *why = encoder.empty() ? library + " holds several encoders (" + names +
                                 "): choose one with --encoder"
                           : library + " has no encoder '" + encoder +
                                 "' (it has " + names + ")";
    return nullptr;
  }
  const enc_encoder_info& info = *host->info_;
  if (info.head < ENC_HEAD_NONE || info.head > ENC_HEAD_DENSE ||
      info.pooling < 0 || info.pooling > 4 || info.out_dim < 1) {
    *why = std::string(info.name) + ": head " + std::to_string(info.head) +
           " or pooling " + std::to_string(info.pooling) +
           " is not one enc-serve knows";
    return nullptr;
  }
  if (info.vocab == 0) {
    *why = std::string(info.name) +
           " takes float embeddings, not tokens: it cannot serve text";
    return nullptr;
  }
  // The compiled-in tokenizer, from the library's image.
  using FileFn = enc_status(const char**, size_t*, const char**);
  auto* file = reinterpret_cast<FileFn*>(
      dlsym(host->dl_, (std::string(info.name) + "_tokenizer_file").c_str()));
  if (file == nullptr) {
    *why = std::string(info.name) +
           " has no compiled-in tokenizer: set `tokenizer = \"...\";` in its "
           ".enc (docs/tokenizers.md#compiled-in)";
    return nullptr;
  }
  const char* data = nullptr;
  const char* name = nullptr;
  size_t size = 0;
  if (file(&data, &size, &name) != ENC_OK ||
      enc_tokenizer_open_memory(data, size, name, &host->tokenizer_) !=
          ENC_OK ||
      enc_tokenizer_open_memory(data, size, name, &host->truncating_) !=
          ENC_OK) {
    *why = std::string(info.name) + ": its tokenizer: " + enc_last_error();
    return nullptr;
  }
  // The limit is the file's truncation when it sets one (as the library's
  // NAME_embed_text), else max_len.
  const int32_t file_limit = enc_tokenizer_truncation_length(host->tokenizer_);
  host->max_input_ =
      file_limit > 0 && file_limit < info.max_len ? file_limit : info.max_len;
  if (enc_tokenizer_set_truncation(host->tokenizer_, 0,
                                   ENC_TRUNCATE_LONGEST_FIRST) != ENC_OK ||
      enc_tokenizer_set_truncation(host->truncating_, host->max_input_,
                                   ENC_TRUNCATE_LONGEST_FIRST) != ENC_OK ||
      enc_tokenizer_set_padding(host->tokenizer_, 0) != ENC_OK ||
      enc_tokenizer_set_padding(host->truncating_, 0) != ENC_OK) {
    *why = std::string(info.name) + ": its tokenizer: " + enc_last_error();
    return nullptr;
  }
  if (threads > 0) {
    using ThreadsFn = int(int);
    auto* set =
        reinterpret_cast<ThreadsFn*>(dlsym(host->dl_, "enc_set_num_threads"));
    if (set != nullptr) set(threads);
  }
  if (info.load(weights.c_str(), &host->model_) != ENC_OK) {
    *why = LibraryError(host->last_error_, "loading the weights");
    return nullptr;
  }
  return host;
}

ModelHost::~ModelHost() {
  if (model_ != nullptr) info_->free(model_);
  enc_tokenizer_free(tokenizer_);
  enc_tokenizer_free(truncating_);
  if (dl_ != nullptr) dlclose(dl_);
}

const char* ModelHost::head_name() const {
  const int32_t h = info_->head;
  return h >= 0 && h < 6 ? kHeads[h] : "?";
}

const char* ModelHost::pooling_name() const {
  const int32_t p = info_->pooling;
  return p >= 0 && p < 5 ? kPoolings[p] : "?";
}

bool ModelHost::Tokenize(std::string_view text, const std::string_view* pair,
                         bool truncate, Sequence* out, bool* too_long,
                         std::string* why) const {
  *too_long = false;
  enc_encoding* e = nullptr;
  if (enc_tokenizer_encode(tokenizer_, text.data(), text.size(),
                           pair ? pair->data() : nullptr,
                           pair ? pair->size() : 0, 1, &e) != ENC_OK) {
    *why = enc_last_error();
    return false;
  }
  int32_t n = enc_encoding_length(e);
  if (n > max_input_) {
    enc_encoding_free(e);
    if (!truncate) {
      *too_long = true;
      *why = "input has " + std::to_string(n) +
             " tokens, more than the model's " + std::to_string(max_input_) +
             " (set truncate to cut it)";
      return false;
    }
    if (enc_tokenizer_encode(truncating_, text.data(), text.size(),
                             pair ? pair->data() : nullptr,
                             pair ? pair->size() : 0, 1, &e) != ENC_OK) {
      *why = enc_last_error();
      return false;
    }
    n = enc_encoding_length(e);
  }
  if (n == 0) {
    enc_encoding_free(e);
    *why = "the input has no tokens";
    return false;
  }
  out->ids.assign(enc_encoding_ids(e), enc_encoding_ids(e) + n);
  out->types.assign(enc_encoding_type_ids(e), enc_encoding_type_ids(e) + n);
  enc_encoding_free(e);
  return true;
}

bool ModelHost::Tokens(std::string_view text, bool add_special,
                       std::vector<TokenInfo>* out, std::string* why) const {
  enc_encoding* e = nullptr;
  if (enc_tokenizer_encode(truncating_, text.data(), text.size(), nullptr, 0,
                           add_special ? 1 : 0, &e) != ENC_OK) {
    *why = enc_last_error();
    return false;
  }
  const int32_t n = enc_encoding_length(e);
  out->clear();
  for (int32_t i = 0; i < n; ++i) {
    const bool special = enc_encoding_sequence_ids(e)[i] < 0;
    const int64_t* off = enc_encoding_offsets(e) + 2 * i;
    out->push_back(TokenInfo{
        enc_encoding_ids(e)[i],
        std::string(enc_encoding_token(e, i), enc_encoding_token_length(e, i)),
        special, special ? -1 : off[0], special ? -1 : off[1]});
  }
  enc_encoding_free(e);
  return true;
}

bool ModelHost::Decode(const std::vector<int32_t>& ids, bool skip_special,
                       std::string* text, std::string* why) const {
  const auto count = static_cast<int32_t>(ids.size());
  // One decode in the common case: a buffer that holds 32 bytes a token;
  // a longer text says how much it needs, and is decoded again into that.
  std::string buf(ids.size() * 32 + 1, '\0');
  size_t needed = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (enc_tokenizer_decode(tokenizer_, ids.data(), count,
                             skip_special ? 1 : 0, buf.data(), buf.size(),
                             &needed) == ENC_OK) {
      buf.resize(needed - 1);  // without the NUL
      *text = std::move(buf);
      return true;
    }
    if (needed <= buf.size()) break;  // not a size problem: a bad id
    buf.assign(needed, '\0');
  }
  *why = enc_last_error();
  return false;
}

bool ModelHost::Forward(const std::vector<const Sequence*>& seqs, float* out,
                        std::string* why) {
  int32_t seq_len = 0;
  for (const Sequence* s : seqs) {
    seq_len = std::max(seq_len, static_cast<int32_t>(s->ids.size()));
  }
  const auto batch = static_cast<int32_t>(seqs.size());
  std::vector<int32_t> tokens(static_cast<size_t>(batch) * seq_len, 0);
  std::vector<int32_t> types(tokens.size(), 0);
  std::vector<int32_t> lengths(batch);
  for (int32_t b = 0; b < batch; ++b) {
    const Sequence& s = *seqs[b];
    std::copy(s.ids.begin(), s.ids.end(),
              tokens.begin() + static_cast<size_t>(b) * seq_len);
    std::copy(s.types.begin(), s.types.end(),
              types.begin() + static_cast<size_t>(b) * seq_len);
    lengths[b] = static_cast<int32_t>(s.ids.size());
  }
  enc_input in{};
  in.batch = batch;
  in.seq_len = seq_len;
  in.tokens = tokens.data();
  in.token_types = info_->type_vocab > 0 ? types.data() : nullptr;
  in.lengths = lengths.data();
  if (info_->forward(model_, &in, out) != ENC_OK) {
    *why = LibraryError(last_error_, "forward");
    return false;
  }
  return true;
}

}  // namespace serve
}  // namespace enc
