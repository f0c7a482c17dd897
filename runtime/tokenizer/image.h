// A tokenizer as one binary image (docs/tokenizers.md#compiled-in): what
// encc compiles into an object. Every option is stored as read, and every
// lookup table (tokenizer/tables.h) as its flat arrays, 8-byte aligned, so
// opening an image parses no JSON and builds no hash table: the tables are
// viewed where they lie. A checksum covers the body, and every index is
// checked before use, so a corrupted or hostile image is ENC_ERR_FORMAT,
// never a read out of bounds or a loop.
#ifndef ENC_RUNTIME_TOKENIZER_IMAGE_H_
#define ENC_RUNTIME_TOKENIZER_IMAGE_H_

#include <cstddef>
#include <string>

#include "enc/runtime.h"

struct enc_tokenizer;

namespace enc {
namespace tok {

// True when data starts as an image does (its magic).
bool IsImage(const char* data, size_t size);

// The image of `tok`.
std::string WriteImage(const enc_tokenizer& tok);

// The invariants every tokenizer holds, whichever way it was opened: the
// checks an image is read under, which the file loaders also apply to what
// they built (ENC_ERR_FORMAT naming `name`), so that a file opens exactly
// when its compiled image would.
enc_status CheckTokenizer(const char* name, enc_tokenizer* tok);

// Reads the image data[0, size) into `tok`. With `borrow` the tables view
// `data` itself, which must be 8-byte aligned and outlive `tok` (an
// object's read-only data); else `tok` keeps an aligned copy.
enc_status ReadImage(const char* name, const char* data, size_t size,
                     bool borrow, enc_tokenizer* tok);

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_IMAGE_H_
