#include "tokenizer/normalizers.h"

#include <utf8proc.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

int CombiningClass(char32_t c) {
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(c))
      ->combining_class;
}

// The composite of starter l and c, or 0.
char32_t Compose(char32_t l, char32_t c) {
  utf8proc_int32_t buf[2] = {static_cast<utf8proc_int32_t>(l),
                             static_cast<utf8proc_int32_t>(c)};
  const utf8proc_ssize_t n = utf8proc_normalize_utf32(buf, 2, UTF8PROC_COMPOSE);
  return n == 1 ? static_cast<char32_t>(buf[0]) : 0;
}

using Changes = std::vector<std::pair<char32_t, int>>;

// Each input code point decomposed (its first code point changes 0, the
// rest are inserted), then each run of non-starters put in canonical order
// with their changes.
Changes Decompose(const NormalizedText& in, bool compat) {
  Changes out;
  out.reserve(in.size());
  const auto options = static_cast<utf8proc_option_t>(
      UTF8PROC_DECOMPOSE | (compat ? UTF8PROC_COMPAT : 0));
  utf8proc_int32_t buf[32];
  for (char32_t c : in.cps) {
    int boundclass = UTF8PROC_BOUNDCLASS_START;
    const utf8proc_ssize_t n =
        c < 0xA0 ? 0
                 : utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c),
                                           buf, 32, options, &boundclass);
    if (n <= 0 || n > 32) {
      out.emplace_back(c, 0);
      continue;
    }
    for (utf8proc_ssize_t k = 0; k < n; ++k) {
      out.emplace_back(static_cast<char32_t>(buf[k]), k == 0 ? 0 : 1);
    }
  }
  for (size_t i = 0; i < out.size();) {
    if (CombiningClass(out[i].first) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && CombiningClass(out[j].first) != 0) ++j;
    // Stable insertion sort by class: the runs are a few code points.
    // (libstdc++'s stable_sort uses the deprecated get_temporary_buffer.)
    for (size_t k = i + 1; k < j; ++k) {
      for (size_t m = k; m > i && CombiningClass(out[m - 1].first) >
                                      CombiningClass(out[m].first);
           --m) {
        std::swap(out[m - 1], out[m]);
      }
    }
    i = j;
  }
  return out;
}

// Canonical composition over decomposed code points: a code point not
// blocked from the last starter and composing with it joins it; the
// composite takes the changes of both and loses one.
Changes Recompose(const Changes& in) {
  Changes out;
  out.reserve(in.size());
  size_t starter = 0;
  bool have_starter = false;
  for (const auto& [c, change] : in) {
    const int cls = CombiningClass(c);
    if (have_starter) {
      const bool adjacent = starter + 1 == out.size();
      const int between = adjacent ? -1 : CombiningClass(out.back().first);
      const bool blocked = between != -1 && (between == 0 || between >= cls);
      if (!blocked) {
        if (const char32_t composite = Compose(out[starter].first, c)) {
          out[starter].first = composite;
          out[starter].second += change - 1;
          continue;
        }
      }
    }
    if (cls == 0) {
      starter = out.size();
      have_starter = true;
    }
    out.emplace_back(c, change);
  }
  return out;
}

bool AllAscii(const NormalizedText& in) {
  return std::all_of(in.cps.begin(), in.cps.end(),
                     [](char32_t c) { return c < 0x80; });
}

}  // namespace

NormalizedText ApplyUnicodeForm(UnicodeForm form, const NormalizedText& in) {
  if (AllAscii(in)) return in;  // ASCII is in every form
  Changes changes;
  switch (form) {
    case UnicodeForm::kNfd:
      changes = Decompose(in, false);
      break;
    case UnicodeForm::kNfkd:
      changes = Decompose(in, true);
      break;
    case UnicodeForm::kNfc:
      changes = Recompose(Decompose(in, false));
      break;
    case UnicodeForm::kNfkc:
      changes = Recompose(Decompose(in, true));
      break;
  }
  NormalizedText out;
  ApplyChanges(in, changes, &out);
  return out;
}

NormalizedText ApplyLowercase(const NormalizedText& in) {
  NormalizedText out;
  std::vector<char32_t> lowered;
  for (size_t i = 0; i < in.size(); ++i) {
    lowered.clear();
    AppendLowercase(in.cps[i], &lowered);
    // The extra code points of a longer mapping share the range.
    for (char32_t l : lowered) out.Push(l, in.begin[i], in.end[i]);
  }
  return out;
}

NormalizedText ApplyStrip(bool left, bool right, const NormalizedText& in) {
  size_t first = 0, last = in.size();
  if (left) {
    while (first < last && IsWhitespace(in.cps[first])) ++first;
  }
  if (right) {
    while (last > first && IsWhitespace(in.cps[last - 1])) --last;
  }
  NormalizedText out;
  for (size_t i = first; i < last; ++i) {
    out.Push(in.cps[i], in.begin[i], in.end[i]);
  }
  return out;
}

NormalizedText Replace::Apply(const NormalizedText& in) const {
  NormalizedText out;
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    size_t match = 0;  // code points matched at i
    if (min_repeat == 0) {
      if (!pattern.empty() && pattern.size() <= n - i &&
          std::equal(pattern.begin(), pattern.end(), in.cps.begin() + i)) {
        match = pattern.size();
      }
    } else {
      size_t k = i;
      while (k < n && in.cps[k] == pattern[0]) ++k;
      if (k - i >= min_repeat) match = k - i;
    }
    if (match == 0) {
      out.Push(in.cps[i], in.begin[i], in.end[i]);
      ++i;
      continue;
    }
    // HF inserts the content after removing the match: each code point
    // takes the range of the match's last.
    const size_t last = i + match - 1;
    for (char32_t c : content) out.Push(c, in.begin[last], in.end[last]);
    i += match;
  }
  return out;
}

}  // namespace tok
}  // namespace enc
