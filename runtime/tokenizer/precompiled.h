// SentencePiece's precompiled normalization, as Hugging Face's `Precompiled`
// normalizer runs it (T5, XLM-R, mT5 and other Unigram files carry it as
// `precompiled_charsmap`): a Darts double-array trie over UTF-8 keys and a
// blob of NUL-terminated replacements. Each grapheme cluster shorter than 6
// bytes is looked up whole, else code point by code point; the first (the
// shortest) prefix the trie holds gives the replacement of the whole chunk,
// quirks included (docs/tokenizers.md).
#ifndef ENC_RUNTIME_TOKENIZER_PRECOMPILED_H_
#define ENC_RUNTIME_TOKENIZER_PRECOMPILED_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/normalized.h"
#include "tokenizer/tables.h"

namespace enc {
namespace tok {

struct Precompiled {
  Table<uint32_t> trie;      // Darts units
  Table<char> replacements;  // NUL-terminated UTF-8 strings
  // SentencePiece's matching (a .model file's): the longest key at each
  // position, rather than HF's first key of each grapheme cluster.
  bool longest_match = false;

  // Reads the charsmap (base64 in tokenizer.json); false with *why saying
  // what is wrong in a malformed one.
  bool Parse(std::string_view base64, std::string* why);
  // The same from the charsmap's bytes (a SentencePiece .model holds them).
  bool ParseBytes(const std::string& blob, std::string* why);

  // The replacement of `chunk` (UTF-8), or false when it has none.
  bool Transform(std::string_view chunk, std::string_view* out) const;

  NormalizedText Apply(const NormalizedText& in) const;

 private:
  template <class OnLeaf>
  void Search(std::string_view key, OnLeaf on_leaf) const;
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_PRECOMPILED_H_
