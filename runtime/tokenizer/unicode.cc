#include "tokenizer/unicode.h"

#include <utf8proc.h>

namespace enc {
namespace tok {
namespace {

utf8proc_category_t Category(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

}  // namespace

namespace {
// Calls f(code point, byte offset) for each code point of s; false at the
// first invalid sequence, with *bad its offset.
template <class F>
bool EachCodePoint(std::string_view s, int64_t* bad, F f) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  const int64_t n = static_cast<int64_t>(s.size());
  for (int64_t i = 0; i < n;) {
    if (p[i] < 0x80) {  // ASCII: most text, without a call
      f(static_cast<char32_t>(p[i]), i);
      ++i;
      continue;
    }
    utf8proc_int32_t c = 0;
    const utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &c);
    if (len <= 0 || c < 0) {
      *bad = i;
      return false;
    }
    f(static_cast<char32_t>(c), i);
    i += len;
  }
  return true;
}
}  // namespace

bool DecodeUtf8(std::string_view s, std::vector<char32_t>* cps,
                std::vector<int64_t>* starts, int64_t* bad) {
  cps->clear();
  starts->clear();
  if (!EachCodePoint(s, bad, [&](char32_t c, int64_t at) {
        cps->push_back(c);
        starts->push_back(at);
      })) {
    return false;
  }
  starts->push_back(static_cast<int64_t>(s.size()));
  return true;
}

bool ValidUtf8(std::string_view s, int64_t* bad) {
  return EachCodePoint(s, bad, [](char32_t, int64_t) {});
}

void AppendUtf8(char32_t c, std::string* out) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t len =
      utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
}

bool IsWhitespace(char32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85) return true;
  if (c < 0x80) return false;
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
      return true;
    default:
      return false;
  }
}

bool IsBertControl(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CS:
      return true;
    default:
      return false;
  }
}

bool IsBertPunctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  if (c < 0x80) return false;
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool IsMarkNonspacing(char32_t c) {
  return c >= 0x300 && Category(c) == UTF8PROC_CATEGORY_MN;
}

bool IsAlphanumeric(char32_t c) { return IsLetter(c) || IsNumber(c); }

bool IsLetter(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      return true;
    default:
      return false;
  }
}

bool IsNumber(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

void AppendNfd(char32_t c, std::vector<char32_t>* out) {
  if (c < 0xC0) {  // nothing below U+00C0 decomposes
    out->push_back(c);
    return;
  }
  utf8proc_int32_t buf[32];
  int boundclass = UTF8PROC_BOUNDCLASS_START;
  const utf8proc_ssize_t n =
      utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 32,
                              UTF8PROC_DECOMPOSE, &boundclass);
  if (n <= 0 || n > 32) {
    out->push_back(c);
    return;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) {
    out->push_back(static_cast<char32_t>(buf[i]));
  }
}

void AppendLowercase(char32_t c, std::vector<char32_t>* out) {
  if (c < 0x80) {
    out->push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return;
  }
  if (c == 0x130) {  // SpecialCasing: LATIN CAPITAL LETTER I WITH DOT ABOVE
    out->push_back(0x69);
    out->push_back(0x307);
    return;
  }
  out->push_back(static_cast<char32_t>(
      utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
}

}  // namespace tok
}  // namespace enc
