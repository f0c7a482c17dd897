#include "src/foreign_layout.h"

#include <cstring>

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

struct Layout {
  const char* family;
  const char* pattern;  // a tensor every checkpoint of the family has
};

// The family prefix (`bert.` in BertForMaskedLM) decides between families
// that share their encoder's names.
constexpr struct {
  const char* prefix;
  Layout layout;
} kLayouts[] = {
    {"bert.", {"BERT", "encoder.layer.#.attention.self.query.weight"}},
    {"roberta.", {"RoBERTa", "encoder.layer.#.attention.self.query.weight"}},
    {"", {"BERT or RoBERTa", "encoder.layer.#.attention.self.query.weight"}},
    {"distilbert.", {"DistilBERT", "transformer.layer.#.attention.q_lin.weight"}},
    {"", {"DistilBERT", "transformer.layer.#.attention.q_lin.weight"}},
    {"", {"T5", "encoder.block.#.layer.0.SelfAttention.q.weight"}},
    {"model.", {"ModernBERT", "layers.#.attn.Wqkv.weight"}},
    {"", {"ModernBERT", "layers.#.attn.Wqkv.weight"}},
};

}  // namespace

bool GuessForeignLayout(const SafeTensors& file, ForeignLayout* out) {
  for (const auto& candidate : kLayouts) {
    const size_t n = std::strlen(candidate.prefix);
    for (const auto& [name, info] : file.tensors()) {
      (void)info;
      if (name.compare(0, n, candidate.prefix) != 0) continue;
      if (!Matches(name.c_str() + n, candidate.layout.pattern)) continue;
      out->family = candidate.layout.family;
      out->example = name;
      return true;
    }
  }
  return false;
}

}  // namespace enc
