// The tokenizer encc compiles into an object (docs/tokenizers.md#compiled-in):
// opened once from its bytes, and texts run through a pooling model in
// batches of similar length.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "enc/tokenizer.h"
#include "src/status.h"
#include "tokenizer/image.h"
#include "tokenizer/tokenizer.h"

using enc::Fail;

namespace {
// One lock for every compiled-in tokenizer: each is opened once per process.
std::mutex g_open_mutex;
constexpr int32_t kBatch = 32;
}  // namespace

extern "C" enc_status enc_tokenizer_embedded(const char* data, size_t size,
                                             const char* name, int32_t max_len,
                                             enc_tokenizer** slot,
                                             const enc_tokenizer** out) {
  const char* fn = "enc_tokenizer_embedded";
  if (slot == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: slot or out is NULL", fn);
  }
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (*slot == nullptr) {
    enc_tokenizer* tok = nullptr;
    if (enc::tok::IsImage(data, size)) {  // viewed in place: nothing parsed
      try {
        auto* image = new enc_tokenizer;
        if (enc_status s = enc::tok::ReadImage(name, data, size,
                                               /*borrow=*/true, image)) {
          delete image;
          return s;
        }
        tok = image;
      } catch (const std::bad_alloc&) {
        return Fail(ENC_ERR_NOMEM, "%s: out of memory", fn);
      }
    } else if (enc_status s =
                   enc_tokenizer_open_memory(data, size, name, &tok)) {
      return s;
    }
    if (tok->truncation.max_length == 0 && max_len > 0) {
      tok->truncation.max_length = max_len;
    }
    *slot = tok;
  }
  *out = *slot;
  return ENC_OK;
}

extern "C" enc_status enc_tokenizer_embed(
    const enc_tokenizer* tok, void* model, enc_model_forward_fn* forward,
    int32_t max_len, int32_t width, int32_t count, const char* const* texts,
    const size_t* lengths_in_bytes, float* out) {
  const char* fn = "enc_tokenizer_embed";
  if (tok == nullptr || forward == nullptr || width <= 0 || max_len <= 0) {
    return Fail(ENC_ERR_INPUT, "%s: tok, forward, width or max_len is bad", fn);
  }
  if (count < 0) return Fail(ENC_ERR_INPUT, "%s: count %d < 0", fn, count);
  if (count == 0) return ENC_OK;
  if (texts == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: texts or out is NULL", fn);
  }
  try {
    // Every text's ids first: a bad one fails the call before any work.
    std::vector<std::vector<int32_t>> ids(count), types(count);
    for (int32_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr) {
        return Fail(ENC_ERR_INPUT, "%s: text %d is NULL", fn, i);
      }
      const size_t n = lengths_in_bytes != nullptr ? lengths_in_bytes[i]
                                                   : std::strlen(texts[i]);
      enc_encoding* e = nullptr;
      if (enc_status s =
              enc_tokenizer_encode(tok, texts[i], n, nullptr, 0, 1, &e)) {
        const std::string why = enc_last_error();
        return Fail(s, "%s: text %d: %s", fn, i, why.c_str());
      }
      // The real tokens: a file's own padding is not the model's input.
      const auto& mask = e->attention_mask;
      const auto real =
          static_cast<size_t>(std::count(mask.begin(), mask.end(), 1));
      ids[i].assign(e->ids.begin(), e->ids.begin() + real);
      types[i].assign(e->type_ids.begin(), e->type_ids.begin() + real);
      enc_encoding_free(e);
      if (real == 0 || real > static_cast<size_t>(max_len)) {
        return Fail(ENC_ERR_INPUT,
                    "%s: text %d has %zu tokens; the model takes 1 to %d "
                    "(set truncation in the tokenizer file)",
                    fn, i, real, max_len);
      }
    }
    std::vector<int32_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return ids[a].size() != ids[b].size() ? ids[a].size() < ids[b].size()
                                            : a < b;
    });
    std::vector<int32_t> tokens, token_types, lengths;
    std::vector<float> rows;
    for (int32_t first = 0; first < count; first += kBatch) {
      const int32_t batch = std::min(kBatch, count - first);
      const auto seq_len = static_cast<int32_t>(
          ids[order[first + batch - 1]].size());  // the longest: sorted
      tokens.assign(static_cast<size_t>(batch) * seq_len, 0);
      token_types.assign(tokens.size(), 0);
      lengths.assign(batch, 0);
      for (int32_t b = 0; b < batch; ++b) {
        const int32_t t = order[first + b];
        std::copy(ids[t].begin(), ids[t].end(),
                  tokens.begin() + static_cast<size_t>(b) * seq_len);
        std::copy(types[t].begin(), types[t].end(),
                  token_types.begin() + static_cast<size_t>(b) * seq_len);
        lengths[b] = static_cast<int32_t>(ids[t].size());
      }
      enc_input in{};
      in.batch = batch;
      in.seq_len = seq_len;
      in.tokens = tokens.data();
      in.token_types = token_types.data();
      in.lengths = lengths.data();
      rows.resize(static_cast<size_t>(batch) * width);
      if (enc_status s = forward(model, &in, rows.data())) return s;
      for (int32_t b = 0; b < batch; ++b) {
        std::copy(rows.begin() + static_cast<size_t>(b) * width,
                  rows.begin() + static_cast<size_t>(b + 1) * width,
                  out + static_cast<size_t>(order[first + b]) * width);
      }
    }
    return ENC_OK;
  } catch (const std::bad_alloc&) {
    return Fail(ENC_ERR_NOMEM, "%s: out of memory", fn);
  }
}
