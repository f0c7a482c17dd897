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
#include <vector>

#include "tokenizer/normalized.h"
#include "tokenizer/tables.h"
#include "tokenizer/word_cache.h"

namespace enc {
namespace tok {

struct Unigram {
  Table<double> scores;  // by id
  StrIdMap vocab;
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
  Table<int32_t> node_id;    // the piece ending at a node, or -1
  U64Map<int64_t> children;  // 64-bit: slots without padding bytes

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
