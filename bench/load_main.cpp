// Times one NAME_load of a weights file, in a fresh process (load_time.py).
//   c++ -DENC_MODEL=name -include model.h load_main.cpp model.o
//   libenc_runtime.a
#include <chrono>
#include <cstdio>

#include "enc/runtime.h"

#define ENC_CAT2(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT2(a, b)
#define MODEL_LOAD ENC_CAT(ENC_MODEL, _load)
#define MODEL_FREE ENC_CAT(ENC_MODEL, _free)

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: load_main WEIGHTS\n");
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
  std::printf("%.3f\n",
              std::chrono::duration<double, std::milli>(end - start).count());
  MODEL_FREE(model);
  return 0;
}
