// Hugging Face's ByteLevel pieces (GPT-2, RoBERTa, ModernBERT): the
// pre-tokenizer's split (GPT-2's regular expression, written out as a
// scanner), the byte -> printable code point table its BPE vocabularies are
// spelled in, the offsets trimming of its post-processor and the decoder
// that maps the table back to bytes (docs/tokenizers.md).
#ifndef ENC_RUNTIME_TOKENIZER_BYTE_LEVEL_H_
#define ENC_RUNTIME_TOKENIZER_BYTE_LEVEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/normalized.h"

namespace enc {
namespace tok {

// GPT-2's split of text[first, last) into words, as HF's ByteLevel runs
// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
// (Isolated): appends each word as [first, last) code point indices.
void ByteLevelSplit(const NormalizedText& text, size_t first, size_t last,
                    std::vector<std::pair<size_t, size_t>>* words);

// The printable code point GPT-2's table spells byte b with, and back
// (-1 for a code point no byte maps to).
char32_t ByteToChar(uint8_t b);
int CharToByte(char32_t c);

// text[first, last) as the byte-level code points of its UTF-8 bytes,
// appended to *out; each keeps the original range of the code point it
// came from.
void AppendByteLevel(const NormalizedText& text, size_t first, size_t last,
                     NormalizedText* out);

// The spaces ('Ġ' or whitespace) at either end of a token's string, which
// ByteLevel's post-processing (trim_offsets) takes out of its offsets;
// counted once per vocabulary entry when the tokenizer is read.
struct TokenSpaces {
  int32_t leading = 0, trailing = 0;  // code points
};
TokenSpaces ByteLevelSpaces(const std::string& token);

// Trims a token's offsets by its spaces and an added token's stripped
// whitespace; the prefix space of the first token stays when
// add_prefix_space put it there. HF trims code point offsets; these are
// bytes of `text`, the token's input, so they move by whole code points.
void TrimByteLevelOffsets(TokenSpaces spaces, bool add_prefix_space, bool first,
                          std::string_view text, Token* t);

// ByteLevel's decoder: each token's code points through the table back to
// bytes (a token with a code point outside it as its own UTF-8), appended
// to *bytes; the caller makes text of them with AppendUtf8Lossy.
void AppendByteLevelBytes(std::string_view token, std::string* bytes);

// Bytes as text, each maximal invalid UTF-8 sequence replaced by U+FFFD
// (as Rust's String::from_utf8_lossy).
void AppendUtf8Lossy(const std::string& bytes, std::string* out);

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_BYTE_LEVEL_H_
