#include "src/foreign_layout.h"

#include <vector>

#include "enc/checkpoint_names.h"

namespace enc {
namespace {

// `name` matches `pattern`, where '#' stands for one or more digits.
bool Matches(const char* name, const char* pattern) {
  while (*pattern != '\0') {
    if (*pattern == '#') {
      if (*name < '0' || *name > '9') return false;
      while (*name >= '0' && *name <= '9') ++name;
      ++pattern;
    } else if (*name++ != *pattern++) {
      return false;
    }
  }
  return *name == '\0';
}

struct Candidate {
  std::string prefix;
  std::string pattern;  // a tensor every checkpoint of the family has
  std::string family;
};

// From families.def: each layout's name for block 0's query,
// first under the layout's prefix (which tells apart families that share
// their encoder's names, as `bert.` and `roberta.` do), then bare, where
// families that share the name are named together ("BERT, RoBERTa or
// ELECTRA").
std::vector<Candidate> Candidates() {
  std::vector<Candidate> prefixed, bare;
  std::vector<std::vector<std::string>> bare_families;
  for (const checkpoint::LayoutRow& row : checkpoint::kLayouts) {
    const std::string pattern = checkpoint::SignatureName(row.layout);
    if (pattern.empty()) continue;
    if (row.prefix[0] != '\0')
      prefixed.push_back({row.prefix, pattern, row.family});
    size_t i = 0;
    while (i < bare.size() && bare[i].pattern != pattern) ++i;
    if (i == bare.size()) {
      bare.push_back({"", pattern, ""});
      bare_families.emplace_back();
    }
    bare_families[i].push_back(row.family);
  }
  for (size_t i = 0; i < bare.size(); ++i) {
    const std::vector<std::string>& names = bare_families[i];
    for (size_t j = 0; j < names.size(); ++j) {
      if (j > 0) bare[i].family += j + 1 == names.size() ? " or " : ", ";
      bare[i].family += names[j];
    }
  }
  prefixed.insert(prefixed.end(), bare.begin(), bare.end());
  return prefixed;
}

}  // namespace

bool GuessForeignLayout(const SafeTensors& file, ForeignLayout* out) {
  static const std::vector<Candidate> kCandidates = Candidates();
  for (const Candidate& candidate : kCandidates) {
    const size_t n = candidate.prefix.size();
    for (const auto& [name, info] : file.tensors()) {
      (void)info;
      if (name.compare(0, n, candidate.prefix) != 0) continue;
      if (!Matches(name.c_str() + n, candidate.pattern.c_str())) continue;
      out->family = candidate.family.c_str();
      out->example = name;
      return true;
    }
  }
  return false;
}

}  // namespace enc
