/* Glue for generated code, off the hot path (plain C): loading a model's
 * weights from a table of descriptors, validating a forward call's input, and
 * a per-thread workspace. With it the generated NAME_load / NAME_free are a
 * call each, and NAME_forward starts with
 *
 *   if (enc_status s = enc_check_input(&NAME_info, in, out)) return s;
 *   float *ws = (float *)enc_workspace(NAME_workspace_bytes(in));
 *   if (!ws) return ENC_ERR_NOMEM;
 *
 * Every function validates its arguments and reports failure as an
 * enc_status with a message (enc_last_error); none aborts. */
#ifndef ENC_KERNELS_MODEL_H_
#define ENC_KERNELS_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include "enc/kernels/gemm.h" /* enc_precision, a descriptor field */
#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Weights ------------------------------------------------------------ */

typedef enum {
  ENC_SLOT_VECTOR = 0,        /* slot: float[sum rows], 64-byte aligned */
  ENC_SLOT_PACKED_MATRIX = 1, /* slot: enc_packed_b* of [sum rows, cols] */
  ENC_SLOT_TABLE = 2,         /* slot: float[rows[0] * cols], 64-byte aligned */
  ENC_SLOT_PACKED_GATED = 3   /* slot: enc_packed_gated* of a gated FFN: two
                                 parts, the gate [rows[0], cols] then the up
                                 projection [rows[1] == rows[0], cols] */
} enc_slot_kind;

/* How messages name a slot kind ("a packed matrix"), the compiler's and the
 * loader's alike; NULL for a value that is no enc_slot_kind. */
static inline const char *enc_slot_kind_noun(int32_t kind) {
  switch (kind) {
    case ENC_SLOT_VECTOR:
      return "a vector";
    case ENC_SLOT_PACKED_MATRIX:
      return "a packed matrix";
    case ENC_SLOT_TABLE:
      return "a table";
    case ENC_SLOT_PACKED_GATED:
      return "a packed gated matrix";
  }
  return NULL;
}

/* The tensor names a weights file uses: enc's own (docs/weights.md) or a
 * Hugging Face layout's (docs/weights.md#hugging-face-layouts); the names and
 * prefixes are in enc/families.def. */
typedef enum {
#define ENC_FAMILY(Enumerator, LangName, Spelling, Prefix, Family) Enumerator,
#include "enc/families.def"
  ENC_CHECKPOINT_COUNT
} enc_checkpoint;

/* One slot of a loaded model, as the compiler bakes it into rodata.
 * Parts are concatenated along rows, in order: a fused Q|K|V projection is
 * one PACKED_MATRIX of three [d, d] parts (-> [3d, d], packed once), its bias
 * one VECTOR of three [d] parts. A gated FFN's gate and up projections are one
 * PACKED_GATED of two [d_ff, d] parts, their biases one VECTOR of two. */
typedef struct {
  int32_t kind;          /* enc_slot_kind */
  int32_t num_parts;     /* 1..3 (TABLE: 1) */
  const char *names[3];  /* the tensors' canonical names (docs/weights.md) */
  int64_t rows[3];       /* >= 1 each: part i is [rows[i], cols], or [rows[i]]
                            for a VECTOR */
  int64_t cols;          /* >= 1 for matrices and tables, 0 for vectors */
  int64_t min_file_rows; /* TABLE only, else 0. 0: the file's tensor is exactly
                            [rows[0], cols]. > 0: the file may hold more rows
                            (at least max(rows[0], min_file_rows)); only the
                            first rows[0] are kept (embed.positions) */
  int32_t checkpoint;    /* enc_checkpoint: the layout of the file. With enc
                            names[] are the file's names; with another
                            layout the loader finds each canonical name's
                            tensor (or row slice of a fused tensor) through
                            the layout's table, its prefix and alternates */
  int32_t precision;     /* enc_precision (enc/kernels/gemm.h) of a
                            PACKED_MATRIX; ENC_PRECISION_FP32 (0) for the other
                            kinds (a PACKED_GATED is fp32) */
} enc_weight_desc;

/* Opens the safetensors file `path` and fills slots[i] for descs[i],
 * i < n (see enc_slot_kind). F32, F16 and BF16 tensors are converted to
 * float. The file is closed before returning: the model keeps only its
 * converted and packed copies. A packed-weights file (enc_model_pack) is
 * mapped instead and its slots point into the mapping, which lives until the
 * last slot is freed; one packed for another model, target, kernel or format
 * version is refused with ENC_ERR_FORMAT naming what differs. With
 * ENC_VERIFY_PACKED=1 every section's checksum is verified too (a pass over
 * every byte); otherwise the header and section table are.
 * ENC_ERR_INPUT   a NULL argument, n < 0, or an invalid descriptor
 * ENC_ERR_IO, ENC_ERR_FORMAT, ENC_ERR_WEIGHTS   from the loader (weights.h);
 *                 missing tensors are all reported at once: how many, the
 *                 first few, and the checkpoint layout the file looks like
 * ENC_ERR_NOMEM   an allocation failed
 * Messages name the file and the tensor. On failure every slot is NULL and
 * nothing is held. */
enc_status enc_model_load(const char *path, const enc_weight_desc *descs,
                          int32_t n, void **slots);

/* Loads the weights at weights_path (a safetensors file or a model
 * directory, as enc_model_load) and writes them to packed_path as a
 * packed-weights file (docs/weights.md#packed-weights-files): every slot in
 * the layout this process's kernels read, for its target, with the
 * descriptors' hash and the sources' size and hash in the header. The file
 * is written under a temporary name and renamed, so a concurrent reader sees
 * the old file or the whole new one. enc_model_load maps such a file and
 * uses it in place: no copy, no packing, one copy in the page cache for every
 * process that loads it. Errors as enc_model_load's, and ENC_ERR_IO when the
 * file cannot be written. */
enc_status enc_model_pack(const char *weights_path, const char *packed_path,
                          const enc_weight_desc *descs, int32_t n);

/* Frees every slot by its kind and sets it to NULL. NULL slots (and a NULL
 * slots array) are allowed. */
void enc_model_free(const enc_weight_desc *descs, int32_t n, void **slots);

/* Allocates an array of n slots and loads into it (enc_model_load). On
 * failure *out_slots is NULL and nothing is held. */
enc_status enc_model_create(const char *path, const enc_weight_desc *descs,
                            int32_t n, void ***out_slots);

/* Frees what enc_model_create returned (NULL is a no-op). */
void enc_model_destroy(const enc_weight_desc *descs, int32_t n, void **slots);

/* Bytes of weight data a model loaded with these descriptors holds: each
 * slot's elements in its precision (a float each, an int8 PACKED_MATRIX a
 * byte each and a float per row, bf16 two bytes each), rounded up to 64
 * bytes. A lower bound for a PACKED_MATRIX or PACKED_GATED, whose panels pad
 * the rows up to the micro-kernel's width. -1 (with
 * ENC_ERR_INPUT's message) for invalid descriptors. */
int64_t enc_model_bytes(const enc_weight_desc *descs, int32_t n);

/* ---- Input validation (docs/c-abi.md#errors) ------------------------------
 */

typedef struct {
  int32_t d_model;    /* >= 1 */
  int32_t max_len;    /* >= 1 */
  int32_t vocab;      /* 0: the input is float embeddings */
  int32_t type_vocab; /* 0: no token types (then token_types must be NULL) */
} enc_model_info;

/* Checks a forward call's arguments before anything is computed:
 * in and out non-NULL; 1 <= batch; 1 <= seq_len <= max_len;
 * batch * seq_len * d_model floats addressable; each lengths[b] (if given) in
 * 0..seq_len; with vocab > 0, tokens non-NULL and every one of the
 * batch * seq_len ids (padding positions included) in 0..vocab-1;
 * token_types NULL, or (type_vocab > 0) each in 0..type_vocab-1; with
 * vocab == 0, embeddings non-NULL. Pointers the model does not use
 * (embeddings with vocab > 0, tokens with vocab == 0) are ignored.
 * Returns ENC_OK, or ENC_ERR_INPUT with a message naming the field, the
 * batch row and position, the value and the allowed range. Writes nothing. */
enc_status enc_check_input(const enc_model_info *info, const enc_input *in,
                           const float *out);

/* For a forward that computes its hidden states in the caller's `out`
 * (docs/c-abi.md#memory), after enc_check_input(info, in, out) passed:
 * ENC_ERR_INPUT when the out_floats floats at out overlap an input array
 * the forward reads after it starts writing out. The batch * seq_len *
 * d_model input embeddings (vocab 0) may be out itself (the first op reads
 * each row before writing it or any later one) but must not overlap it
 * otherwise; the token ids (vocab > 0), token types and lengths must not
 * overlap it at all. Writes nothing. */
enc_status enc_check_out_apart(const enc_model_info *info, const enc_input *in,
                               const float *out, int64_t out_floats);

/* ENC_ERR_INPUT ("NAME_forward: model is NULL") when `model` is NULL: a
 * forward call on a model that failed to load, or was never loaded. */
enc_status enc_check_model(const void *model, const char *name);

/* ENC_ERR_INPUT ("NAME_forward_attention: probs is NULL") when `probs` is
 * NULL. */
enc_status enc_check_probs(const float *probs, const char *name);

/* ---- Per-thread workspace ------------------------------------------------ */

/* A 64-byte-aligned scratch buffer of at least `bytes` bytes, owned by the
 * calling thread: each thread has its own, so concurrent forward calls never
 * share one. It grows as needed and never shrinks, so calls of a steady size
 * allocate nothing; it is freed when the thread exits. Its contents are not
 * kept when it grows, and a later call on the same thread may return a
 * different pointer (the earlier one is then invalid). bytes == 0 returns a
 * valid buffer. NULL (with ENC_ERR_NOMEM's message) if bytes < 0 or the
 * allocation fails. */
void *enc_workspace(int64_t bytes);

/* The calling thread's current workspace capacity in bytes (0 if none). */
int64_t enc_workspace_capacity(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENC_KERNELS_MODEL_H_ */
