#include "tokenizer/unigram.h"

#include <cstdio>
#include <limits>

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

// As SentencePiece and HF: an unknown code point scores this much below
// the lowest piece.
constexpr double kUnkPenalty = 10.0;

uint64_t ChildKey(int32_t node, unsigned char byte) {
  return static_cast<uint64_t>(node) << 8 | byte;
}

}  // namespace

void Unigram::Add(const std::string& piece, double score, bool matchable) {
  const auto id = static_cast<int32_t>(scores.size());
  scores.Edit().push_back(score);
  vocab.Insert(piece, id);
  std::vector<int32_t>& nodes = node_id.Edit();
  if (nodes.empty()) nodes.push_back(-1);
  if (!matchable) return;
  int32_t node = 0;
  for (char ch : piece) {
    const uint64_t key = ChildKey(node, static_cast<unsigned char>(ch));
    if (const int64_t* child = children.Find(key)) {
      node = static_cast<int32_t>(*child);
      continue;
    }
    const auto next = static_cast<int32_t>(nodes.size());
    nodes.push_back(-1);
    children.Set(key, next);
    node = next;
  }
  if (nodes[node] < 0) nodes[node] = id;  // the first id of a piece
  if (!has_min_score || score < min_score) min_score = score;
  has_min_score = true;
}

bool Unigram::Split(const std::string& word, std::vector<Subword>* out) const {
  // The code point each byte of the word belongs to.
  std::vector<int32_t> cp_of;
  cp_of.reserve(word.size() + 1);
  int32_t cp = -1;
  for (char ch : word) {
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++cp;
    cp_of.push_back(cp);
  }
  const size_t size = word.size();
  cp_of.push_back(cp + 1);
  // best[e]: the best path over word[0, e), its last piece [start, e).
  struct Node {
    int32_t id = -1;
    double score = 0;
    int64_t start = -1;
  };
  std::vector<Node> best(size + 1);
  // HF keeps path scores in double. SentencePiece stores them in float but
  // compares a piece's candidate in double (its score's type there), and
  // an unknown's in float: near-ties resolve as each reference does.
  const auto stored = [this](double v) {
    if (!sentencepiece) return v;
    // Past float's range the cast is undefined; IEEE rounding gives inf.
    constexpr double kMax = std::numeric_limits<float>::max();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (v > kMax || v < -kMax) return v > 0 ? kInf : -kInf;
    return static_cast<double>(static_cast<float>(v));
  };
  const double unk_score = stored(min_score - kUnkPenalty);
  size_t start = 0;
  while (start < size) {
    const double here = best[start].score;
    // The byte length of the code point at start.
    size_t char_len = 1;
    while (start + char_len < size && cp_of[start + char_len] == cp_of[start]) {
      ++char_len;
    }
    bool single = false;
    int32_t node = 0;
    for (size_t e = start; e < size; ++e) {
      const int64_t* child =
          children.Find(ChildKey(node, static_cast<unsigned char>(word[e])));
      if (child == nullptr) break;
      node = static_cast<int32_t>(*child);
      const int32_t id = node_id[node];
      if (id < 0) continue;
      Node& target = best[e + 1];
      const double candidate = scores[id] + here;
      if (target.start < 0 || candidate > target.score) {
        target = Node{id, stored(candidate), static_cast<int64_t>(start)};
      }
      if (e + 1 - start == char_len) single = true;
    }
    if (!single) {
      Node& target = best[start + char_len];
      const double candidate = stored(unk_score + here);
      if (target.start < 0 || candidate > target.score) {
        if (unk_id < 0) return false;
        target = Node{unk_id, candidate, static_cast<int64_t>(start)};
      }
    }
    start += char_len;
  }
  // Back from the end: the pieces (in bytes), unknowns fused.
  struct Span {
    int32_t id;
    size_t begin, end;
  };
  std::vector<Span> spans;
  for (size_t e = size; e > 0;) {
    const Node& n = best[e];
    const auto s = static_cast<size_t>(n.start);
    if (fuse_unk && n.id == unk_id && !spans.empty() &&
        spans.back().id == unk_id) {
      spans.back().begin = s;
    } else {
      spans.push_back(Span{n.id, s, e});
    }
    e = s;
  }
  for (auto p = spans.rbegin(); p != spans.rend(); ++p) {
    const int32_t first = cp_of[p->begin], last = cp_of[p->end - 1] + 1;
    // A fused unknown that is a piece of its own, as HF looks the fused
    // text up again (SentencePiece keeps it unknown).
    int32_t id = p->id;
    if (id == unk_id && !sentencepiece) {
      const int32_t whole = vocab.Find(
          std::string_view(word).substr(p->begin, p->end - p->begin));
      if (whole >= 0) id = whole;
    }
    if (id == unk_id && byte_fallback) {
      std::vector<int32_t> ids;
      for (size_t k = p->begin; k < p->end; ++k) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>",
                      static_cast<unsigned char>(word[k]));
        const int32_t byte = vocab.Find(name);
        if (byte < 0) break;
        ids.push_back(byte);
      }
      if (ids.size() == p->end - p->begin) {
        for (int32_t byte_id : ids) {
          out->push_back(Subword{byte_id, first, last, std::string()});
        }
        continue;
      }
    }
    out->push_back(Subword{id, first, last,
                           id == unk_id
                               ? word.substr(p->begin, p->end - p->begin)
                               : std::string()});
  }
  return true;
}

bool Unigram::Tokenize(const NormalizedText& text, size_t first, size_t last,
                       std::string* scratch, std::vector<Token>* out) const {
  if (first >= last) return true;
  std::string& word = *scratch;
  word.clear();
  for (size_t i = first; i < last; ++i) AppendUtf8(text.cps[i], &word);
  return TokenizeCached(
      cache_key, text, first, last, word,
      [&](std::vector<Subword>* pieces) { return Split(word, pieces); }, out);
}

}  // namespace tok
}  // namespace enc
