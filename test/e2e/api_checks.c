/* The C ABI of a compiled model under bad input (docs/c-abi.md), built in C
 * against the generated header of `bert_like` (Inputs/conformance.enc:
 * vocab 101, type_vocab 3, max_len 40, d_model 48).
 *
 *   api_checks inputs WEIGHTS   every bad enc_input gives ENC_ERR_INPUT, a
 *                               message, and leaves the output untouched
 *   api_checks load WEIGHTS     prints the load status and message
 *   api_checks free             NULL-safety of the lifetime functions */
#include <stdio.h>
#include <string.h>

#define B 2
#define S 6
#define D bert_like_D_MODEL
#define SENTINEL -7.25f

static float out[B * S * D];
static int failures;

static void expect_input_error(bert_like *m, const char *what,
                               const enc_input *in, float *o) {
  for (int i = 0; i < B * S * D; ++i) out[i] = SENTINEL;
  enc_status s = bert_like_forward(m, in, o);
  int untouched = 1;
  for (int i = 0; i < B * S * D; ++i) untouched &= out[i] == SENTINEL;
  const char *msg = enc_last_error();
  int ok = s == ENC_ERR_INPUT && msg[0] != '\0' && untouched;
  failures += !ok;
  printf("%s %s: %s: %s%s\n", ok ? "ok" : "FAIL", what, enc_status_name(s), msg,
         untouched ? "" : " (output written)");
}

static int inputs(const char *weights) {
  bert_like *m = NULL;
  enc_status s = bert_like_load(weights, &m);
  if (s != ENC_OK) {
    printf("FAIL load: %s: %s\n", enc_status_name(s), enc_last_error());
    return 1;
  }
  int32_t ids[B * S], types[B * S], lengths[B] = {S, 3};
  for (int i = 0; i < B * S; ++i) {
    ids[i] = (i * 7) % bert_like_VOCAB;
    types[i] = i % bert_like_TYPE_VOCAB;
  }
  enc_input good = {B, S, NULL, ids, types, lengths};
  enc_input in;

  in = good;
  in.batch = 0;
  expect_input_error(m, "batch 0", &in, out);
  in = good;
  in.batch = -3;
  expect_input_error(m, "batch -3", &in, out);
  in = good;
  in.seq_len = 0;
  expect_input_error(m, "seq_len 0", &in, out);
  in = good;
  in.seq_len = bert_like_MAX_LEN + 1;
  expect_input_error(m, "seq_len beyond max_len", &in, out);
  in = good;
  lengths[1] = -1;
  expect_input_error(m, "length -1", &in, out);
  lengths[1] = S + 1;
  expect_input_error(m, "length beyond seq_len", &in, out);
  lengths[1] = 3;
  ids[4] = bert_like_VOCAB;
  expect_input_error(m, "token id = vocab", &in, out);
  ids[4] = -1;
  expect_input_error(m, "token id -1", &in, out);
  ids[4] = 4;
  types[7] = bert_like_TYPE_VOCAB;
  expect_input_error(m, "token type = type_vocab", &in, out);
  types[7] = 1;
  in = good;
  in.tokens = NULL;
  expect_input_error(m, "tokens NULL", &in, out);
  expect_input_error(m, "input NULL", NULL, out);
  expect_input_error(m, "output NULL", &good, NULL);
  expect_input_error(NULL, "model NULL", &good, out);

  /* The same model still works after all of that. */
  s = bert_like_forward(m, &good, out);
  printf("%s valid input after errors: %s\n", s == ENC_OK ? "ok" : "FAIL",
         enc_status_name(s));
  failures += s != ENC_OK;
  bert_like_free(m);
  printf("%d failures\n", failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "inputs") == 0) return inputs(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "load") == 0) {
    bert_like *m = (bert_like *)0x1;
    enc_status s = bert_like_load(argv[2], &m);
    printf("load: %s: %s (model %s)\n", enc_status_name(s),
           s == ENC_OK ? "" : enc_last_error(), m == NULL ? "NULL" : "set");
    bert_like_free(s == ENC_OK ? m : NULL);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "free") == 0) {
    bert_like_free(NULL);
    enc_status s = bert_like_load(NULL, NULL);
    printf("free(NULL) ok; load(NULL, NULL): %s: %s\n", enc_status_name(s),
           enc_last_error());
    /* Any int is a valid enc_status in C (UB to load in C++: UBSan checks). */
    printf("status 99: %s; status -1: %s\n", enc_status_name((enc_status)99),
           enc_status_name((enc_status)-1));
    return 0;
  }
  fprintf(stderr, "usage: %s inputs|load WEIGHTS | free\n", argv[0]);
  return 2;
}
