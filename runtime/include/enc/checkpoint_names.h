// Tensor names of the checkpoint layouts (families.def), for C++:
// encc lists a layout's names in the generated header with FileNames; the
// loader finds a canonical name's tensor, or row slice of a fused tensor,
// under the layout's prefix and alternates with Candidates. Header-only so
// that the compiler and the runtime read the one table.
#ifndef ENC_CHECKPOINT_NAMES_H_
#define ENC_CHECKPOINT_NAMES_H_

#include <cctype>
#include <cstdint>
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
  const char* family;
};
inline constexpr LayoutRow kLayouts[] = {
#define ENC_FAMILY(E, LangName, S, P, F) {E, S, P, F},
#include "enc/families.def"
};

struct NameRow {
  enc_checkpoint layout;
  bool gated;  // an ENC_CHECKPOINT_GATED_NAME row
  const char* canonical;
  const char* file;
  int32_t part, parts;  // a row slice when parts > 1
};
inline constexpr NameRow kNames[] = {
#define ENC_CHECKPOINT_NAME(L, C, F) {L, false, C, F, 0, 1},
#define ENC_CHECKPOINT_GATED_NAME(L, C, F) {L, true, C, F, 0, 1},
#define ENC_CHECKPOINT_SLICE(L, C, F, Part, Parts) \
  {L, false, C, F, Part, Parts},
#include "enc/families.def"
};

constexpr bool SlicesAreValid() {
  for (const NameRow& r : kNames)
    if (r.parts < 1 || r.part < 0 || r.part >= r.parts) return false;
  return true;
}
static_assert(SlicesAreValid(), "a row slice's part is outside 0..parts-1");

// Where the file holds a canonical tensor of r rows: tensor `name`, which
// stacks `parts` tensors of r rows, and rows [part * r, (part + 1) * r) of
// it. parts == 1: the whole tensor.
struct FileRef {
  std::string name;
  int32_t part = 0;
  int32_t parts = 1;
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
      while (n < name.size() &&
             std::isdigit(static_cast<unsigned char>(name[n])))
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

// Whether a model that reads the canonical tensor `name` has a gated
// feed-forward layer: its gate is read only then. The loader and the header
// tell the layouts' gated names (ENC_CHECKPOINT_GATED_NAME) by it.
inline bool IsGateName(std::string_view name) {
  std::string index;
  std::string_view rest;
  return Match("blocks.#.ffn.gate.", name, &index, &rest);
}

// Where `canonical` is in the file of `layout` for an encoder with a gated
// feed-forward layer or not: the table's names, the one the header lists
// first. Empty when the layout has no name for it; {canonical} for enc.
inline std::vector<FileRef> FileNames(enc_checkpoint layout,
                                      std::string_view canonical, bool gated) {
  if (layout == ENC_CHECKPOINT_ENC) return {FileRef{std::string(canonical)}};
  std::vector<FileRef> out;
  std::string index;
  std::string_view rest;
  for (bool gated_rows : {true, false}) {
    if (gated_rows && !gated) continue;
    for (const NameRow& r : kNames)
      if (r.layout == layout && r.gated == gated_rows &&
          Match(r.canonical, canonical, &index, &rest))
        out.push_back(FileRef{Expand(r.file, index, rest), r.part, r.parts});
    if (!out.empty()) break;
  }
  return out;
}

// Every place the file may hold `canonical`, in the order the loader tries
// them: the table's names, each also with gamma / beta for a norm's weight /
// bias, then all of them under the layout's prefix. Empty when the layout
// has no name for it.
inline std::vector<FileRef> Candidates(enc_checkpoint layout,
                                       std::string_view canonical, bool gated) {
  std::vector<FileRef> refs = FileNames(layout, canonical, gated);
  if (layout == ENC_CHECKPOINT_ENC || refs.empty()) return refs;
  const bool norm = canonical.find("norm") != std::string_view::npos;
  auto ends_with = [](const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (norm) {
    const size_t table_refs = refs.size();
    for (size_t i = 0; i < table_refs; ++i) {
      FileRef r = refs[i];
      if (ends_with(r.name, ".weight"))
        r.name = r.name.substr(0, r.name.size() - 6) + "gamma";
      else if (ends_with(r.name, ".bias"))
        r.name = r.name.substr(0, r.name.size() - 4) + "beta";
      else
        continue;
      refs.push_back(r);
    }
  }
  const LayoutRow* row = Find(layout);
  if (row != nullptr && row->prefix[0] != '\0') {
    const size_t unprefixed = refs.size();
    for (size_t i = 0; i < unprefixed; ++i) {
      FileRef r = refs[i];
      r.name = row->prefix + r.name;
      refs.push_back(r);
    }
  }
  return refs;
}

// The file's name in `layout` for the canonical name every family's
// checkpoint has (block 0's query weight), with '#' for the block index: how
// a file in the layout is recognised. Empty for enc.
inline std::string SignatureName(enc_checkpoint layout) {
  if (layout == ENC_CHECKPOINT_ENC) return "";
  std::string index;
  std::string_view rest;
  for (const NameRow& r : kNames)
    if (r.layout == layout && !r.gated &&
        Match(r.canonical, "blocks.0.attn.q.weight", &index, &rest))
      return Expand(r.file, "#", rest);
  return "";
}

}  // namespace checkpoint
}  // namespace enc

#endif  // ENC_CHECKPOINT_NAMES_H_
