#include "tokenizer/normalized.h"

namespace enc {
namespace tok {

void ApplyChanges(const NormalizedText& in,
                  const std::vector<std::pair<char32_t, int>>& changes,
                  NormalizedText* out) {
  out->Clear();
  const size_t n = in.size();
  if (n == 0) return;
  size_t pos = 0;  // the next input code point
  for (const auto& [c, change] : changes) {
    if (change > 0) {
      // Inserted: the range of the code point before (HF's alignment of the
      // byte before), or an empty one at the start.
      if (pos == 0) {
        out->Push(c, in.begin[0], in.begin[0]);
      } else {
        out->Push(c, in.begin[pos - 1], in.end[pos - 1]);
      }
      continue;
    }
    const size_t at = pos < n ? pos : n - 1;
    out->Push(c, in.begin[at], in.end[at]);
    pos += 1 + static_cast<size_t>(-change);
  }
}

}  // namespace tok
}  // namespace enc
