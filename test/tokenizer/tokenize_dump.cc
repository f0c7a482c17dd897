// Encodes the cases of a JSON-lines corpus with enc/tokenizer.h and prints
// one JSON line per case, for compare.js to hold against Hugging Face
// `tokenizers`:
//
//   tokenize_dump TOKENIZER CORPUS.jsonl [MAX_LENGTH [STRATEGY]]
//
// (with ENC_DUMP_IMAGE=1 in the environment, through the tokenizer's image)
//
// A case is {"text": "...", "pair": "..." (optional), "special": true}; an
// output line {"ids": [...], "type_ids": [...], "mask": [...], "offsets":
// [[b, e], ...] (bytes), "decoded": "..."} or {"error": "..."}.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "enc/tokenizer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: tokenize_dump TOKENIZER CORPUS [MAX [STRATEGY]]\n");
    return 2;
  }
  enc_tokenizer* tok = nullptr;
  if (enc_tokenizer_open(argv[1], &tok) != ENC_OK) {
    std::fprintf(stderr, "open: %s\n", enc_last_error());
    return 1;
  }
  // ENC_DUMP_IMAGE=1: encode with the tokenizer's compiled image (what encc
  // puts into an object), reopened from memory, instead of the file.
  const char* via_image = std::getenv("ENC_DUMP_IMAGE");
  if (via_image != nullptr && std::string(via_image) == "1") {
    size_t size = 0;
    std::string image;
    if (enc_tokenizer_save_image(tok, nullptr, 0, &size) != ENC_OK ||
        (image.resize(size), false) ||
        enc_tokenizer_save_image(tok, image.data(), size, &size) != ENC_OK) {
      std::fprintf(stderr, "save_image: %s\n", enc_last_error());
      return 1;
    }
    enc_tokenizer_free(tok);
    tok = nullptr;
    if (enc_tokenizer_open_memory(image.data(), image.size(), "image", &tok) !=
        ENC_OK) {
      std::fprintf(stderr, "open image: %s\n", enc_last_error());
      return 1;
    }
  }
  if (argc > 3) {
    const int strategy = argc > 4 ? std::atoi(argv[4]) : 0;
    if (enc_tokenizer_set_truncation(tok, std::atoi(argv[3]),
                                     static_cast<enc_truncation>(strategy)) !=
        ENC_OK) {
      std::fprintf(stderr, "truncation: %s\n", enc_last_error());
      return 1;
    }
  }
  std::ifstream in(argv[2]);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json c = nlohmann::json::parse(line);
    const std::string text = c.value("text", "");
    const bool has_pair = c.contains("pair");
    const std::string pair = has_pair ? c["pair"].get<std::string>() : "";
    enc_encoding* e = nullptr;
    nlohmann::json out;
    if (enc_tokenizer_encode(tok, text.data(), text.size(),
                             has_pair ? pair.data() : nullptr, pair.size(),
                             c.value("special", true) ? 1 : 0, &e) != ENC_OK) {
      out["error"] = enc_last_error();
    } else {
      const int32_t n = enc_encoding_length(e);
      const int32_t* ids = enc_encoding_ids(e);
      std::vector<int32_t> v(ids, ids + n);
      out["ids"] = v;
      v.assign(enc_encoding_type_ids(e), enc_encoding_type_ids(e) + n);
      out["type_ids"] = v;
      v.assign(enc_encoding_attention_mask(e),
               enc_encoding_attention_mask(e) + n);
      out["mask"] = v;
      v.assign(enc_encoding_sequence_ids(e), enc_encoding_sequence_ids(e) + n);
      out["seq"] = v;
      std::vector<std::string> tokens;
      for (int32_t i = 0; i < n; ++i) {
        tokens.emplace_back(enc_encoding_token(e, i),
                            enc_encoding_token_length(e, i));
      }
      out["tokens"] = tokens;
      nlohmann::json offsets = nlohmann::json::array();
      for (int32_t i = 0; i < n; ++i) {
        offsets.push_back({enc_encoding_offsets(e)[2 * i],
                           enc_encoding_offsets(e)[2 * i + 1]});
      }
      out["offsets"] = offsets;
      size_t needed = 0;
      enc_tokenizer_decode(tok, ids, n, 1, nullptr, 0, &needed);
      std::string buf(needed, '\0');
      if (enc_tokenizer_decode(tok, ids, n, 1, buf.data(), buf.size(),
                               &needed) == ENC_OK) {
        buf.resize(needed - 1);
        out["decoded"] = buf;
      } else {
        out["decoded_error"] = enc_last_error();
      }
      enc_encoding_free(e);
    }
    std::cout << out.dump(-1, ' ', false,
                          nlohmann::json::error_handler_t::replace)
              << "\n";
  }
  enc_tokenizer_free(tok);
  return 0;
}
