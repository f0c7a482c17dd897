// The nesting depth of JSON text (brackets outside strings): what a reader
// of untrusted JSON (a tokenizer file, an HTTP request) checks against its
// limit before parsing, so a deep document is refused, not recursed into.
#ifndef ENC_RUNTIME_SRC_JSON_DEPTH_H_
#define ENC_RUNTIME_SRC_JSON_DEPTH_H_

#include <algorithm>
#include <string_view>

namespace enc {

inline int JsonDepth(std::string_view text) {
  int depth = 0, max = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') max = std::max(max, ++depth);
    if (c == ']' || c == '}') --depth;
  }
  return max;
}

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_JSON_DEPTH_H_
