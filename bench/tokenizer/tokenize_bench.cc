// encc's tokenizer on the lines of a text file, one thread: the median of
// RUNS passes (each encodes every line with special tokens), as MB/s and
// tokens/s, and the total token count (for hf_tokenize.js to match).
//
//   tokenize_bench TOKENIZER TEXT [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "enc/tokenizer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tokenize_bench TOKENIZER TEXT [RUNS]\n");
    return 2;
  }
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  enc_tokenizer* tok = nullptr;
  if (enc_tokenizer_open(argv[1], &tok) != ENC_OK) {
    std::fprintf(stderr, "%s\n", enc_last_error());
    return 1;
  }
  enc_tokenizer_set_truncation(tok, 0, ENC_TRUNCATE_LONGEST_FIRST);
  enc_tokenizer_set_padding(tok, 0);
  std::ifstream in(argv[2]);
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (std::string l; std::getline(in, l);) {
    bytes += l.size();
    lines.push_back(std::move(l));
  }
  std::vector<double> seconds;
  long long tokens = 0;
  for (int r = 0; r < runs; ++r) {
    tokens = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& l : lines) {
      enc_encoding* e = nullptr;
      if (enc_tokenizer_encode(tok, l.data(), l.size(), nullptr, 0, 1, &e) !=
          ENC_OK) {
        std::fprintf(stderr, "%s\n", enc_last_error());
        return 1;
      }
      tokens += enc_encoding_length(e);
      enc_encoding_free(e);
    }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double s = seconds[seconds.size() / 2];
  std::printf(
      "encc %zu lines %.1f MB %lld tokens: %.3f s, %.1f MB/s, %.2f M "
      "tokens/s\n",
      lines.size(), bytes / 1e6, tokens, s, bytes / 1e6 / s, tokens / 1e6 / s);
  enc_tokenizer_free(tok);
  return 0;
}
