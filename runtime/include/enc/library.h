/* What a shared library built by `encc --emit=shared` says about the
 * encoders it holds (docs/c-abi.md#shared-libraries), so that one generic
 * loader (the Python package `enc`, or a C program using dlopen) serves every
 * model: it finds enc_library_encoders with dlsym, reads the facts of each
 * encoder and calls its entry points through the pointers below. */
#ifndef ENC_LIBRARY_H_
#define ENC_LIBRARY_H_

#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of enc_encoder_info below. A loader reads abi_version (the
 * first field, whatever the version) and refuses a version it does not know. */
#define ENC_LIBRARY_ABI_VERSION 4

/* The task head after pooling (docs/language.md#heads). */
typedef enum {
  ENC_HEAD_NONE = 0,
  ENC_HEAD_CLASSIFIER = 1,
  ENC_HEAD_COLBERT = 2,
  ENC_HEAD_MLM = 3,    /* logits over the vocabulary per token */
  ENC_HEAD_SPLADE = 4, /* term weights over the vocabulary per sequence */
  ENC_HEAD_DENSE = 5   /* the pooled vector projected (sentence-transformers'
                          Dense module) */
} enc_head_kind;

/* One encoder of the library: what `NAME_*` in its generated header says. */
typedef struct {
  int32_t abi_version; /* ENC_LIBRARY_ABI_VERSION */
  const char *name;    /* NAME: the encoder's name, the prefix of its symbols */
  /* Compile-time facts (docs/language.md). */
  int32_t d_model;
  int32_t heads;
  int32_t head_dim; /* each head's width d_k */
  int32_t d_ff;
  int32_t blocks;
  int32_t max_len; /* the longest seq_len forward accepts */
  int32_t
      vocab; /* 0: the input is float embeddings [batch, seq_len, d_model] */
  int32_t type_vocab; /* 0: no token types */
  int32_t pooling; /* enc_pool_mode (enc/kernels/pool.h): 0 none, 1 cls, 2 mean,
                      3 max, 4 last */
  int32_t normalize; /* 1: each output vector is scaled to unit L2 norm */
  int32_t out_dim;   /* floats per output row: d_model, output_dim or labels */
  int32_t head;      /* enc_head_kind */
  int32_t scores;    /* enc_scores (enc/kernels/classifier.h): what a
                        classifier's rows hold, logits or probabilities */
  /* The entry points NAME_load, NAME_forward, NAME_free,
   * NAME_workspace_bytes, NAME_forward_attention, NAME_pack. */
  enc_model_load_fn *load;
  enc_model_forward_fn *forward;
  enc_model_free_fn *free;
  enc_model_workspace_bytes_fn *workspace_bytes;
  enc_model_forward_attention_fn *forward_attention;
  enc_model_pack_fn *pack;
} enc_encoder_info;

/* The encoders of this library, in the order of the .enc file; *count (if
 * count is not NULL) receives how many. The table is constant and lives as
 * long as the library is loaded. */
const enc_encoder_info *enc_library_encoders(int32_t *count);
typedef const enc_encoder_info *enc_library_encoders_fn(int32_t *count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_LIBRARY_H_ */
