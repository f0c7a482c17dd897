/* Text in, sentence embeddings out: reads lines of UTF-8 text on standard
 * input and prints one embedding per line (its values, space-separated).
 *
 *   embed_text_demo WEIGHTS.safetensors < lines.txt
 *   embed_text_demo --ids < lines.txt     (the token ids of each line)
 *
 * The tokenizer is compiled into the model (embed_text.enc's `tokenizer`
 * setting): all_minilm_l6_v2_embed_text takes the texts as they are, sorts
 * them by length and runs them in batches padded to their longest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed_text.h"

#define LINES 256 /* texts per call */

static int fail(const char *what, enc_status s) {
  fprintf(stderr, "embed_text: %s: %s: %s\n", what, enc_status_name(s),
          enc_last_error());
  return 1;
}

/* Embeds lines [0, count) and prints their embeddings. */
static int embed(all_minilm_l6_v2 *model, char **lines, size_t *lengths,
                 int32_t count, float *out) {
  enc_status s = all_minilm_l6_v2_embed_text(
      model, count, (const char *const *)lines, lengths, out);
  if (s != ENC_OK) return fail("all_minilm_l6_v2_embed_text", s);
  for (int32_t i = 0; i < count; ++i) {
    const float *row = out + (size_t)i * all_minilm_l6_v2_D_MODEL;
    for (int32_t k = 0; k < all_minilm_l6_v2_D_MODEL; ++k)
      printf(k == 0 ? "%.9g" : " %.9g", row[k]);
    putchar('\n');
  }
  return 0;
}

/* Prints each line's token ids, from all_minilm_l6_v2_tokenize. */
static int print_ids(char **lines, size_t *lengths, int32_t count) {
  static int32_t tokens[LINES * all_minilm_l6_v2_MAX_LEN];
  static int32_t types[LINES * all_minilm_l6_v2_MAX_LEN];
  int32_t seq_lengths[LINES], seq_len = 0;
  enc_status s =
      all_minilm_l6_v2_tokenize(count, (const char *const *)lines, lengths,
                                (int64_t)LINES * all_minilm_l6_v2_MAX_LEN,
                                tokens, types, seq_lengths, &seq_len);
  if (s != ENC_OK) return fail("all_minilm_l6_v2_tokenize", s);
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t k = 0; k < seq_lengths[i]; ++k)
      printf(k == 0 ? "%d" : " %d", tokens[(size_t)i * seq_len + k]);
    putchar('\n');
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s WEIGHTS.safetensors | --ids < lines\n", argv[0]);
    return 2;
  }
  const int ids_only = strcmp(argv[1], "--ids") == 0;
  all_minilm_l6_v2 *model = NULL;
  if (!ids_only) {
    enc_status s = all_minilm_l6_v2_load(argv[1], &model);
    if (s != ENC_OK) return fail("all_minilm_l6_v2_load", s);
  }
  float *out = malloc(sizeof(float) * LINES * all_minilm_l6_v2_D_MODEL);
  char *lines[LINES] = {0};
  size_t caps[LINES] = {0}, lengths[LINES];
  int32_t count = 0;
  int status = out ? 0 : 1;
  while (status == 0) {
    ssize_t n = getline(&lines[count], &caps[count], stdin);
    if (n >= 0) {
      if (n > 0 && lines[count][n - 1] == '\n') --n;
      lengths[count++] = (size_t)n;
    }
    if (count == LINES || (n < 0 && count > 0)) {
      status = ids_only ? print_ids(lines, lengths, count)
                        : embed(model, lines, lengths, count, out);
      count = 0;
    }
    if (n < 0) break;
  }
  for (int32_t i = 0; i < LINES; ++i) free(lines[i]);
  free(out);
  all_minilm_l6_v2_free(model);
  return status;
}
