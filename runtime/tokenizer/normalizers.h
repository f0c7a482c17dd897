// Hugging Face's simple normalizers, each as its NormalizedString method
// changes the text and aligns it (docs/tokenizers.md): the Unicode forms
// (NFD, NFKD, NFC, NFKC, from utf8proc), Lowercase, Strip and Replace.
#ifndef ENC_RUNTIME_TOKENIZER_NORMALIZERS_H_
#define ENC_RUNTIME_TOKENIZER_NORMALIZERS_H_

#include <cstddef>
#include <string>

#include "tokenizer/normalized.h"

namespace enc {
namespace tok {

enum class UnicodeForm { kNfd, kNfkd, kNfc, kNfkc };

NormalizedText ApplyUnicodeForm(UnicodeForm form, const NormalizedText& in);
// Rust's char::to_lowercase, code point by code point.
NormalizedText ApplyLowercase(const NormalizedText& in);
// Whitespace (White_Space) removed at the left and/or right end.
NormalizedText ApplyStrip(bool left, bool right, const NormalizedText& in);

// Replace: a literal pattern, or a code point repeated at least
// `min_repeat` times (the regular expressions `c{n,}` and `c+`).
struct Replace {
  std::u32string pattern;
  size_t min_repeat = 0;  // 0: `pattern` is a literal string
  std::u32string content;

  NormalizedText Apply(const NormalizedText& in) const;
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_NORMALIZERS_H_
