#include "tokenizer/precompiled.h"

#include <utf8proc.h>

#include <cstring>
#include <utility>

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

bool DecodeBase64(std::string_view in, std::string* out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out->clear();
  uint32_t bits = 0;
  int count = 0;
  size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    const int v = value(in[i]);
    if (v < 0) return false;
    bits = bits << 6 | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out->push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  for (; i < in.size(); ++i) {
    if (in[i] != '=') return false;
  }
  return true;
}

// The fields of a Darts unit.
bool HasLeaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t Value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t Label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t Offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

}  // namespace

bool Precompiled::Parse(std::string_view base64, std::string* why) {
  std::string blob;
  if (!DecodeBase64(base64, &blob)) {
    *why = "precompiled_charsmap is not base64";
    return false;
  }
  if (blob.size() < 4) {
    *why = "precompiled_charsmap is shorter than its header";
    return false;
  }
  uint32_t trie_bytes = 0;
  for (int k = 3; k >= 0; --k) {
    trie_bytes = trie_bytes << 8 | static_cast<unsigned char>(blob[k]);
  }
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4 || trie_bytes == 0) {
    *why = "precompiled_charsmap's trie size " + std::to_string(trie_bytes) +
           " does not fit its " + std::to_string(blob.size()) + " bytes";
    return false;
  }
  trie.resize(trie_bytes / 4);
  for (size_t i = 0; i < trie.size(); ++i) {
    uint32_t u = 0;
    for (int k = 3; k >= 0; --k) {
      u = u << 8 | static_cast<unsigned char>(blob[4 + 4 * i + k]);
    }
    trie[i] = u;
  }
  replacements = blob.substr(4 + trie_bytes);
  std::vector<char32_t> cps;
  std::vector<int64_t> starts;
  int64_t bad = 0;
  if (!DecodeUtf8(replacements, &cps, &starts, &bad)) {
    *why = "precompiled_charsmap's replacements are not UTF-8 at byte " +
           std::to_string(bad);
    return false;
  }
  return true;
}

bool Precompiled::Transform(std::string_view chunk,
                            std::string_view* out) const {
  // Darts' common prefix search, stopped at the first (shortest) match;
  // every index is checked, so a hostile trie reads nothing outside it.
  size_t node = 0;
  if (trie.empty()) return false;
  node ^= Offset(trie[0]);
  for (char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) return false;
    node ^= c;
    if (node >= trie.size()) return false;
    const uint32_t unit = trie[node];
    if (Label(unit) != c) return false;
    node ^= Offset(unit);
    if (HasLeaf(unit)) {
      if (node >= trie.size()) return false;
      const size_t begin = Value(trie[node]);
      if (begin >= replacements.size()) return false;
      const size_t end = replacements.find('\0', begin);
      *out = std::string_view(replacements)
                 .substr(begin, end == std::string::npos ? std::string::npos
                                                         : end - begin);
      // A replacement that starts inside a code point is not text.
      return (static_cast<unsigned char>(replacements[begin]) & 0xC0) != 0x80;
    }
  }
  return false;
}

NormalizedText Precompiled::Apply(const NormalizedText& in) const {
  std::vector<std::pair<char32_t, int>> changes;
  changes.reserve(in.size());
  bool modified = false;
  std::vector<char32_t> repl_cps;
  std::vector<int64_t> repl_starts;
  int64_t bad = 0;
  // HF's replace(): the replacement's code points, the surplus marked as
  // inserted, a shortfall charged to the last code point pushed.
  auto replace = [&](size_t old_count, std::string_view with) {
    DecodeUtf8(with, &repl_cps, &repl_starts, &bad);
    for (char32_t c : repl_cps) changes.emplace_back(c, 0);
    const long diff =
        static_cast<long>(repl_cps.size()) - static_cast<long>(old_count);
    if (diff > 0) {
      for (long k = 0; k < diff; ++k) {
        changes[changes.size() - 1 - static_cast<size_t>(k)].second = 1;
      }
    } else if (diff < 0 && !changes.empty()) {
      changes.back().second += static_cast<int>(diff);
    }
    modified = true;
  };
  std::string chunk;
  std::string_view with;
  size_t i = 0;
  const size_t n = in.size();
  while (i < n) {
    // The extended grapheme cluster at i.
    size_t end = i + 1;
    utf8proc_int32_t state = 0;
    while (end < n && !utf8proc_grapheme_break_stateful(
                          static_cast<utf8proc_int32_t>(in.cps[end - 1]),
                          static_cast<utf8proc_int32_t>(in.cps[end]), &state)) {
      ++end;
    }
    chunk.clear();
    for (size_t k = i; k < end; ++k) AppendUtf8(in.cps[k], &chunk);
    if (chunk.size() < 6 && Transform(chunk, &with)) {
      replace(end - i, with);
    } else {
      for (size_t k = i; k < end; ++k) {
        chunk.clear();
        AppendUtf8(in.cps[k], &chunk);
        if (Transform(chunk, &with)) {
          replace(1, with);
        } else {
          changes.emplace_back(in.cps[k], 0);
        }
      }
    }
    i = end;
  }
  if (!modified) return in;
  NormalizedText out;
  ApplyChanges(in, changes, &out);
  return out;
}

}  // namespace tok
}  // namespace enc
