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
  return ParseBytes(blob, why);
}

bool Precompiled::ParseBytes(const std::string& blob, std::string* why) {
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
  std::vector<uint32_t>& units = trie.Edit();
  units.resize(trie_bytes / 4);
  for (size_t i = 0; i < units.size(); ++i) {
    uint32_t u = 0;
    for (int k = 3; k >= 0; --k) {
      u = u << 8 | static_cast<unsigned char>(blob[4 + 4 * i + k]);
    }
    units[i] = u;
  }
  replacements.Edit().assign(blob.begin() + 4 + trie_bytes, blob.end());
  int64_t bad = 0;
  if (!ValidUtf8(std::string_view(replacements.data(), replacements.size()),
                 &bad)) {
    *why = "precompiled_charsmap's replacements are not UTF-8 at byte " +
           std::to_string(bad);
    return false;
  }
  return true;
}

// Darts' common prefix search over `key`: calls on_leaf(bytes matched,
// replacement) for each prefix the trie holds, shortest first, until it
// returns false. Every index is checked, so a hostile trie reads nothing
// outside it.
template <class OnLeaf>
void Precompiled::Search(std::string_view key, OnLeaf on_leaf) const {
  size_t node = 0;
  if (trie.empty()) return;
  node ^= Offset(trie[0]);
  for (size_t i = 0; i < key.size(); ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c == 0) return;
    node ^= c;
    if (node >= trie.size()) return;
    const uint32_t unit = trie[node];
    if (Label(unit) != c) return;
    node ^= Offset(unit);
    if (HasLeaf(unit)) {
      if (node >= trie.size()) return;
      const size_t begin = Value(trie[node]);
      if (begin >= replacements.size()) return;
      // A replacement that starts inside a code point is not text.
      if ((static_cast<unsigned char>(replacements[begin]) & 0xC0) == 0x80) {
        return;
      }
      const std::string_view all(replacements.data(), replacements.size());
      const size_t end = all.find('\0', begin);
      const std::string_view with = all.substr(
          begin,
          end == std::string_view::npos ? std::string_view::npos : end - begin);
      if (!on_leaf(i + 1, with)) return;
    }
  }
}

bool Precompiled::Transform(std::string_view chunk,
                            std::string_view* out) const {
  bool found = false;
  Search(chunk, [&](size_t, std::string_view with) {
    *out = with;
    found = true;
    return false;  // the first (shortest) match
  });
  return found;
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
  if (longest_match) {
    // SentencePiece's own rule: the longest key at each position, else the
    // code point as it is. The text in UTF-8 once; the trie walk at each
    // position stops where no key continues.
    std::string text;
    std::vector<size_t> start(n + 1);
    for (size_t k = 0; k < n; ++k) {
      start[k] = text.size();
      AppendUtf8(in.cps[k], &text);
    }
    start[n] = text.size();
    while (i < n) {
      size_t best_bytes = 0;
      Search(std::string_view(text).substr(start[i]),
             [&](size_t bytes, std::string_view w) {
               best_bytes = bytes;
               with = w;
               return true;
             });
      // The code points the longest key covers (a key that ends inside one
      // is no match).
      size_t count = 0;
      while (i + count < n && start[i + count + 1] - start[i] <= best_bytes) {
        ++count;
      }
      if (best_bytes != 0 && start[i + count] - start[i] == best_bytes) {
        replace(count, with);
        i += count;
      } else {
        changes.emplace_back(in.cps[i], 0);
        ++i;
      }
    }
    if (!modified) return in;
    NormalizedText out;
    ApplyChanges(in, changes, &out);
    return out;
  }
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
