// Times one NAME_load of a weights file, in a fresh process (load_time.py,
// weights/packed.py). With "forward" it then times one forward of 1 x 8
// tokens too (which reads every weight: a mapped packed file's pages are
// faulted in there); with "hold" it also keeps the model loaded until stdin
// closes, so that its memory can be read from /proc.
//   c++ -DENC_MODEL=name -include model.h load_main.cpp model.o
//   libenc_runtime.a
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "enc/runtime.h"

#define ENC_CAT2(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT2(a, b)
#define MODEL_LOAD ENC_CAT(ENC_MODEL, _load)
#define MODEL_FREE ENC_CAT(ENC_MODEL, _free)
#define MODEL_FORWARD ENC_CAT(ENC_MODEL, _forward)
#define MODEL_VOCAB ENC_CAT(ENC_MODEL, _VOCAB)
#define MODEL_OUT_DIM ENC_CAT(ENC_MODEL, _OUT_DIM)
#define MODEL_D_MODEL ENC_CAT(ENC_MODEL, _D_MODEL)

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[2] : "";
  const bool hold = mode == "hold";
  if (argc != 2 && !hold && mode != "forward") {
    std::fprintf(stderr, "usage: load_main WEIGHTS [forward|hold]\n");
    return 2;
  }
  ENC_MODEL* model = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const enc_status s = MODEL_LOAD(argv[1], &model);
  const auto end = std::chrono::steady_clock::now();
  if (s != ENC_OK) {
    std::fprintf(stderr, "load_main: %s: %s\n", enc_status_name(s),
                 enc_last_error());
    return 3;
  }
  std::printf("%.3f",
              std::chrono::duration<double, std::milli>(end - start).count());
  if (!mode.empty()) {
    constexpr int32_t kSeq = 8;
    int32_t tokens[kSeq];
    std::vector<float> embeddings(kSeq * MODEL_D_MODEL, 0.5f);
    for (int32_t i = 0; i < kSeq; ++i)
      tokens[i] = MODEL_VOCAB > 0 ? i % MODEL_VOCAB : 0;
    enc_input in{};
    in.batch = 1;
    in.seq_len = kSeq;
    in.tokens = tokens;
    in.embeddings = embeddings.data();
    std::vector<float> out(
        kSeq * (MODEL_OUT_DIM > MODEL_D_MODEL ? MODEL_OUT_DIM : MODEL_D_MODEL));
    const auto f0 = std::chrono::steady_clock::now();
    const enc_status fs = MODEL_FORWARD(model, &in, out.data());
    const auto f1 = std::chrono::steady_clock::now();
    if (fs != ENC_OK) {
      std::fprintf(stderr, "load_main: forward: %s\n", enc_last_error());
      return 3;
    }
    std::printf(" %.3f",
                std::chrono::duration<double, std::milli>(f1 - f0).count());
  }
  std::printf("\n");
  if (hold) {
    std::fflush(stdout);
    while (std::getchar() != EOF) {
    }
  }
  MODEL_FREE(model);
  return 0;
}
