// The per-thread cache of words already split, shared by the BPE and
// Unigram models (tokenizer/bpe.h, tokenizer/unigram.h), as Hugging Face's
// models cache them: words up to 256 code points, 10,000 words per thread.
// Each model has its own key, so a thread that switches models empties its
// cache, and one model serves many threads without a lock.
#ifndef ENC_RUNTIME_TOKENIZER_WORD_CACHE_H_
#define ENC_RUNTIME_TOKENIZER_WORD_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/normalized.h"

namespace enc {
namespace tok {

// A token of a word and the code points [first, last) of the word it covers
// (a byte_fallback token covers its whole code point); `text` is the token's
// string where HF's is not the vocabulary's (an unknown Unigram piece).
struct Subword {
  int32_t id;
  int32_t first, last;
  std::string text = std::string();
};

// Appends the tokens of `word`, text[first, last) in UTF-8: from the cache,
// or as `split(std::vector<Subword>*)` makes them (false: it cannot, and
// nothing is appended or kept).
template <typename Split>
bool TokenizeCached(uint64_t cache_key, const NormalizedText& text,
                    size_t first, size_t last, const std::string& word,
                    Split split, std::vector<Token>* out) {
  constexpr size_t kCachedWordLength = 256, kCacheWords = 10000;
  struct Cache {
    uint64_t key = 0;
    std::unordered_map<std::string, std::vector<Subword>> words;
  };
  thread_local Cache cache;
  if (cache.key != cache_key) {
    cache.words.clear();
    cache.key = cache_key;
  }
  const bool cacheable = last - first <= kCachedWordLength;
  const std::vector<Subword>* pieces = nullptr;
  std::vector<Subword> local;
  if (cacheable) {
    const auto hit = cache.words.find(word);
    if (hit != cache.words.end()) pieces = &hit->second;
  }
  if (pieces == nullptr) {
    if (!split(&local)) return false;
    if (cacheable && cache.words.size() < kCacheWords) {
      pieces = &cache.words.emplace(word, std::move(local)).first->second;
    } else {
      pieces = &local;
    }
  }
  for (const Subword& p : *pieces) {
    out->push_back(Token{p.id, text.begin[first + p.first],
                         text.end[first + p.last - 1], 0, 0, p.text});
  }
  return true;
}

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_WORD_CACHE_H_
