// Hugging Face's Unigram model (T5, XLM-R, multilingual-E5, ALBERT): the
// best segmentation of a word by the sum of its pieces' log probabilities
// (Viterbi over a byte trie of the pieces), unknown code points scored at
// the lowest score less 10 and fused into one unknown token, byte_fallback
// pieces `<0xXX>` where the model has them (docs/tokenizers.md).
#ifndef ENC_RUNTIME_TOKENIZER_UNIGRAM_H_
#define ENC_RUNTIME_TOKENIZER_UNIGRAM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/normalized.h"
#include "tokenizer/word_cache.h"

namespace enc {
namespace tok {

// A hash table of trie edges, key -> child node: linear probing over a
// power-of-two array at most half full.
class ChildTable {
 public:
  // The child, or -1.
  int32_t Find(uint64_t key) const {
    if (slots_.empty()) return -1;
    const uint64_t k = key + 1;  // 0 marks an empty slot
    for (size_t i = Hash(k) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == k) return slots_[i].value;
      if (slots_[i].key == 0) return -1;
    }
  }
  // Adds an edge that is not there yet.
  void Insert(uint64_t key, int32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    Place(key + 1, value);
    ++size_;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    int32_t value = 0;
  };
  static size_t Hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<size_t>(k);
  }
  void Place(uint64_t k, int32_t v) {
    for (size_t i = Hash(k) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == 0) {
        slots_[i] = Slot{k, v};
        return;
      }
    }
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key != 0) Place(s.key, s.value);
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
};

struct Unigram {
  std::vector<double> scores;  // by id
  std::unordered_map<std::string, int32_t> vocab;
  int32_t unk_id = -1;
  bool fuse_unk = true;
  bool byte_fallback = false;
  double min_score = 0;  // of the matchable pieces
  bool has_min_score = false;
  // SentencePiece's own Viterbi (a .model file's): path scores stored in
  // float (HF: double).
  bool sentencepiece = false;

  // The trie of every piece's bytes: node 0 is the root; a child is found
  // by (node << 8 | byte) in an open-addressing table (the Viterbi's inner
  // loop is this lookup).
  std::vector<int32_t> node_id;  // the piece ending at a node, or -1
  ChildTable children;

  // Adds a piece (pieces must be added in id order); one not `matchable`
  // has its id but is never found in text (SentencePiece's control pieces).
  void Add(const std::string& piece, double score, bool matchable = true);

  uint64_t cache_key = 0;  // tells this model's cache entries apart

  // Appends the tokens of word [first, last) of `text`; false if the word
  // needs an unknown token and the model has none (as HF's MissingUnkId).
  // Words already split are kept in a per-thread cache.
  bool Tokenize(const NormalizedText& text, size_t first, size_t last,
                std::string* scratch, std::vector<Token>* out) const;

 private:
  bool Split(const std::string& word, std::vector<Subword>* out) const;
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_UNIGRAM_H_
