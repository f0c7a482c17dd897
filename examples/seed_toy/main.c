/* The seed article's toy, compiled: five tokens of width 8, two heads,
 * sinusoidal positions. Runs the encoder on the article's token vectors, then
 * on the same tokens with the first two swapped, and shows the article's
 * point: with positions added, the output rows do not simply swap.
 *
 * usage: seed_toy_demo WEIGHTS.safetensors TOKENS.bin
 * (make_weights.py writes both, from the article's numpy example.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "seed_toy.h"

enum { kTokens = 5, kWidth = seed_toy_D_MODEL };

static int run(seed_toy *model, const float *tokens, float *out) {
  enc_input in = {0};
  in.batch = 1;
  in.seq_len = kTokens;
  in.embeddings = tokens;
  enc_status s = seed_toy_forward(model, &in, out);
  if (s != ENC_OK) {
    fprintf(stderr, "seed_toy_forward: %s: %s\n", enc_status_name(s),
            enc_last_error());
    return 1;
  }
  return 0;
}

static void print_rows(const char *title, const float *rows) {
  printf("%s\n", title);
  for (int i = 0; i < kTokens; ++i) {
    printf("  token %d:", i);
    for (int j = 0; j < kWidth; ++j) printf(" %7.3f", rows[i * kWidth + j]);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s WEIGHTS.safetensors TOKENS.bin\n", argv[0]);
    return 2;
  }
  float tokens[kTokens * kWidth], swapped[kTokens * kWidth];
  FILE *f = fopen(argv[2], "rb");
  if (!f ||
      fread(tokens, sizeof(float), kTokens * kWidth, f) != kTokens * kWidth) {
    fprintf(stderr, "cannot read %d x %d floats from %s\n", kTokens, kWidth,
            argv[2]);
    return 1;
  }
  fclose(f);

  seed_toy *model = NULL;
  enc_status s = seed_toy_load(argv[1], &model);
  if (s != ENC_OK) {
    fprintf(stderr, "seed_toy_load: %s: %s\n", enc_status_name(s),
            enc_last_error());
    return 1;
  }
  float out[kTokens * kWidth], out_swapped[kTokens * kWidth];
  for (int i = 0; i < kTokens * kWidth; ++i) swapped[i] = tokens[i];
  for (int j = 0; j < kWidth; ++j) {
    swapped[j] = tokens[kWidth + j];
    swapped[kWidth + j] = tokens[j];
  }
  if (run(model, tokens, out) || run(model, swapped, out_swapped)) {
    seed_toy_free(model);
    return 1;
  }
  printf("seed_toy: d_model %d, %d heads, %d block, sinusoidal positions\n",
         seed_toy_D_MODEL, seed_toy_HEADS, seed_toy_BLOCKS);
  print_rows("output for the article's five tokens:", out);
  print_rows("output with tokens 0 and 1 swapped:", out_swapped);
  /* Without positions, swapping two tokens would swap their output rows. */
  float diff = 0;
  for (int j = 0; j < kWidth; ++j) {
    diff = fmaxf(diff, fabsf(out[j] - out_swapped[kWidth + j]));
    diff = fmaxf(diff, fabsf(out[kWidth + j] - out_swapped[j]));
  }
  printf(
      "max |row 0 - swapped row 1|, |row 1 - swapped row 0|: %.3f (%s)\n", diff,
      diff > 1e-3f ? "positions make the encoder order-aware" : "order-blind");
  seed_toy_free(model);
  return 0;
}
