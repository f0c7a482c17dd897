/* The encc runtime's public C ABI (docs/c-abi.md).
 *
 * A model compiled by encc declares NAME_load / NAME_forward / NAME_free in its
 * own header; this header holds what every model shares: status codes, the
 * input descriptor, per-thread error messages and the thread-count control. */
#ifndef ENC_RUNTIME_H_
#define ENC_RUNTIME_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENC_OK = 0,
  ENC_ERR_IO,      /* a file could not be opened or read */
  ENC_ERR_FORMAT,  /* a weights file is not valid safetensors */
  ENC_ERR_WEIGHTS, /* a tensor is missing or has the wrong shape or dtype */
  ENC_ERR_INPUT,   /* a bad argument to a forward call or a kernel */
  ENC_ERR_NOMEM    /* an allocation failed */
} enc_status;

typedef struct {
  int32_t batch, seq_len;
  const float *embeddings;    /* [batch, seq_len, d_model] when vocab == 0 */
  const int32_t *tokens;      /* [batch, seq_len] when vocab > 0 */
  const int32_t *token_types; /* [batch, seq_len] or NULL */
  const int32_t *lengths;     /* [batch] or NULL: every sequence is full */
} enc_input;

/* The message of the last error on the calling thread ("" if none). The
 * pointer stays valid until the thread's next failing call. */
const char *enc_last_error(void);

/* Sets the size of the runtime's thread pool: n > 0 threads, or 0 for one per
 * core. Takes effect once no forward call is running. Returns the number of
 * threads in use afterwards, or -1 (with enc_last_error set) if n < 0. The
 * default comes from ENC_NUM_THREADS in the environment, else one per core. */
int enc_set_num_threads(int n);

/* A short constant name for a status ("ENC_ERR_INPUT"). */
const char *enc_status_name(enc_status status);

/* The functions encc emits for each encoder NAME, as function types: the
 * generated header declares NAME_load, NAME_forward, NAME_free,
 * NAME_workspace_bytes, NAME_forward_attention and NAME_pack with these
 * signatures, the
 * model being `NAME *` where these say `void *`, and encc builds them from
 * these declarations. */
typedef enc_status enc_model_load_fn(const char *weights_path, void **out);
typedef enc_status enc_model_forward_fn(void *model, const enc_input *in,
                                        float *out);
typedef void enc_model_free_fn(void *model);
typedef int64_t enc_model_workspace_bytes_fn(int32_t batch, int32_t seq_len);
/* NAME_forward, and the attention probabilities of every block into probs:
 * [blocks, batch, heads, seq_len, seq_len] floats, 0 on padded rows and
 * columns. out may be NULL. */
typedef enc_status enc_model_forward_attention_fn(void *model,
                                                  const enc_input *in,
                                                  float *out, float *probs);
/* NAME_pack: loads the weights at weights_path and writes them, packed for
 * this process's CPU target, to packed_path (docs/weights.md#packed-weights-
 * files); NAME_load accepts that file wherever it accepts safetensors. */
typedef enc_status enc_model_pack_fn(const char *weights_path,
                                     const char *packed_path);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_RUNTIME_H_ */
