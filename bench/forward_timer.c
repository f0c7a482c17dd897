/* Times NAME_forward called from C on a shared library of
 * `encc --emit=shared`, the baseline bench/python_overhead.py compares
 * enc.Model.forward with: the same library, weights and input.
 *
 * usage: forward_timer LIB WEIGHTS INPUT.bin BATCH SEQ REPS ROUNDS
 * INPUT.bin holds int32 ids [BATCH, SEQ] (vocab > 0) or float32 embeddings
 * [BATCH, SEQ, d_model]. Prints one line per round: the mean nanoseconds
 * per call over REPS calls. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "enc/library.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s LIB WEIGHTS INPUT.bin BATCH SEQ REPS ROUNDS\n",
            argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  enc_library_encoders_fn *list =
      lib ? (enc_library_encoders_fn *)dlsym(lib, "enc_library_encoders")
          : NULL;
  if (!list) {
    fprintf(stderr, "forward_timer: %s is not an encc library\n", argv[1]);
    return 2;
  }
  int32_t count = 0;
  const enc_encoder_info *info = list(&count);
  int batch = atoi(argv[4]), seq = atoi(argv[5]), reps = atoi(argv[6]),
      rounds = atoi(argv[7]);
  size_t in_bytes =
      (size_t)batch * seq * (info->vocab > 0 ? 4 : 4 * info->d_model);
  void *input = malloc(in_bytes);
  FILE *f = fopen(argv[3], "rb");
  if (!f || fread(input, 1, in_bytes, f) != in_bytes) {
    fprintf(stderr, "forward_timer: cannot read %zu bytes from %s\n", in_bytes,
            argv[3]);
    return 2;
  }
  fclose(f);
  void *model = NULL;
  if (info->load(argv[2], &model) != ENC_OK) {
    fprintf(stderr, "forward_timer: cannot load %s\n", argv[2]);
    return 3;
  }
  enc_input in = {0};
  in.batch = batch;
  in.seq_len = seq;
  if (info->vocab > 0)
    in.tokens = input;
  else
    in.embeddings = input;
  size_t out_floats = (size_t)batch * info->d_model * (info->pooling ? 1 : seq);
  float *out = malloc(out_floats * sizeof(float));
  for (int r = 0; r < rounds; ++r) {
    double t0 = now_ns();
    for (int i = 0; i < reps; ++i)
      if (info->forward(model, &in, out) != ENC_OK) return 3;
    printf("%.1f\n", (now_ns() - t0) / reps);
  }
  info->free(model);
  return 0;
}
