/* Text to token ids: the tokenizers of Hugging Face `tokenizer.json` files
 * (and BERT `vocab.txt` files), in plain C (docs/tokenizers.md).
 *
 * A tokenizer is opened from a file, configured (truncation, padding), then
 * used from any number of threads at once: encoding and decoding do not
 * change it. Texts are UTF-8 bytes with a length; bytes that are not valid
 * UTF-8 are ENC_ERR_INPUT naming the byte offset. Offsets are byte offsets
 * into the text a token came from, as [begin, end) pairs.
 *
 * Implemented: the WordPiece, byte-level BPE and Unigram models with the
 * normalizers, pre-tokenizers, post-processors and decoders docs/tokenizers.md
 * lists, added and special tokens, truncation and padding. A file that asks
 * for a piece not implemented is refused naming it: never a different
 * tokenization. */
#ifndef ENC_TOKENIZER_H_
#define ENC_TOKENIZER_H_

#include <stddef.h>
#include <stdint.h>

#include "enc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct enc_tokenizer enc_tokenizer;
typedef struct enc_encoding enc_encoding;

/* Opens `path`: a tokenizer.json, a BERT vocab.txt (one token per line;
 * lowercasing as `do_lower_case` says in a tokenizer_config.json beside
 * it, else on), or a SentencePiece unigram `.model` (encoded as
 * SentencePiece does, no special tokens added). ENC_ERR_IO if it cannot be
 * read, ENC_ERR_FORMAT (with the reason, and where) if it is not a tokenizer
 * this runtime implements. */
enc_status enc_tokenizer_open(const char *path, enc_tokenizer **out);
/* As enc_tokenizer_open for a vocab.txt, with lowercasing as given. */
enc_status enc_tokenizer_open_vocab(const char *path, int lowercase,
                                    enc_tokenizer **out);
void enc_tokenizer_free(enc_tokenizer *tok); /* NULL is a no-op */

/* The tokenizer as a compiled image (docs/tokenizers.md#compiled-in), what
 * encc puts into an object: enc_tokenizer_open_memory opens it with nothing
 * to parse. Writes the image's size to *size and, when capacity is not 0,
 * the image into buf (ENC_ERR_INPUT if capacity is less than that size). */
enc_status enc_tokenizer_save_image(const enc_tokenizer *tok, char *buf,
                                    size_t capacity, size_t *size);

typedef enum {
  ENC_TRUNCATE_LONGEST_FIRST = 0,
  ENC_TRUNCATE_ONLY_FIRST = 1,
  ENC_TRUNCATE_ONLY_SECOND = 2
} enc_truncation;

/* Truncation to max_length tokens, special tokens included (max_length 0
 * turns it off); the file's own setting until called. Not thread-safe:
 * configure before sharing the tokenizer. */
enc_status enc_tokenizer_set_truncation(enc_tokenizer *tok, int32_t max_length,
                                        enc_truncation strategy);
/* Padding of each encoding to `length` tokens (0: off) with the file's pad
 * token (or [PAD] / <pad>); the file's own setting until called. */
enc_status enc_tokenizer_set_padding(enc_tokenizer *tok, int32_t length);

/* Encodes `text` (and `pair`, or NULL), with the special tokens of the
 * post-processor when add_special_tokens is nonzero. */
enc_status enc_tokenizer_encode(const enc_tokenizer *tok, const char *text,
                                size_t text_len, const char *pair,
                                size_t pair_len, int add_special_tokens,
                                enc_encoding **out);
void enc_encoding_free(enc_encoding *e); /* NULL is a no-op */
int32_t enc_encoding_length(const enc_encoding *e);
const int32_t *enc_encoding_ids(const enc_encoding *e);
const int32_t *enc_encoding_type_ids(const enc_encoding *e);
const int32_t *enc_encoding_attention_mask(const enc_encoding *e);
/* Which input each token came from: 0 (text), 1 (pair) or -1 (special
 * token or padding). */
const int32_t *enc_encoding_sequence_ids(const enc_encoding *e);
/* [length][2] byte offsets into the text (or pair) the token came from;
 * (0, 0) for special tokens and padding. */
const int64_t *enc_encoding_offsets(const enc_encoding *e);
/* Token i's string, as Hugging Face gives it (the vocabulary's, or the text
 * an unknown Unigram piece or a stripping added token spans), NUL-terminated;
 * a token may hold a NUL itself (a text's NUL is a piece of T5's
 * vocabulary): enc_encoding_token_length gives its bytes. */
const char *enc_encoding_token(const enc_encoding *e, int32_t i);
size_t enc_encoding_token_length(const enc_encoding *e, int32_t i);

/* Encodes `count` texts into the arrays of an enc_input (enc/runtime.h):
 * tokens and token_types [count, *seq_len] row-major with *seq_len the
 * longest encoding, lengths [count]; positions past a text's length hold
 * the pad id. `capacity` is the elements tokens and token_types hold; when
 * count * longest exceeds it nothing is written, *seq_len says the longest
 * and the result is ENC_ERR_INPUT. */
enc_status enc_tokenizer_encode_batch(const enc_tokenizer *tok, int32_t count,
                                      const char *const *texts,
                                      const size_t *lengths_in_bytes,
                                      int64_t capacity, int32_t *tokens,
                                      int32_t *token_types, int32_t *lengths,
                                      int32_t *seq_len);

/* The text of `ids` (special tokens dropped when skip_special_tokens), as
 * the file's decoder joins them, into buf (capacity bytes, NUL-terminated);
 * *needed is the bytes it takes with the NUL. ENC_ERR_INPUT for an id
 * outside the vocabulary, or a buffer too small (then nothing is written). */
enc_status enc_tokenizer_decode(const enc_tokenizer *tok, const int32_t *ids,
                                int32_t count, int skip_special_tokens,
                                char *buf, size_t capacity, size_t *needed);

/* The id of a token (vocabulary or added), or -1. */
int32_t enc_tokenizer_token_to_id(const enc_tokenizer *tok, const char *token,
                                  size_t len);
/* The token of an id (NUL-terminated), or NULL. */
const char *enc_tokenizer_id_to_token(const enc_tokenizer *tok, int32_t id);
/* Ids the tokenizer can produce: one past the largest. */
int32_t enc_tokenizer_vocab_size(const enc_tokenizer *tok);
/* The largest type id its templates give (0 without a post-processor). */
int32_t enc_tokenizer_max_type_id(const enc_tokenizer *tok);
/* Its truncation's max_length, 0 when it does not truncate. */
int32_t enc_tokenizer_truncation_length(const enc_tokenizer *tok);

/* Opens a tokenizer from `size` bytes in memory; `name` is what errors
 * call it and, by its ending, says the format as a path would (".model",
 * ".txt", else tokenizer.json). A vocab.txt in memory has no
 * tokenizer_config.json beside it: it is lowercased (do_lower_case true)
 * unless its name ends in ".cased.txt". */
enc_status enc_tokenizer_open_memory(const char *data, size_t size,
                                     const char *name, enc_tokenizer **out);

/* For the code encc generates for `tokenizer = "..."`
 * (docs/tokenizers.md#compiled-in). */

/* The tokenizer compiled into an object: opened from its bytes on the
 * first call (thread-safe; later calls return it), kept in *slot for the
 * life of the process. Truncation to max_len when the file sets none. */
enc_status enc_tokenizer_embedded(const char *data, size_t size,
                                  const char *name, int32_t max_len,
                                  enc_tokenizer **slot,
                                  const enc_tokenizer **out);

/* Texts to a pooling model's output rows: each text encoded with special
 * tokens, the texts sorted by length and run in batches of up to 32
 * sequences padded to their longest (the model masks the padding), each
 * row of `width` floats written at its text's index in out. A text longer
 * than max_len after the tokenizer's truncation is ENC_ERR_INPUT naming
 * it. */
enc_status enc_tokenizer_embed(const enc_tokenizer *tok, void *model,
                               enc_model_forward_fn *forward, int32_t max_len,
                               int32_t width, int32_t count,
                               const char *const *texts,
                               const size_t *lengths_in_bytes, float *out);

#ifdef __cplusplus
}
#endif

#endif /* ENC_TOKENIZER_H_ */
