// The time to open a tokenizer, median of RUNS: from the file's bytes in
// memory (parsing the JSON, vocab.txt or .model and building every table),
// from a copy of its compiled image (enc_tokenizer_open_memory: copy,
// checksum, checks), and as a compiled object opens it (the image viewed in
// place, docs/tokenizers.md#compiled-in). Prints one line per way, in ms,
// and the image's size.
//
//   open_bench TOKENIZER [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "enc/tokenizer.h"

extern "C" enc_status enc_tokenizer_embedded(const char* data, size_t size,
                                             const char* name, int32_t max_len,
                                             enc_tokenizer** slot,
                                             const enc_tokenizer** out);

namespace {

template <class F>
double MedianMs(int runs, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t0)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void Check(enc_status s, const char* what) {
  if (s != ENC_OK) {
    std::fprintf(stderr, "%s: %s\n", what, enc_last_error());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: open_bench TOKENIZER [RUNS]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::atoi(argv[2]) : 15;
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string file = buf.str();
  const std::string path = argv[1];
  const std::string name = path.substr(path.rfind('/') + 1);

  enc_tokenizer* tok = nullptr;
  Check(enc_tokenizer_open(argv[1], &tok), "open");
  size_t size = 0;
  Check(enc_tokenizer_save_image(tok, nullptr, 0, &size), "image size");
  // 8-byte aligned, as encc places it in an object.
  std::vector<uint64_t> aligned((size + 7) / 8);
  char* image = reinterpret_cast<char*>(aligned.data());
  Check(enc_tokenizer_save_image(tok, image, size, &size), "image");
  enc_tokenizer_free(tok);

  const double parse = MedianMs(runs, [&] {
    enc_tokenizer* t = nullptr;
    Check(enc_tokenizer_open_memory(file.data(), file.size(), name.c_str(), &t),
          "open_memory(file)");
    enc_tokenizer_free(t);
  });
  const double copy = MedianMs(runs, [&] {
    enc_tokenizer* t = nullptr;
    Check(enc_tokenizer_open_memory(image, size, name.c_str(), &t),
          "open_memory(image)");
    enc_tokenizer_free(t);
  });
  const double in_place = MedianMs(runs, [&] {
    enc_tokenizer* slot = nullptr;
    const enc_tokenizer* t = nullptr;
    Check(enc_tokenizer_embedded(image, size, name.c_str(), 512, &slot, &t),
          "embedded");
    enc_tokenizer_free(slot);
  });
  std::printf("%s: file %zu bytes, image %zu bytes\n", name.c_str(),
              file.size(), size);
  std::printf("%s: open from the file's bytes   %8.2f ms\n", name.c_str(),
              parse);
  std::printf("%s: open from a copy of the image %7.2f ms\n", name.c_str(),
              copy);
  std::printf("%s: open as an object does         %6.3f ms (%.0fx)\n",
              name.c_str(), in_place, parse / in_place);
  return 0;
}
