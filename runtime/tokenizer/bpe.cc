#include "tokenizer/bpe.h"

#include <cstdio>
#include <queue>

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

// A symbol of the word being merged: a doubly linked list over a vector.
struct Symbol {
  int32_t id;
  int32_t first, last;  // code points of the word
  int32_t prev, next;   // -1: none
  bool removed;
};

// A candidate merge of the symbol at `pos` with its next; the lowest rank
// first, then the leftmost (HF's Merge ordering).
struct Candidate {
  int32_t rank, pos, merged;
  bool operator<(const Candidate& o) const {
    return rank != o.rank ? rank > o.rank : pos > o.pos;
  }
};

}  // namespace

void Bpe::Split(const NormalizedText& text, size_t first, size_t last,
                std::vector<Subword>* pieces) const {
  std::vector<Symbol> symbols;
  symbols.reserve(last - first);
  auto add = [&](int32_t id, int32_t f, int32_t l) {
    const int32_t at = static_cast<int32_t>(symbols.size());
    symbols.push_back(Symbol{id, f, l, at - 1, -1, false});
    if (at > 0) symbols[at - 1].next = at;
  };
  std::string piece;
  int32_t unk_first = -1, unk_last = -1;  // a pending (fused) unknown
  auto flush_unk = [&]() {
    if (unk_first >= 0) add(unk_id, unk_first, unk_last);
    unk_first = -1;
  };
  for (size_t i = first; i < last; ++i) {
    const int32_t at = static_cast<int32_t>(i - first);
    piece.clear();
    if (i != first) piece += continuing_subword_prefix;
    AppendUtf8(text.cps[i], &piece);
    if (i + 1 == last) piece += end_of_word_suffix;
    const int32_t id = vocab.Find(piece);
    if (id >= 0) {
      flush_unk();
      add(id, at, at + 1);
      continue;
    }
    if (byte_fallback) {
      std::string utf8;
      AppendUtf8(text.cps[i], &utf8);
      std::vector<int32_t> ids;
      for (unsigned char b : utf8) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const int32_t byte = vocab.Find(name);
        if (byte < 0) break;
        ids.push_back(byte);
      }
      if (ids.size() == utf8.size()) {
        flush_unk();
        for (int32_t id : ids) add(id, at, at + 1);
        continue;
      }
    }
    if (unk_id < 0) continue;  // HF drops it
    if (unk_first >= 0 && fuse_unk) {
      unk_last = at + 1;
      continue;
    }
    flush_unk();
    unk_first = at;
    unk_last = at + 1;
  }
  flush_unk();

  std::priority_queue<Candidate> queue;
  auto consider = [&](int32_t pos) {
    const int32_t next = symbols[pos].next;
    if (next < 0) return;
    if (const BpeMerge* m =
            merges.Find(PairKey(symbols[pos].id, symbols[next].id))) {
      queue.push(Candidate{m->rank, pos, m->merged});
    }
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols.size()); ++i) {
    consider(i);
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (left.removed || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    // A stale candidate: one of the two has merged since.
    const BpeMerge* m = merges.Find(PairKey(left.id, right.id));
    if (m == nullptr || m->merged != top.merged) continue;
    left.id = top.merged;
    left.last = right.last;
    left.next = right.next;
    right.removed = true;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(top.pos);
  }
  for (const Symbol& s : symbols) {
    if (!s.removed) pieces->push_back(Subword{s.id, s.first, s.last});
  }
}

void Bpe::Tokenize(const NormalizedText& text, size_t first, size_t last,
                   std::string* scratch, std::vector<Token>* out) const {
  if (first >= last) return;
  std::string& word = *scratch;
  word.clear();
  for (size_t i = first; i < last; ++i) AppendUtf8(text.cps[i], &word);
  if (ignore_merges) {
    const int32_t id = vocab.Find(word);
    if (id >= 0) {
      out->push_back(Token{id, text.begin[first], text.end[last - 1]});
      return;
    }
  }
  TokenizeCached(
      cache_key, text, first, last, word,
      [&](std::vector<Subword>* pieces) {
        Split(text, first, last, pieces);
        return true;
      },
      out);
}

}  // namespace tok
}  // namespace enc
