#include "tokenizer/byte_level.h"

#include <algorithm>
#include <array>

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

// GPT-2's bytes_to_unicode: the printable bytes ('!'..'~', U+00A1..U+00AC,
// U+00AE..U+00FF) stand for themselves, the other 68 for U+0100 on, in
// byte order.
struct ByteTable {
  std::array<char32_t, 256> to_char{};
  std::array<int16_t, 324> to_byte{};  // code points below U+0144

  ByteTable() {
    to_byte.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable =
          (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      to_char[b] = printable ? static_cast<char32_t>(b) : next++;
      to_byte[to_char[b]] = static_cast<int16_t>(b);
    }
  }
};

const ByteTable& Table() {
  static const ByteTable table;
  return table;
}

// The contractions of GPT-2's expression: 's 't 're 've 'm 'll 'd (after
// the apostrophe at i); the length matched, 0 for none.
size_t Contraction(const std::vector<char32_t>& c, size_t i, size_t last) {
  if (c[i] != '\'' || i + 1 >= last) return 0;
  const char32_t a = c[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= last) return 0;
  const char32_t b = c[i + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') ||
      (a == 'l' && b == 'l')) {
    return 3;
  }
  return 0;
}

bool IsOther(char32_t c) {
  return !IsWhitespace(c) && !IsLetter(c) && !IsNumber(c);
}

}  // namespace

void ByteLevelSplit(const NormalizedText& text, size_t first, size_t last,
                    std::vector<std::pair<size_t, size_t>>* words) {
  const std::vector<char32_t>& c = text.cps;
  size_t i = first;
  while (i < last) {
    size_t end = i;
    if (const size_t n = Contraction(c, i, last)) {
      end = i + n;
    } else {
      // ` ?X+` for X in \p{L}, \p{N}, [^\s\p{L}\p{N}], in that order.
      const size_t body = c[i] == ' ' && i + 1 < last ? i + 1 : i;
      bool (*const classes[])(char32_t) = {IsLetter, IsNumber, IsOther};
      for (auto in_class : classes) {
        if (!in_class(c[body])) continue;
        end = body + 1;
        while (end < last && in_class(c[end])) ++end;
        break;
      }
    }
    if (end == i) {
      // \s+(?!\S) then \s+: a run of whitespace, less its last code point
      // when a non-space follows and the run is longer than one.
      end = i;
      while (end < last && IsWhitespace(c[end])) ++end;
      if (end < last && end - i > 1) --end;
    }
    words->emplace_back(i, end);
    i = end;
  }
}

char32_t ByteToChar(uint8_t b) { return Table().to_char[b]; }

int CharToByte(char32_t c) {
  return c < Table().to_byte.size() ? Table().to_byte[c] : -1;
}

void AppendByteLevel(const NormalizedText& text, size_t first, size_t last,
                     NormalizedText* out) {
  std::string utf8;
  for (size_t i = first; i < last; ++i) {
    const char32_t c = text.cps[i];
    if (c < 0x80) {
      out->Push(ByteToChar(static_cast<uint8_t>(c)), text.begin[i],
                text.end[i]);
      continue;
    }
    utf8.clear();
    AppendUtf8(c, &utf8);
    for (char byte : utf8) {
      out->Push(ByteToChar(static_cast<uint8_t>(byte)), text.begin[i],
                text.end[i]);
    }
  }
}

TokenSpaces ByteLevelSpaces(const std::string& token) {
  std::vector<char32_t> cps;
  std::vector<int64_t> starts;
  int64_t bad = 0;
  TokenSpaces spaces;
  if (!DecodeUtf8(token, &cps, &starts, &bad)) return spaces;
  const char32_t space = ByteToChar(' ');
  auto is_space = [&](char32_t c) { return c == space || IsWhitespace(c); };
  const auto n = static_cast<int32_t>(cps.size());
  while (spaces.leading < n && is_space(cps[spaces.leading])) {
    ++spaces.leading;
  }
  while (spaces.trailing < n && is_space(cps[n - 1 - spaces.trailing])) {
    ++spaces.trailing;
  }
  return spaces;
}

void TrimByteLevelOffsets(TokenSpaces spaces, bool add_prefix_space, bool first,
                          std::string_view text, Token* t) {
  int64_t lead = spaces.leading + t->stripped_begin;
  const int64_t trail = spaces.trailing + t->stripped_end;
  auto continuation = [&](int64_t at) {
    return at < static_cast<int64_t>(text.size()) &&
           (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  };
  if (lead > 0) {
    if (first && add_prefix_space && lead == 1) lead = 0;
    for (int64_t k = 0; k < lead && t->begin < t->end; ++k) {
      ++t->begin;  // one code point on
      while (t->begin < t->end && continuation(t->begin)) ++t->begin;
    }
  }
  if (trail > 0) {
    // HF moves the end back only when that many code points precede it.
    int64_t at = t->end, k = 0;
    for (; k < trail && at > 0; ++k) {
      --at;
      while (at > 0 && continuation(at)) --at;
    }
    if (k == trail) t->end = std::max(at, t->begin);
  }
}

void AppendByteLevelBytes(std::string_view token, std::string* bytes) {
  const size_t start = bytes->size();
  std::vector<char32_t> cps;
  std::vector<int64_t> starts;
  int64_t bad = 0;
  if (DecodeUtf8(token, &cps, &starts, &bad)) {
    for (char32_t c : cps) {
      const int b = CharToByte(c);
      if (b < 0) {  // not from the table: the token's own bytes
        bytes->resize(start);
        bytes->append(token);
        return;
      }
      bytes->push_back(static_cast<char>(b));
    }
    return;
  }
  bytes->append(token);
}

void AppendUtf8Lossy(const std::string& bytes, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = p[i];
    if (b < 0x80) {
      out->push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    // The continuation bytes the lead byte needs, and the range of the
    // first (Unicode's table of well-formed sequences).
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    }
    size_t j = i + 1;
    size_t got = 0;
    while (got < need && j < n) {
      const unsigned char c = p[j];
      const unsigned char l = got == 0 ? lo : 0x80, h = got == 0 ? hi : 0xBF;
      if (c < l || c > h) break;
      ++got;
      ++j;
    }
    if (need > 0 && got == need) {
      out->append(bytes, i, j - i);
    } else {
      out->append("\xEF\xBF\xBD");  // U+FFFD for the maximal invalid part
    }
    i = need == 0 ? i + 1 : j;
  }
}

}  // namespace tok
}  // namespace enc
