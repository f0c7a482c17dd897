// Hugging Face's BPE model (RoBERTa, ModernBERT, GPT-2 vocabularies): a
// word's code points looked up one by one (byte_fallback and unk_token for
// those the vocabulary lacks), then merged by rank, lowest first, as
// `tokenizers` does with its heap (docs/tokenizers.md). Words already split
// are kept in a per-thread cache, so one Bpe serves many threads.
#ifndef ENC_RUNTIME_TOKENIZER_BPE_H_
#define ENC_RUNTIME_TOKENIZER_BPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/normalized.h"
#include "tokenizer/tables.h"
#include "tokenizer/word_cache.h"

namespace enc {
namespace tok {

struct BpeMerge {
  int32_t rank, merged;  // the merged token's id
};

struct Bpe {
  StrIdMap vocab;
  // (left id, right id) as one key (PairKey).
  U64Map<BpeMerge> merges;
  int32_t unk_id = -1;  // -1: unknown code points are dropped, as in HF
  bool fuse_unk = false;
  bool byte_fallback = false;  // unknown code points as <0xXX> tokens
  bool ignore_merges = false;  // a word in the vocabulary is one token
  std::string continuing_subword_prefix, end_of_word_suffix;
  uint64_t cache_key = 0;  // tells this model's cache entries apart

  static uint64_t PairKey(int32_t a, int32_t b) {
    return static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32 |
           static_cast<uint32_t>(b);
  }

  // Appends the tokens of word [first, last) of `text`.
  void Tokenize(const NormalizedText& text, size_t first, size_t last,
                std::string* scratch, std::vector<Token>* out) const;

 private:
  void Split(const NormalizedText& text, size_t first, size_t last,
             std::vector<Subword>* pieces) const;
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_BPE_H_
