// The C ABI of enc/tokenizer.h over enc_tokenizer (tokenizer/tokenizer.h):
// argument checks, and no C++ exception past it.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "enc/tokenizer.h"
#include "src/status.h"
#include "tokenizer/image.h"
#include "tokenizer/tokenizer.h"

namespace enc {
namespace tok {
enc_status Load(const char* path, enc_tokenizer* tok);
enc_status LoadBytes(const char* name, const std::string& bytes,
                     enc_tokenizer* tok);
enc_status LoadVocabTxt(const char* path, const std::string& text,
                        bool lowercase, enc_tokenizer* tok);
}  // namespace tok
}  // namespace enc

using enc::Fail;

namespace {

// The calling thread's last error again, prefixed with fn (copied first:
// Fail writes the buffer enc_last_error reads).
enc_status Prefixed(enc_status s, const char* fn) {
  const std::string message = enc_last_error();
  return Fail(s, "%s: %s", fn, message.c_str());
}

// Runs f, turning an allocation failure into ENC_ERR_NOMEM.
template <class F>
enc_status Guarded(const char* fn, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Fail(ENC_ERR_NOMEM, "%s: out of memory", fn);
  } catch (const std::exception& e) {
    return Fail(ENC_ERR_INPUT, "%s: %s", fn, e.what());
  }
}

enc_status Open(const char* fn, const char* path, int lowercase,
                enc_tokenizer** out) {
  if (out == nullptr) return Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (path == nullptr) return Fail(ENC_ERR_INPUT, "%s: path is NULL", fn);
  return Guarded(fn, [&] {
    auto* tok = new enc_tokenizer;
    enc_status s = ENC_OK;
    if (lowercase < 0) {
      s = enc::tok::Load(path, tok);
    } else {
      std::string text;
      FILE* f = std::fopen(path, "rb");
      if (f == nullptr) {
        delete tok;
        return Fail(ENC_ERR_IO, "%s: cannot open", path);
      }
      char buf[1 << 16];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
        text.append(buf, n);
      }
      std::fclose(f);
      s = enc::tok::LoadVocabTxt(path, text, lowercase != 0, tok);
    }
    if (s != ENC_OK) {
      delete tok;
      return s;
    }
    *out = tok;
    return ENC_OK;
  });
}

}  // namespace

extern "C" enc_status enc_tokenizer_open(const char* path,
                                         enc_tokenizer** out) {
  return Open("enc_tokenizer_open", path, -1, out);
}

extern "C" enc_status enc_tokenizer_open_vocab(const char* path, int lowercase,
                                               enc_tokenizer** out) {
  return Open("enc_tokenizer_open_vocab", path, lowercase != 0, out);
}

extern "C" enc_status enc_tokenizer_open_memory(const char* data, size_t size,
                                                const char* name,
                                                enc_tokenizer** out) {
  const char* fn = "enc_tokenizer_open_memory";
  if (out == nullptr) return Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (data == nullptr && size != 0) {
    return Fail(ENC_ERR_INPUT, "%s: data is NULL", fn);
  }
  if (name == nullptr) name = "<memory>";
  return Guarded(fn, [&] {
    auto* tok = new enc_tokenizer;
    // An image is copied once, into its aligned home; a file's bytes are
    // parsed from a string.
    const enc_status s =
        enc::tok::IsImage(data, size)
            ? enc::tok::ReadImage(name, data, size, /*borrow=*/false, tok)
            : enc::tok::LoadBytes(
                  name, std::string(data == nullptr ? "" : data, size), tok);
    if (s != ENC_OK) {
      delete tok;
      return s;
    }
    *out = tok;
    return ENC_OK;
  });
}

extern "C" void enc_tokenizer_free(enc_tokenizer* tok) { delete tok; }

extern "C" enc_status enc_tokenizer_save_image(const enc_tokenizer* tok,
                                               char* buf, size_t capacity,
                                               size_t* size) {
  const char* fn = "enc_tokenizer_save_image";
  if (tok == nullptr || size == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: tok or size is NULL", fn);
  }
  return Guarded(fn, [&] {
    const std::string image = enc::tok::WriteImage(*tok);
    *size = image.size();
    if (capacity == 0) return ENC_OK;
    if (buf == nullptr || capacity < image.size()) {
      return Fail(ENC_ERR_INPUT,
                  "%s: the image takes %zu bytes, capacity is %zu", fn,
                  image.size(), capacity);
    }
    std::memcpy(buf, image.data(), image.size());
    return ENC_OK;
  });
}

extern "C" enc_status enc_tokenizer_set_truncation(enc_tokenizer* tok,
                                                   int32_t max_length,
                                                   enc_truncation strategy) {
  const char* fn = "enc_tokenizer_set_truncation";
  if (tok == nullptr) return Fail(ENC_ERR_INPUT, "%s: tok is NULL", fn);
  if (max_length < 0) {
    return Fail(ENC_ERR_INPUT, "%s: max_length (%d) is negative", fn,
                max_length);
  }
  const int s = enc::EnumArg(strategy);
  if (s != ENC_TRUNCATE_LONGEST_FIRST && s != ENC_TRUNCATE_ONLY_FIRST &&
      s != ENC_TRUNCATE_ONLY_SECOND) {
    return Fail(ENC_ERR_INPUT, "%s: unknown strategy %d", fn, s);
  }
  if (max_length > 0 && max_length < tok->post.Added(true)) {
    return Fail(ENC_ERR_INPUT,
                "%s: max_length (%d) is less than the %d special tokens of a "
                "pair",
                fn, max_length, tok->post.Added(true));
  }
  tok->truncation.max_length = max_length;
  tok->truncation.strategy = strategy;
  return ENC_OK;
}

extern "C" enc_status enc_tokenizer_set_padding(enc_tokenizer* tok,
                                                int32_t length) {
  if (tok == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_tokenizer_set_padding: tok is NULL");
  }
  if (length < 0) {
    return Fail(ENC_ERR_INPUT, "enc_tokenizer_set_padding: length %d < 0",
                length);
  }
  tok->padding.length = length;
  tok->padding.batch_longest = false;
  return ENC_OK;
}

extern "C" enc_status enc_tokenizer_encode(const enc_tokenizer* tok,
                                           const char* text, size_t text_len,
                                           const char* pair, size_t pair_len,
                                           int add_special_tokens,
                                           enc_encoding** out) {
  const char* fn = "enc_tokenizer_encode";
  if (out == nullptr) return Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (tok == nullptr) return Fail(ENC_ERR_INPUT, "%s: tok is NULL", fn);
  if (text == nullptr && text_len > 0) {
    return Fail(ENC_ERR_INPUT, "%s: text is NULL", fn);
  }
  return Guarded(fn, [&] {
    auto* e = new enc_encoding;
    const std::string_view a(text != nullptr ? text : "", text_len);
    const std::string_view b(pair != nullptr ? pair : "", pair_len);
    if (enc_status s = tok->Encode(a, pair != nullptr ? &b : nullptr,
                                   add_special_tokens != 0, e)) {
      delete e;
      return Prefixed(s, fn);
    }
    *out = e;
    return ENC_OK;
  });
}

extern "C" void enc_encoding_free(enc_encoding* e) { delete e; }

extern "C" int32_t enc_encoding_length(const enc_encoding* e) {
  return e == nullptr ? 0 : static_cast<int32_t>(e->ids.size());
}
extern "C" const int32_t* enc_encoding_ids(const enc_encoding* e) {
  return e == nullptr ? nullptr : e->ids.data();
}
extern "C" const int32_t* enc_encoding_type_ids(const enc_encoding* e) {
  return e == nullptr ? nullptr : e->type_ids.data();
}
extern "C" const int32_t* enc_encoding_attention_mask(const enc_encoding* e) {
  return e == nullptr ? nullptr : e->attention_mask.data();
}
extern "C" const int32_t* enc_encoding_sequence_ids(const enc_encoding* e) {
  return e == nullptr ? nullptr : e->sequence_ids.data();
}
extern "C" const int64_t* enc_encoding_offsets(const enc_encoding* e) {
  return e == nullptr ? nullptr : e->offsets.data();
}
extern "C" const char* enc_encoding_token(const enc_encoding* e, int32_t i) {
  if (e == nullptr || i < 0 || static_cast<size_t>(i) >= e->tokens.size()) {
    return nullptr;
  }
  return e->tokens[i].c_str();
}

extern "C" size_t enc_encoding_token_length(const enc_encoding* e, int32_t i) {
  if (e == nullptr || i < 0 || static_cast<size_t>(i) >= e->tokens.size()) {
    return 0;
  }
  return e->tokens[i].size();
}

extern "C" enc_status enc_tokenizer_encode_batch(
    const enc_tokenizer* tok, int32_t count, const char* const* texts,
    const size_t* lengths_in_bytes, int64_t capacity, int32_t* tokens,
    int32_t* token_types, int32_t* lengths, int32_t* seq_len) {
  const char* fn = "enc_tokenizer_encode_batch";
  if (tok == nullptr || seq_len == nullptr || lengths == nullptr ||
      tokens == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: tok, tokens, lengths or seq_len is NULL",
                fn);
  }
  if (count < 0 ||
      (count > 0 && (texts == nullptr || lengths_in_bytes == nullptr))) {
    return Fail(ENC_ERR_INPUT, "%s: bad count or texts", fn);
  }
  *seq_len = 0;
  return Guarded(fn, [&] {
    std::vector<enc_encoding> all(static_cast<size_t>(count));
    int32_t longest = 0;
    for (int32_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr && lengths_in_bytes[i] > 0) {
        return Fail(ENC_ERR_INPUT, "%s: text %d is NULL", fn, i);
      }
      const std::string_view t(texts[i] != nullptr ? texts[i] : "",
                               lengths_in_bytes[i]);
      if (enc_status s = tok->Encode(t, nullptr, true, &all[i])) {
        const std::string message = enc_last_error();
        return Fail(s, "%s: text %d: %s", fn, i, message.c_str());
      }
      int32_t len = 0;  // the unpadded length
      for (int32_t m : all[i].attention_mask) len += m;
      lengths[i] = len;
      longest = std::max(longest, len);
    }
    *seq_len = longest;
    if (static_cast<int64_t>(count) * longest > capacity) {
      return Fail(ENC_ERR_INPUT,
                  "%s: %d texts of up to %d tokens need %lld elements, the "
                  "buffers hold %lld",
                  fn, count, longest, static_cast<long long>(count) * longest,
                  static_cast<long long>(capacity));
    }
    for (int32_t i = 0; i < count; ++i) {
      for (int32_t j = 0; j < longest; ++j) {
        const bool real = j < lengths[i];
        const size_t at = static_cast<size_t>(i) * longest + j;
        tokens[at] = real ? all[i].ids[j] : tok->padding.pad_id;
        if (token_types != nullptr) {
          token_types[at] =
              real ? all[i].type_ids[j] : tok->padding.pad_type_id;
        }
      }
    }
    return ENC_OK;
  });
}

extern "C" enc_status enc_tokenizer_decode(const enc_tokenizer* tok,
                                           const int32_t* ids, int32_t count,
                                           int skip_special_tokens, char* buf,
                                           size_t capacity, size_t* needed) {
  const char* fn = "enc_tokenizer_decode";
  if (tok == nullptr || needed == nullptr || (ids == nullptr && count > 0) ||
      count < 0) {
    return Fail(ENC_ERR_INPUT, "%s: bad arguments", fn);
  }
  return Guarded(fn, [&] {
    std::string text;
    if (enc_status s =
            tok->Decode(ids, count, skip_special_tokens != 0, &text)) {
      return Prefixed(s, fn);
    }
    *needed = text.size() + 1;
    if (buf == nullptr || capacity < text.size() + 1) {
      return Fail(ENC_ERR_INPUT,
                  "%s: the text needs %zu bytes, the buffer "
                  "holds %zu",
                  fn, text.size() + 1, capacity);
    }
    std::memcpy(buf, text.c_str(), text.size() + 1);
    return ENC_OK;
  });
}

extern "C" int32_t enc_tokenizer_token_to_id(const enc_tokenizer* tok,
                                             const char* token, size_t len) {
  if (tok == nullptr || token == nullptr) return -1;
  const std::string t(token, len);
  for (const auto& a : tok->added) {
    if (a.content == t) return a.id;
  }
  return tok->token_to_id.Find(t);
}

extern "C" const char* enc_tokenizer_id_to_token(const enc_tokenizer* tok,
                                                 int32_t id) {
  if (tok == nullptr || id < 0 ||
      static_cast<size_t>(id) >= tok->id_to_token.size() ||
      tok->id_to_token.Get(id).empty()) {
    return nullptr;
  }
  return tok->id_to_token.CStr(id);
}

extern "C" int32_t enc_tokenizer_vocab_size(const enc_tokenizer* tok) {
  return tok == nullptr ? 0 : static_cast<int32_t>(tok->id_to_token.size());
}

extern "C" int32_t enc_tokenizer_max_type_id(const enc_tokenizer* tok) {
  int32_t most = 0;
  if (tok == nullptr) return most;
  for (const auto* pieces : {&tok->post.single, &tok->post.pair}) {
    for (const enc::tok::TemplatePiece& p : *pieces) {
      most = std::max(most, p.type_id);
    }
  }
  return std::max(most, tok->padding.pad_type_id);
}

extern "C" int32_t enc_tokenizer_truncation_length(const enc_tokenizer* tok) {
  return tok == nullptr ? 0 : tok->truncation.max_length;
}
