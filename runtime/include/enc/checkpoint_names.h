// Tensor names of the checkpoint layouts (checkpoint_layouts.def), for C++:
// encc bakes a layout's names into the weight descriptors with FileNames;
// the loader finds a tensor under the layout's prefix and alternates with
// Candidates, and names a missing one's canonical name with Canonical.
// Header-only so that the compiler and the runtime read the one table.
#ifndef ENC_CHECKPOINT_NAMES_H_
#define ENC_CHECKPOINT_NAMES_H_

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "enc/kernels/model.h"

namespace enc {
namespace checkpoint {

struct LayoutRow {
  enc_checkpoint layout;
  const char* spelling;
  const char* prefix;
};
inline constexpr LayoutRow kLayouts[] = {
#define ENC_CHECKPOINT_LAYOUT(E, S, P) {E, S, P},
#include "enc/checkpoint_layouts.def"
};

struct NameRow {
  enc_checkpoint layout;
  bool gated;  // an ENC_CHECKPOINT_GATED_NAME row
  const char* canonical;
  const char* file;
};
inline constexpr NameRow kNames[] = {
#define ENC_CHECKPOINT_NAME(L, C, F) {L, false, C, F},
#define ENC_CHECKPOINT_GATED_NAME(L, C, F) {L, true, C, F},
#include "enc/checkpoint_layouts.def"
};

// The layout's row, or nullptr for a value that is not a layout.
inline const LayoutRow* Find(int32_t layout) {
  for (const LayoutRow& r : kLayouts)
    if (static_cast<int32_t>(r.layout) == layout) return &r;
  return nullptr;
}

inline const LayoutRow* FindSpelling(std::string_view spelling) {
  for (const LayoutRow& r : kLayouts)
    if (spelling == r.spelling) return &r;
  return nullptr;
}

// Matches `name` against a pattern of the table: '#' is a block index (one
// or more digits, kept in *index); a pattern ending in '.' matches a prefix
// and *rest is what follows it.
inline bool Match(std::string_view pattern, std::string_view name,
                  std::string* index, std::string_view* rest) {
  size_t n = 0;
  index->clear();
  for (size_t p = 0; p < pattern.size(); ++p) {
    if (pattern[p] == '#') {
      const size_t start = n;
      while (n < name.size() && std::isdigit(static_cast<unsigned char>(name[n])))
        ++n;
      if (n == start) return false;
      *index = std::string(name.substr(start, n - start));
      continue;
    }
    if (n >= name.size() || name[n] != pattern[p]) return false;
    ++n;
  }
  const bool module = !pattern.empty() && pattern.back() == '.';
  *rest = name.substr(n);
  return module ? !rest->empty() : rest->empty();
}

inline std::string Expand(std::string_view pattern, const std::string& index,
                          std::string_view rest) {
  std::string out;
  for (char c : pattern) {
    if (c == '#')
      out += index;
    else
      out += c;
  }
  out += rest;
  return out;
}

// The names `canonical` has in the file of `layout` for an encoder with a
// gated feed-forward layer or not, the one the header lists first. Empty
// when the layout has no name for it; {canonical} for enc.
inline std::vector<std::string> FileNames(enc_checkpoint layout,
                                          std::string_view canonical,
                                          bool gated) {
  if (layout == ENC_CHECKPOINT_ENC) return {std::string(canonical)};
  std::vector<std::string> out;
  std::string index;
  std::string_view rest;
  for (bool gated_rows : {true, false}) {
    if (gated_rows && !gated) continue;
    for (const NameRow& r : kNames)
      if (r.layout == layout && r.gated == gated_rows &&
          Match(r.canonical, canonical, &index, &rest))
        out.push_back(Expand(r.file, index, rest));
    if (!out.empty()) break;
  }
  return out;
}

// The canonical name of a file name of `layout` (unprefixed, as FileNames
// gives it), or "" when the table has none; *gated says whether a gated
// row named it.
inline std::string Canonical(enc_checkpoint layout, std::string_view file,
                             bool* gated = nullptr) {
  if (gated != nullptr) *gated = false;
  if (layout == ENC_CHECKPOINT_ENC) return std::string(file);
  std::string index;
  std::string_view rest;
  for (const NameRow& r : kNames)
    if (r.layout == layout && Match(r.file, file, &index, &rest)) {
      if (gated != nullptr) *gated = r.gated;
      return Expand(r.canonical, index, rest);
    }
  return "";
}

// Every name under which the file may hold the tensor the header lists as
// `file`, in the order the loader tries them: the table's names, each also
// with gamma / beta for a norm's weight / bias, then all of them under the
// layout's prefix.
inline std::vector<std::string> Candidates(enc_checkpoint layout,
                                           std::string_view file) {
  bool gated = false;
  const std::string canonical = Canonical(layout, file, &gated);
  if (layout == ENC_CHECKPOINT_ENC || canonical.empty())
    return {std::string(file)};
  std::vector<std::string> names = FileNames(layout, canonical, gated);
  const bool norm = canonical.find("norm") != std::string::npos;
  auto ends_with = [](const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (norm) {
    const size_t table_names = names.size();
    for (size_t i = 0; i < table_names; ++i) {
      const std::string& s = names[i];
      if (ends_with(s, ".weight"))
        names.push_back(s.substr(0, s.size() - 6) + "gamma");
      else if (ends_with(s, ".bias"))
        names.push_back(s.substr(0, s.size() - 4) + "beta");
    }
  }
  const LayoutRow* row = Find(layout);
  if (row != nullptr && row->prefix[0] != '\0') {
    const size_t unprefixed = names.size();
    for (size_t i = 0; i < unprefixed; ++i) names.push_back(row->prefix + names[i]);
  }
  return names;
}

}  // namespace checkpoint
}  // namespace enc

#endif  // ENC_CHECKPOINT_NAMES_H_
