// libFuzzer targets for the tokenizers (enc/tokenizer.h), one source built
// twice:
//  - fuzz_tokenizer_text (ENC_FUZZ_TEXT): the bytes are a text and a pair
//    (split at the first 0x01) for the tokenizer.json of bert-base-uncased
//    (WordPiece), roberta-base (BPE) and t5-small (Unigram);
//  - fuzz_tokenizer_file: the bytes are a tokenizer file (a SentencePiece
//    .model when they start with 0x0A, a compiled image when they start
//    with its magic, else a tokenizer.json), then a few texts are encoded
//    with it if it opens. An image gets its size and checksum restamped
//    first, as a hostile one would, so the fuzzer reaches the table checks;
//    a file that opens must encode as its own image does.
// Either way the encodings are checked, not only run: the result is ENC_OK
// exactly when the text is valid UTF-8 (checked here independently), every
// id has a token, offsets lie inside their text and do not go backwards
// within it, the arrays have one length, and decode accepts the ids.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "enc/tokenizer.h"
#include "tokenizer/tables.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_tokenizer: %s (last error '%s')\n", what,
               enc_last_error());
  __builtin_trap();
}

// RFC 3629 UTF-8, written for this check (not the runtime's).
bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    int n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated
    for (int k = 1; k <= n; ++k) {
      const unsigned char d = s[i + k];
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

void CheckEncode(const enc_tokenizer* tok, const std::string& a,
                 const std::string* b) {
  enc_encoding* e = nullptr;
  const enc_status s =
      enc_tokenizer_encode(tok, a.data(), a.size(), b ? b->data() : nullptr,
                           b ? b->size() : 0, 1, &e);
  const bool valid = ValidUtf8(a) && (b == nullptr || ValidUtf8(*b));
  if (s != ENC_OK && s != ENC_ERR_INPUT) Violation("an unexpected status");
  if (!valid) {
    if (s == ENC_OK) Violation("invalid UTF-8 accepted");
    if (e != nullptr) Violation("an encoding on failure");
    return;
  }
  if (s != ENC_OK) {
    // Only truncation can refuse a valid text (only_first / only_second).
    return;
  }
  const int32_t n = enc_encoding_length(e);
  const int32_t vocab = enc_tokenizer_vocab_size(tok);
  int64_t last_begin[2] = {0, 0};
  for (int32_t i = 0; i < n; ++i) {
    const int32_t id = enc_encoding_ids(e)[i];
    if (id < 0 || id >= vocab || enc_tokenizer_id_to_token(tok, id) == nullptr)
      Violation("an id without a token");
    const int32_t seq = enc_encoding_sequence_ids(e)[i];
    const int64_t begin = enc_encoding_offsets(e)[2 * i];
    const int64_t end = enc_encoding_offsets(e)[2 * i + 1];
    if (seq < -1 || seq > 1 || (seq == 1 && b == nullptr))
      Violation("a bad sequence id");
    if (seq < 0) continue;
    const size_t len = seq == 0 ? a.size() : b->size();
    if (begin < 0 || end < begin || static_cast<size_t>(end) > len)
      Violation("offsets outside the text");
    if (begin < last_begin[seq]) Violation("offsets go backwards");
    last_begin[seq] = begin;
  }
  size_t needed = 0;
  enc_tokenizer_decode(tok, enc_encoding_ids(e), n, 1, nullptr, 0, &needed);
  std::string text(needed, '\0');
  if (enc_tokenizer_decode(tok, enc_encoding_ids(e), n, 1, text.data(),
                           text.size(), &needed) != ENC_OK) {
    Violation("decode refused the ids of an encoding");
  }
  enc_encoding_free(e);
}

#ifndef ENC_FUZZ_TEXT
// Ids, offsets and tokens of an encoding, or its error.
std::string Summary(const enc_tokenizer* tok, const std::string& text) {
  enc_encoding* e = nullptr;
  if (enc_tokenizer_encode(tok, text.data(), text.size(), nullptr, 0, 1, &e) !=
      ENC_OK) {
    return std::string("error ") + enc_last_error();
  }
  std::string out;
  for (int32_t i = 0; i < enc_encoding_length(e); ++i) {
    out +=
        std::to_string(enc_encoding_ids(e)[i]) + ":" +
        std::to_string(enc_encoding_offsets(e)[2 * i]) + ":" +
        std::string(enc_encoding_token(e, i), enc_encoding_token_length(e, i)) +
        " ";
  }
  enc_encoding_free(e);
  return out;
}

const char* const kTexts[] = {"", "Hello, world!",
                              "naïve café 中文 [CLS] [MASK] ##s", "a\tb\nc"};
#endif

}  // namespace

#ifdef ENC_FUZZ_TEXT
// One file of each model (WordPiece, byte-level BPE, Unigram), opened before
// the first input so that leak detection does not count them.
static enc_tokenizer* g_toks[3];

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* names[3] = {"bert-base-uncased", "roberta-base", "t5-small"};
  for (int i = 0; i < 3; ++i) {
    const std::string path =
        std::string(ENC_FUZZ_TOKENIZERS) + "/" + names[i] + "/tokenizer.json";
    if (enc_tokenizer_open(path.c_str(), &g_toks[i]) != ENC_OK) std::abort();
  }
  return 0;
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
#ifdef ENC_FUZZ_TEXT
  const size_t split = bytes.find('\x01');
  for (enc_tokenizer* tok : g_toks) {
    if (split == std::string::npos) {
      CheckEncode(tok, bytes, nullptr);
    } else {
      const std::string b = bytes.substr(split + 1);
      CheckEncode(tok, bytes.substr(0, split), &b);
    }
  }
#else
  if (size >= 32 && bytes.compare(0, 6, "ENCTOK") == 0) {
    std::string image = bytes;  // restamped: header size and checksum
    const uint64_t body = size - 32;
    const uint64_t sum = enc::tok::HashBytes(image.data() + 32, body);
    image.replace(16, 8, reinterpret_cast<const char*>(&body), 8);
    image.replace(24, 8, reinterpret_cast<const char*>(&sum), 8);
    enc_tokenizer* tok = nullptr;
    if (enc_tokenizer_open_memory(image.data(), image.size(), "image", &tok) !=
        ENC_OK) {
      if (tok != nullptr) Violation("a tokenizer on failure");
      return 0;
    }
    for (const char* text : kTexts) CheckEncode(tok, text, nullptr);
    enc_tokenizer_free(tok);
    return 0;
  }
  // Bytes that start as a ModelProto does (field 1, length-delimited) are
  // a SentencePiece .model file, others a tokenizer.json.
  const bool model = size > 0 && data[0] == 0x0A;
  char json_path[] = "/tmp/fuzz_tokenizer_XXXXXX.json";
  char model_path[] = "/tmp/fuzz_tokenizer_XXXXXX.model";
  char* path = model ? model_path : json_path;
  const int fd = mkstemps(path, model ? 6 : 5);
  if (fd < 0) return 0;
  if (write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    unlink(path);
    return 0;
  }
  close(fd);
  enc_tokenizer* tok = reinterpret_cast<enc_tokenizer*>(path);
  const enc_status s = enc_tokenizer_open(path, &tok);
  unlink(path);
  if (s != ENC_OK) {
    if (tok != nullptr) Violation("a tokenizer on failure");
    if (enc_last_error()[0] == '\0') Violation("a failure without a message");
    return 0;
  }
  for (const char* text : kTexts) {
    const std::string t = text, pair = "the pair";
    CheckEncode(tok, t, nullptr);
    CheckEncode(tok, t, &pair);
  }
  // Its image (what encc compiles in) encodes as it does.
  size_t image_size = 0;
  if (enc_tokenizer_save_image(tok, nullptr, 0, &image_size) != ENC_OK) {
    Violation("no image of a tokenizer that opened");
  }
  std::string image(image_size, '\0');
  enc_tokenizer* again = nullptr;
  if (enc_tokenizer_save_image(tok, image.data(), image.size(), &image_size) !=
          ENC_OK ||
      enc_tokenizer_open_memory(image.data(), image.size(), "image", &again) !=
          ENC_OK) {
    Violation("the image of a tokenizer that opened does not open");
  }
  for (const char* text : kTexts) {
    if (Summary(tok, text) != Summary(again, text)) {
      Violation("the image encodes differently from its file");
    }
  }
  enc_tokenizer_free(again);
  enc_tokenizer_free(tok);
#endif
  return 0;
}
