// The text the tokenizer's pieces pass along (tokenizer/tokenizer.h): code
// points after normalization, each with the byte range of the original text
// it came from, and the tokens a model makes of it.
#ifndef ENC_RUNTIME_TOKENIZER_NORMALIZED_H_
#define ENC_RUNTIME_TOKENIZER_NORMALIZED_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace enc {
namespace tok {

// Text after normalization: each code point with the byte range of the
// original text it came from (an inserted or expanded code point has the
// range of the one it replaced), so that token offsets point into the input.
struct NormalizedText {
  std::vector<char32_t> cps;
  std::vector<int64_t> begin, end;

  void Push(char32_t c, int64_t b, int64_t e) {
    cps.push_back(c);
    begin.push_back(b);
    end.push_back(e);
  }
  void Clear() {
    cps.clear();
    begin.clear();
    end.clear();
  }
  size_t size() const { return cps.size(); }
};

// A normalizer's output as Hugging Face's NormalizedString::transform takes
// it: each code point with its change, 0 for one that replaces the next
// input code point, +1 for one inserted (it gets the range of the input
// code point before), -n for one that replaces the next input code point
// and removes n more. `out` gets the code points with their ranges; input
// left over is dropped, as in HF.
void ApplyChanges(const NormalizedText& in,
                  const std::vector<std::pair<char32_t, int>>& changes,
                  NormalizedText* out);

// One token of the model, before post-processing.
struct Token {
  int32_t id;
  int64_t begin, end;  // bytes of the original text
  // An added token's lstrip/rstrip whitespace, in code points at either
  // end of [begin, end): HF's token spans it (ByteLevel's trimming may
  // drop it).
  int64_t stripped_begin = 0, stripped_end = 0;
  // The token's string where HF's is not the vocabulary's (an added token
  // with its stripped whitespace, an unknown Unigram piece's text); empty
  // otherwise.
  std::string text = std::string();
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_NORMALIZED_H_
