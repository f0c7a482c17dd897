// The model enc-serve serves (docs/serve.md): a library built by
// `encc --emit=shared`, opened with dlopen and read through its table of
// encoders (enc/library.h), its weights loaded once, and its compiled-in
// tokenizer opened from the image the library holds. One ModelHost is
// shared by every thread: Tokenize is thread-safe, Forward is called by the
// batcher's one thread.
#ifndef ENC_RUNTIME_SERVE_MODEL_HOST_H_
#define ENC_RUNTIME_SERVE_MODEL_HOST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "enc/library.h"
#include "enc/tokenizer.h"

namespace enc {
namespace serve {

// One sequence for the model: ids and type ids, as many as its length.
struct Sequence {
  std::vector<int32_t> ids, types;
};

// A token of /tokenize's answer.
struct TokenInfo {
  int32_t id;
  std::string text;
  bool special;
  int64_t start, stop;  // byte offsets; -1 for a special token
};

class ModelHost {
 public:
  // Opens `library`, its encoder `encoder` (empty: the only one), loads
  // `weights` and sets the runtime's thread count (0: its default). Null
  // with *why saying what failed.
  static std::unique_ptr<ModelHost> Open(const std::string& library,
                                         const std::string& encoder,
                                         const std::string& weights,
                                         int threads, std::string* why);
  ~ModelHost();
  ModelHost(const ModelHost&) = delete;
  ModelHost& operator=(const ModelHost&) = delete;

  const enc_encoder_info& info() const { return *info_; }
  const std::string& library() const { return library_; }
  // The head's name ("none", "classifier", ...).
  const char* head_name() const;
  const char* pooling_name() const;

  // Encodes `text` (with `pair`, or null) with special tokens. With
  // `truncate` false a sequence over max_input() is refused: false with *why
  // naming its length and the limit, *too_long set.
  bool Tokenize(std::string_view text, const std::string_view* pair,
                bool truncate, Sequence* out, bool* too_long,
                std::string* why) const;
  // The tokens of `text` as /tokenize reports them.
  bool Tokens(std::string_view text, bool add_special,
              std::vector<TokenInfo>* out, std::string* why) const;
  // The text of `ids` as the tokenizer file's decoder joins them (special
  // tokens dropped when `skip_special`); false with *why for an id outside
  // the vocabulary.
  bool Decode(const std::vector<int32_t>& ids, bool skip_special,
              std::string* text, std::string* why) const;
  const enc_tokenizer* tokenizer() const { return tokenizer_; }
  // The most tokens a sequence may have: the tokenizer file's truncation
  // when it sets one, else max_len.
  int32_t max_input() const { return max_input_; }

  // The model's rows for `seqs`, one forward call: out_dim floats per
  // sequence from a pooling model, [seqs, longest, out_dim] from a model of
  // per-token output (pooling = none).
  bool Forward(const std::vector<const Sequence*>& seqs, float* out,
               std::string* why);

 private:
  ModelHost() = default;
  std::string library_;
  void* dl_ = nullptr;
  const enc_encoder_info* info_ = nullptr;
  void* model_ = nullptr;
  const char* (*last_error_)() = nullptr;
  // The compiled-in tokenizer without truncation (a sequence's full length
  // decides "too long"), and the same truncating to max_len.
  enc_tokenizer* tokenizer_ = nullptr;
  enc_tokenizer* truncating_ = nullptr;
  int32_t max_input_ = 0;
};

}  // namespace serve
}  // namespace enc

#endif  // ENC_RUNTIME_SERVE_MODEL_HOST_H_
