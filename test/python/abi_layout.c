/* Prints, as JSON, the layout the C headers give the structs and enums that
 * the Python package re-declares for ctypes (python/enc/_library.py), so that
 * test_abi.py compares the two: sizes, field offsets, enum values. */
#include <stddef.h>
#include <stdio.h>

#include "enc/kernels/classifier.h"
#include "enc/kernels/pool.h"
#include "enc/library.h"
#include "enc/runtime.h"

#define FIELD(T, f)                                                       \
  printf("%s\"%s\": [%zu, %zu]", first++ ? ", " : "", #f, offsetof(T, f), \
         sizeof(((T *)0)->f))

int main(void) {
  int first = 0;
  printf("{\"enc_input\": {\"size\": %zu, \"fields\": {", sizeof(enc_input));
  FIELD(enc_input, batch);
  FIELD(enc_input, seq_len);
  FIELD(enc_input, embeddings);
  FIELD(enc_input, tokens);
  FIELD(enc_input, token_types);
  FIELD(enc_input, lengths);
  first = 0;
  printf("}},\n \"enc_encoder_info\": {\"size\": %zu, \"fields\": {",
         sizeof(enc_encoder_info));
  FIELD(enc_encoder_info, abi_version);
  FIELD(enc_encoder_info, name);
  FIELD(enc_encoder_info, d_model);
  FIELD(enc_encoder_info, heads);
  FIELD(enc_encoder_info, head_dim);
  FIELD(enc_encoder_info, d_ff);
  FIELD(enc_encoder_info, blocks);
  FIELD(enc_encoder_info, max_len);
  FIELD(enc_encoder_info, vocab);
  FIELD(enc_encoder_info, type_vocab);
  FIELD(enc_encoder_info, pooling);
  FIELD(enc_encoder_info, normalize);
  FIELD(enc_encoder_info, out_dim);
  FIELD(enc_encoder_info, head);
  FIELD(enc_encoder_info, scores);
  FIELD(enc_encoder_info, load);
  FIELD(enc_encoder_info, forward);
  FIELD(enc_encoder_info, free);
  FIELD(enc_encoder_info, workspace_bytes);
  FIELD(enc_encoder_info, forward_attention);
  FIELD(enc_encoder_info, pack);
  printf("}},\n \"abi_version\": %d,\n", ENC_LIBRARY_ABI_VERSION);
  printf(
      " \"enc_status\": {\"ENC_OK\": %d, \"ENC_ERR_IO\": %d, "
      "\"ENC_ERR_FORMAT\": %d, \"ENC_ERR_WEIGHTS\": %d, "
      "\"ENC_ERR_INPUT\": %d, \"ENC_ERR_NOMEM\": %d},\n",
      ENC_OK, ENC_ERR_IO, ENC_ERR_FORMAT, ENC_ERR_WEIGHTS, ENC_ERR_INPUT,
      ENC_ERR_NOMEM);
  printf(
      " \"enc_pool_mode\": {\"ENC_POOL_NONE\": %d, \"ENC_POOL_CLS\": %d, "
      "\"ENC_POOL_MEAN\": %d, \"ENC_POOL_MAX\": %d, \"ENC_POOL_LAST\": %d},\n",
      ENC_POOL_NONE, ENC_POOL_CLS, ENC_POOL_MEAN, ENC_POOL_MAX, ENC_POOL_LAST);
  printf(
      " \"enc_head_kind\": {\"ENC_HEAD_NONE\": %d, \"ENC_HEAD_CLASSIFIER\": "
      "%d, \"ENC_HEAD_COLBERT\": %d, \"ENC_HEAD_MLM\": %d, "
      "\"ENC_HEAD_SPLADE\": %d, \"ENC_HEAD_DENSE\": %d},\n",
      ENC_HEAD_NONE, ENC_HEAD_CLASSIFIER, ENC_HEAD_COLBERT, ENC_HEAD_MLM,
      ENC_HEAD_SPLADE, ENC_HEAD_DENSE);
  printf(
      " \"enc_scores\": {\"ENC_SCORES_NONE\": %d, \"ENC_SCORES_SIGMOID\": %d, "
      "\"ENC_SCORES_SOFTMAX\": %d}}\n",
      ENC_SCORES_NONE, ENC_SCORES_SIGMOID, ENC_SCORES_SOFTMAX);
  return 0;
}
