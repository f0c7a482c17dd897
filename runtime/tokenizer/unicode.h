// The Unicode facts the tokenizers use, from utf8proc (a maintained
// library, Unicode 15 in Debian 12) rather than tables of our own: UTF-8
// decoding with validation, general categories, canonical decomposition and
// lowercasing, and the predicates of Hugging Face's normalizers and
// pre-tokenizers (which follow Rust's char methods).
#ifndef ENC_RUNTIME_TOKENIZER_UNICODE_H_
#define ENC_RUNTIME_TOKENIZER_UNICODE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace enc {
namespace tok {

// The code points of `s` and the byte offset each starts at (one more entry
// at the end: s.size()). False if `s` is not valid UTF-8 (an overlong form,
// a surrogate, a truncated sequence, a stray continuation byte, a value past
// U+10FFFF), with *bad the byte offset of the first invalid sequence.
bool DecodeUtf8(std::string_view s, std::vector<char32_t>* cps,
                std::vector<int64_t>* starts, int64_t* bad);

// DecodeUtf8's check alone, without the arrays.
bool ValidUtf8(std::string_view s, int64_t* bad);

void AppendUtf8(char32_t c, std::string* out);

// Rust's char::is_whitespace (the White_Space property): Zs, Zl, Zp and the
// controls U+0009..U+000D and U+0085.
bool IsWhitespace(char32_t c);
// Hugging Face's BertNormalizer: \t \n \r are whitespace, not control;
// other Cc, Cf, Cn, Co (and Cs) are control.
bool IsBertControl(char32_t c);
// An ASCII punctuation character or a Unicode P* one (BertPreTokenizer).
bool IsBertPunctuation(char32_t c);
// The CJK ideograph blocks BertNormalizer pads with spaces.
bool IsChineseChar(char32_t c);
bool IsMarkNonspacing(char32_t c);  // Mn
// Rust's char::is_alphanumeric: the L* and N* categories.
bool IsAlphanumeric(char32_t c);
// \p{L} and \p{N} of the regular expressions HF's pre-tokenizers use.
bool IsLetter(char32_t c);
bool IsNumber(char32_t c);

// The canonical decomposition (NFD) of c, appended to out.
void AppendNfd(char32_t c, std::vector<char32_t>* out);
// The full lowercase mapping of c (Rust's char::to_lowercase, which maps
// U+0130 to two code points), appended to out.
void AppendLowercase(char32_t c, std::vector<char32_t>* out);

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_UNICODE_H_
