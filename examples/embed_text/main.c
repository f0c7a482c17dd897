/* Text in, sentence embeddings out: reads lines of UTF-8 text on standard
 * input and prints one embedding per line (its values, space-separated).
 *
 *   embed_text_demo WEIGHTS.safetensors TOKENIZER.json < lines.txt
 *
 * The tokenizer (enc/tokenizer.h) encodes up to 32 lines at a time straight
 * into an enc_input, truncated to the model's max_len; sequences are padded
 * only to the longest of their batch, and the model masks the padding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enc/tokenizer.h>

#include "embed_text.h"

#define MODEL all_minilm_l6_v2
#define BATCH 32

static int fail(const char *what, enc_status s) {
  fprintf(stderr, "embed_text: %s: %s: %s\n", what, enc_status_name(s),
          enc_last_error());
  return 1;
}

/* Encodes and embeds lines [0, count) and prints their embeddings. */
static int embed(const enc_tokenizer *tok, all_minilm_l6_v2 *model,
                 char **lines, size_t *lengths, int32_t count, int32_t *tokens,
                 int32_t *types, int32_t *seq_lengths, float *out) {
  int32_t seq_len = 0;
  const int64_t capacity = (int64_t)BATCH * all_minilm_l6_v2_MAX_LEN;
  enc_status s = enc_tokenizer_encode_batch(
      tok, count, (const char *const *)lines, lengths, capacity, tokens, types,
      seq_lengths, &seq_len);
  if (s != ENC_OK) return fail("enc_tokenizer_encode_batch", s);
  enc_input in = {0};
  in.batch = count;
  in.seq_len = seq_len;
  in.tokens = tokens;
  in.token_types = types;
  in.lengths = seq_lengths;
  s = all_minilm_l6_v2_forward(model, &in, out);
  if (s != ENC_OK) return fail("all_minilm_l6_v2_forward", s);
  for (int32_t i = 0; i < count; ++i) {
    const float *row = out + (size_t)i * all_minilm_l6_v2_D_MODEL;
    for (int32_t k = 0; k < all_minilm_l6_v2_D_MODEL; ++k)
      printf(k == 0 ? "%.9g" : " %.9g", row[k]);
    putchar('\n');
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s WEIGHTS.safetensors TOKENIZER.json < lines\n",
            argv[0]);
    return 2;
  }
  enc_tokenizer *tok = NULL;
  enc_status s = enc_tokenizer_open(argv[2], &tok);
  if (s != ENC_OK) return fail("enc_tokenizer_open", s);
  /* As sentence-transformers: texts longer than the model are truncated. */
  s = enc_tokenizer_set_truncation(tok, all_minilm_l6_v2_MAX_LEN,
                                   ENC_TRUNCATE_LONGEST_FIRST);
  if (s != ENC_OK) return fail("enc_tokenizer_set_truncation", s);
  /* No fixed padding (all-MiniLM-L6-v2's file pads to 128): a batch is
   * padded to its longest text only. */
  s = enc_tokenizer_set_padding(tok, 0);
  if (s != ENC_OK) return fail("enc_tokenizer_set_padding", s);
  all_minilm_l6_v2 *model = NULL;
  s = all_minilm_l6_v2_load(argv[1], &model);
  if (s != ENC_OK) return fail("all_minilm_l6_v2_load", s);

  const size_t cells = (size_t)BATCH * all_minilm_l6_v2_MAX_LEN;
  int32_t *tokens = malloc(sizeof(int32_t) * cells);
  int32_t *types = malloc(sizeof(int32_t) * cells);
  int32_t seq_lengths[BATCH];
  float *out = malloc(sizeof(float) * BATCH * all_minilm_l6_v2_D_MODEL);
  char *lines[BATCH] = {0};
  size_t caps[BATCH] = {0}, lengths[BATCH];
  int32_t count = 0;
  int status = tokens && types && out ? 0 : 1;
  while (status == 0) {
    ssize_t n = getline(&lines[count], &caps[count], stdin);
    if (n >= 0) {
      if (n > 0 && lines[count][n - 1] == '\n') --n;
      lengths[count++] = (size_t)n;
    }
    if (count == BATCH || (n < 0 && count > 0)) {
      status = embed(tok, model, lines, lengths, count, tokens, types,
                     seq_lengths, out);
      count = 0;
    }
    if (n < 0) break;
  }
  for (int32_t i = 0; i < BATCH; ++i) free(lines[i]);
  free(tokens);
  free(types);
  free(out);
  all_minilm_l6_v2_free(model);
  enc_tokenizer_free(tok);
  return status;
}
