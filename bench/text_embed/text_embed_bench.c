/* encc's side of bench/text_embed/run.py: texts to mean-pooled, normalised
 * all-MiniLM-L6-v2-shaped embeddings through the tokenizer compiled into the
 * model (examples/embed_text/embed_text.enc), in batches of BATCH texts.
 *
 *   text_embed_bench WEIGHTS QUERIES THREADS BATCH ROUNDS [OUT.f32]
 *
 * QUERIES: one text a line. Each round embeds every batch once
 * (all_minilm_l6_v2_embed_text) and, apart, tokenizes every batch once
 * (all_minilm_l6_v2_tokenize, the same tokenizer embed_text runs), so the
 * tokenizer's share of the time is measured rather than guessed. Prints the
 * median over rounds of the milliseconds per batch for both; OUT gets the
 * embeddings of the last round, [texts, 384] float32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embed_text.h"

enum { kMaxTexts = 4096, kMaxRounds = 64 };

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int Fail(const char *what, enc_status s) {
  fprintf(stderr, "text_embed_bench: %s: %s: %s\n", what, enc_status_name(s),
          enc_last_error());
  return 1;
}

static int CompareDoubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double Median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), CompareDoubles);
  return v[n / 2];
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr,
            "usage: %s WEIGHTS QUERIES THREADS BATCH ROUNDS [OUT.f32]\n",
            argv[0]);
    return 2;
  }
  const int threads = atoi(argv[3]), batch = atoi(argv[4]);
  const int rounds = atoi(argv[5]);
  if (threads < 1 || batch < 1 || batch > 256 || rounds < 1 ||
      rounds > kMaxRounds) {
    fprintf(stderr, "text_embed_bench: bad THREADS, BATCH or ROUNDS\n");
    return 2;
  }
  FILE *f = fopen(argv[2], "r");
  if (f == NULL) {
    perror(argv[2]);
    return 1;
  }
  static char *texts[kMaxTexts];
  static size_t lengths[kMaxTexts];
  int count = 0;
  size_t cap = 0;
  char *line = NULL;
  ssize_t n;
  while (count < kMaxTexts && (n = getline(&line, &cap, f)) >= 0) {
    if (n > 0 && line[n - 1] == '\n') --n;
    texts[count] = malloc((size_t)n + 1);
    memcpy(texts[count], line, (size_t)n);
    lengths[count++] = (size_t)n;
  }
  free(line);
  fclose(f);
  enc_set_num_threads(threads);
  all_minilm_l6_v2 *model = NULL;
  enc_status s = all_minilm_l6_v2_load(argv[1], &model);
  if (s != ENC_OK) return Fail("all_minilm_l6_v2_load", s);
  float *out = malloc(sizeof(float) * (size_t)count * all_minilm_l6_v2_D_MODEL);
  const size_t cells = (size_t)batch * all_minilm_l6_v2_MAX_LEN;
  int32_t *tokens = malloc(sizeof(int32_t) * cells);
  int32_t *types = malloc(sizeof(int32_t) * cells);
  int32_t seq_lengths[256], seq_len = 0;
  double embed_ms[kMaxRounds], tokenize_ms[kMaxRounds];
  const int batches = (count + batch - 1) / batch;
  for (int r = 0; r < rounds; ++r) {
    double t0 = Now();
    for (int b = 0; b < count; b += batch) {
      const int m = count - b < batch ? count - b : batch;
      s = all_minilm_l6_v2_embed_text(
          model, m, (const char *const *)texts + b, lengths + b,
          out + (size_t)b * all_minilm_l6_v2_D_MODEL);
      if (s != ENC_OK) return Fail("all_minilm_l6_v2_embed_text", s);
    }
    embed_ms[r] = (Now() - t0) * 1e3 / batches;
    t0 = Now();
    for (int b = 0; b < count; b += batch) {
      const int m = count - b < batch ? count - b : batch;
      s = all_minilm_l6_v2_tokenize(m, (const char *const *)texts + b,
                                    lengths + b, (int64_t)cells, tokens, types,
                                    seq_lengths, &seq_len);
      if (s != ENC_OK) return Fail("all_minilm_l6_v2_tokenize", s);
    }
    tokenize_ms[r] = (Now() - t0) * 1e3 / batches;
  }
  printf(
      "encc %d texts, batches of %d, %d threads: embed_text %.3f ms/batch, "
      "tokenize %.3f ms/batch (medians of %d rounds)\n",
      count, batch, threads, Median(embed_ms, rounds),
      Median(tokenize_ms, rounds), rounds);
  if (argc > 6) {
    FILE *o = fopen(argv[6], "wb");
    if (o == NULL || fwrite(out, sizeof(float) * all_minilm_l6_v2_D_MODEL,
                            (size_t)count, o) != (size_t)count) {
      perror(argv[6]);
      return 1;
    }
    fclose(o);
  }
  for (int i = 0; i < count; ++i) free(texts[i]);
  free(out);
  free(tokens);
  free(types);
  all_minilm_l6_v2_free(model);
  return 0;
}
