/* A main() for encoders that read token ids, shared by the examples: loads
 * the weights named on the command line, runs one sequence of the given ids
 * and prints the start of each output row.
 *
 * Include the model's header, define DEMO_MODEL to the encoder's name, then
 * include this file:
 *   #include "roformer.h"
 *   #define DEMO_MODEL roformer_base
 *   #include "../common/token_demo.h"
 *
 * usage: <demo> WEIGHTS.safetensors ID [ID...] */
#include <stdio.h>
#include <stdlib.h>

#define DEMO_CAT2(a, b) a##b
#define DEMO_CAT(a, b) DEMO_CAT2(a, b)
#define DEMO_FN(suffix) DEMO_CAT(DEMO_MODEL, suffix)
#define DEMO_STR2(x) #x
#define DEMO_STR(x) DEMO_STR2(x)
#define DEMO_D_MODEL DEMO_FN(_D_MODEL)
#define DEMO_POOLED DEMO_FN(_POOLED)

static int demo_fail(const char *what, enc_status s) {
  fprintf(stderr, "%s: %s: %s\n", what, enc_status_name(s), enc_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s WEIGHTS.safetensors ID [ID...]\n", argv[0]);
    return 2;
  }
  int32_t n = argc - 2;
  int32_t *ids = malloc(sizeof(int32_t) * n);
  for (int32_t i = 0; i < n; ++i)
    ids[i] = (int32_t)strtol(argv[i + 2], NULL, 10);

  DEMO_MODEL *model = NULL;
  enc_status s = DEMO_FN(_load)(argv[1], &model);
  if (s != ENC_OK) return demo_fail(DEMO_STR(DEMO_MODEL) "_load", s);
  enc_input in = {0};
  in.batch = 1;
  in.seq_len = n;
  in.tokens = ids;
  int32_t rows = DEMO_POOLED ? 1 : n;
  float *out = malloc(sizeof(float) * (size_t)rows * DEMO_D_MODEL);
  s = DEMO_FN(_forward)(model, &in, out);
  if (s != ENC_OK) {
    DEMO_FN(_free)(model);
    return demo_fail(DEMO_STR(DEMO_MODEL) "_forward", s);
  }
  printf("%s: %d tokens -> %d output rows of %d (first 4 of each):\n",
         DEMO_STR(DEMO_MODEL), n, rows, DEMO_D_MODEL);
  for (int32_t i = 0; i < rows; ++i) {
    const float *row = out + (size_t)i * DEMO_D_MODEL;
    printf("  %3d: %8.4f %8.4f %8.4f %8.4f\n", i, row[0], row[1], row[2],
           row[3]);
  }
  DEMO_FN(_free)(model);
  free(out);
  free(ids);
  return 0;
}
