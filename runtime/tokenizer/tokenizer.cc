// Encoding and decoding (tokenizer/tokenizer.h), step by step as Hugging
// Face `tokenizers` runs them.
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <utility>

#include "src/status.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/unicode.h"

namespace enc {
namespace tok {

NormalizedText BertNormalizer::Apply(const NormalizedText& in) const {
  NormalizedText out;
  out.cps.reserve(in.size());
  out.begin.reserve(in.size());
  out.end.reserve(in.size());
  std::vector<char32_t> parts, lowered;
  for (size_t i = 0; i < in.size(); ++i) {
    char32_t c = in.cps[i];
    const int64_t b = in.begin[i], e = in.end[i];
    if (clean_text) {
      if (c == 0 || c == 0xFFFD || IsBertControl(c)) continue;
      if (IsWhitespace(c)) c = ' ';
    }
    if (handle_chinese_chars && IsChineseChar(c)) {
      out.Push(' ', b, e);
      out.Push(c, b, e);
      out.Push(' ', b, e);
      continue;
    }
    parts.clear();
    if (strip_accents) {
      AppendNfd(c, &parts);
      parts.erase(std::remove_if(parts.begin(), parts.end(), IsMarkNonspacing),
                  parts.end());
    } else {
      parts.push_back(c);
    }
    for (char32_t p : parts) {
      if (lowercase) {
        lowered.clear();
        AppendLowercase(p, &lowered);
        for (char32_t l : lowered) out.Push(l, b, e);
      } else {
        out.Push(p, b, e);
      }
    }
  }
  return out;
}

void WordPiece::Tokenize(const NormalizedText& text, size_t first, size_t last,
                         std::string* scratch, std::vector<Token>* out) const {
  const size_t chars = last - first;
  const Token unk{unk_id, text.begin[first], text.end[last - 1]};
  if (static_cast<int64_t>(chars) > max_input_chars_per_word) {
    out->push_back(unk);
    return;
  }
  // The word in UTF-8, and the byte offset of each of its code points.
  std::string& word = *scratch;
  word.clear();
  std::vector<size_t> at;
  at.reserve(chars + 1);
  for (size_t i = first; i < last; ++i) {
    at.push_back(word.size());
    AppendUtf8(text.cps[i], &word);
  }
  at.push_back(word.size());
  const size_t before = out->size();
  size_t start = 0;
  while (start < chars) {
    const auto& table = start == 0 ? vocab : continuing;
    size_t end = chars;
    int32_t id = -1;
    for (; end > start; --end) {
      id = table.Find(
          std::string_view(word).substr(at[start], at[end] - at[start]));
      if (id >= 0) break;
    }
    if (id < 0) {  // a piece is missing: the whole word is unknown
      out->resize(before);
      out->push_back(unk);
      return;
    }
    out->push_back(
        Token{id, text.begin[first + start], text.end[first + end - 1]});
    start = end;
  }
}

int32_t PostProcessor::Added(bool is_pair) const {
  int32_t n = 0;
  for (const TemplatePiece& p : is_pair ? pair : single) {
    if (!p.is_sequence) n += static_cast<int32_t>(p.ids.size());
  }
  return n;
}

namespace {

// A word character of HF's single_word test: alphanumeric or '_'.
bool IsWordChar(char32_t c) { return c == '_' || IsAlphanumeric(c); }

// A span of code points [first, last) that is either an added token or
// text for the model.
struct Span {
  size_t first, last;
  int32_t added_id;                    // -1: text
  size_t content_first, content_last;  // an added token without its strips
};

// Splits cps [0, n) by the added tokens whose `normalized` flag is
// `normalized`, leftmost-longest, as HF's AddedVocabulary does.
std::vector<Span> SplitAdded(const std::vector<char32_t>& cps,
                             const std::vector<AddedToken>& added,
                             const AddedIndex& index, bool normalized) {
  std::vector<Span> spans;
  const size_t n = cps.size();
  size_t text_start = 0, i = 0;
  static const std::vector<uint32_t> kNone;
  while (i < n) {
    size_t best = added.size();
    // Only the tokens that start with this code point (most start none).
    const auto hit = index.find(cps[i]);
    const std::vector<uint32_t>& candidates =
        hit == index.end() ? kNone : hit->second;
    for (uint32_t t : candidates) {  // longest first
      if (added[t].normalized != normalized) continue;
      const std::u32string& c = added[t].cps;
      if (c.empty() || c.size() > n - i) continue;
      if (!std::equal(c.begin(), c.end(), cps.begin() + i)) continue;
      if (added[t].single_word) {
        const bool left_ok = i == 0 || !IsWordChar(cps[i - 1]);
        const bool right_ok =
            i + c.size() == n || !IsWordChar(cps[i + c.size()]);
        if (!left_ok || !right_ok) continue;
      }
      best = t;
      break;
    }
    if (best == added.size()) {
      ++i;
      continue;
    }
    size_t first = i, last = i + added[best].cps.size();
    if (added[best].lstrip) {
      while (first > text_start && IsWhitespace(cps[first - 1])) --first;
    }
    if (added[best].rstrip) {
      while (last < n && IsWhitespace(cps[last])) ++last;
    }
    if (first > text_start) {
      spans.push_back({text_start, first, -1, text_start, first});
    }
    // The token spans the whitespace it strips, as in HF.
    spans.push_back(
        {first, last, added[best].id, i, i + added[best].cps.size()});
    text_start = i = last;
  }
  if (text_start < n) spans.push_back({text_start, n, -1, text_start, n});
  return spans;
}

// HF's string of an added token that took whitespace with it (lstrip,
// rstrip): the text it spans; empty (the vocabulary's) otherwise.
std::string StrippedText(const std::vector<char32_t>& cps, const Span& s) {
  std::string text;
  if (s.first == s.content_first && s.last == s.content_last) return text;
  for (size_t i = s.first; i < s.last; ++i) AppendUtf8(cps[i], &text);
  return text;
}

}  // namespace
}  // namespace tok
}  // namespace enc

using enc::Fail;
using enc::tok::NormalizedText;
using enc::tok::Span;
using enc::tok::SplitAdded;
using enc::tok::StrippedText;
using enc::tok::Token;

bool enc_tokenizer::Model(const NormalizedText& text, size_t first, size_t last,
                          std::string* scratch, std::vector<Token>* out) const {
  if (first >= last) return true;  // HF drops empty pieces
  switch (model) {
    case enc::tok::ModelKind::kWordPiece:
      wordpiece.Tokenize(text, first, last, scratch, out);
      return true;
    case enc::tok::ModelKind::kBpe:
      bpe.Tokenize(text, first, last, scratch, out);
      return true;
    case enc::tok::ModelKind::kUnigram:
      return unigram.Tokenize(text, first, last, scratch, out);
  }
  return false;
}

bool enc_tokenizer::PreTokenize(size_t step, const NormalizedText& text,
                                size_t first, size_t last, std::string* scratch,
                                std::vector<Token>* out) const {
  if (first >= last) return true;
  if (step == pre_tokenizers.size()) {
    return Model(text, first, last, scratch, out);
  }
  const size_t next = step + 1;
  switch (pre_tokenizers[step]) {
    case enc::tok::PreTokenizerKind::kBert: {
      // Whitespace removed, punctuation isolated.
      size_t word = first;
      for (size_t i = first; i <= last; ++i) {
        const bool at_end = i == last;
        const bool space = !at_end && enc::tok::IsWhitespace(text.cps[i]);
        const bool punct =
            !at_end && !space && enc::tok::IsBertPunctuation(text.cps[i]);
        if (at_end || space || punct) {
          if (!PreTokenize(next, text, word, i, scratch, out)) return false;
          if (punct && !PreTokenize(next, text, i, i + 1, scratch, out)) {
            return false;
          }
          word = i + 1;
        }
      }
      return true;
    }
    case enc::tok::PreTokenizerKind::kWhitespaceSplit: {
      size_t word = first;
      for (size_t i = first; i <= last; ++i) {
        if (i == last || enc::tok::IsWhitespace(text.cps[i])) {
          if (!PreTokenize(next, text, word, i, scratch, out)) return false;
          word = i + 1;
        }
      }
      return true;
    }
    case enc::tok::PreTokenizerKind::kByteLevel: {
      // A prefix space has the range of the code point it precedes (HF's
      // NormalizedString::prepend).
      NormalizedText spaced;
      const NormalizedText* from = &text;
      if (byte_level.add_prefix_space && text.cps[first] != ' ') {
        spaced.Push(' ', text.begin[first], text.end[first]);
        for (size_t i = first; i < last; ++i) {
          spaced.Push(text.cps[i], text.begin[i], text.end[i]);
        }
        from = &spaced;
        last = spaced.size();
        first = 0;
      }
      std::vector<std::pair<size_t, size_t>> words;
      if (byte_level.use_regex) {
        enc::tok::ByteLevelSplit(*from, first, last, &words);
      } else {
        words.emplace_back(first, last);
      }
      NormalizedText bytes;
      for (const auto& [b, e] : words) {
        bytes.Clear();
        enc::tok::AppendByteLevel(*from, b, e, &bytes);
        if (!PreTokenize(next, bytes, 0, bytes.size(), scratch, out)) {
          return false;
        }
      }
      return true;
    }
    case enc::tok::PreTokenizerKind::kMetaspace: {
      const char32_t r = metaspace.replacement;
      NormalizedText m;
      bool prepend = false;
      switch (metaspace.prepend_scheme) {
        case enc::tok::PrependScheme::kAlways:
          prepend = text.cps[first] != r && text.cps[first] != ' ';
          break;
        case enc::tok::PrependScheme::kFirst:
          prepend = text.cps[first] != r && text.cps[first] != ' ' &&
                    text.begin[first] == 0;
          break;
        case enc::tok::PrependScheme::kNever:
          break;
      }
      if (prepend) m.Push(r, text.begin[first], text.end[first]);
      for (size_t i = first; i < last; ++i) {
        m.Push(text.cps[i] == ' ' ? r : text.cps[i], text.begin[i],
               text.end[i]);
      }
      if (!metaspace.split) {
        return PreTokenize(next, m, 0, m.size(), scratch, out);
      }
      // Split before each replacement (HF's MergedWithNext).
      size_t word = 0;
      for (size_t i = 1; i <= m.size(); ++i) {
        if (i == m.size() || m.cps[i] == r) {
          if (!PreTokenize(next, m, word, i, scratch, out)) return false;
          word = i;
        }
      }
      return true;
    }
  }
  return false;
}

enc_status enc_tokenizer::EncodeSequence(std::string_view text,
                                         std::vector<Token>* out) const {
  out->clear();
  std::vector<char32_t> cps;
  std::vector<int64_t> starts;
  int64_t bad = 0;
  if (!enc::tok::DecodeUtf8(text, &cps, &starts, &bad)) {
    return Fail(ENC_ERR_INPUT, "text is not valid UTF-8 at byte %lld",
                static_cast<long long>(bad));
  }
  std::string scratch;
  for (const Span& raw : SplitAdded(cps, added, added_index, false)) {
    if (raw.added_id >= 0) {
      out->push_back(Token{raw.added_id, starts[raw.first], starts[raw.last],
                           static_cast<int64_t>(raw.content_first - raw.first),
                           static_cast<int64_t>(raw.last - raw.content_last),
                           StrippedText(cps, raw)});
      continue;
    }
    NormalizedText norm;
    for (size_t i = raw.first; i < raw.last; ++i) {
      norm.Push(cps[i], starts[i], starts[i + 1]);
    }
    using enc::tok::NormalizerKind;
    for (const enc::tok::NormalizerStep& n : normalizers) {
      switch (n.kind) {
        case NormalizerKind::kBert:
          norm = bert_normalizer.Apply(norm);
          break;
        case NormalizerKind::kPrecompiled:
          norm = precompiled.Apply(norm);
          break;
        case NormalizerKind::kUnicodeForm:
          norm = enc::tok::ApplyUnicodeForm(n.form, norm);
          break;
        case NormalizerKind::kLowercase:
          norm = enc::tok::ApplyLowercase(norm);
          break;
        case NormalizerKind::kStrip:
          norm = enc::tok::ApplyStrip(n.strip_left, n.strip_right, norm);
          break;
        case NormalizerKind::kReplace:
          norm = n.replace.Apply(norm);
          break;
      }
    }
    for (const Span& s : SplitAdded(norm.cps, added, added_index, true)) {
      if (s.added_id >= 0) {
        out->push_back(Token{s.added_id, norm.begin[s.first],
                             norm.end[s.last - 1],
                             static_cast<int64_t>(s.content_first - s.first),
                             static_cast<int64_t>(s.last - s.content_last),
                             StrippedText(norm.cps, s)});
        continue;
      }
      if (!PreTokenize(0, norm, s.first, s.last, &scratch, out)) {
        return Fail(ENC_ERR_INPUT,
                    "the text needs an unknown token and the tokenizer's "
                    "model has no unk_id");
      }
    }
  }
  return ENC_OK;
}

namespace {

// HF's truncate_encodings (stride 0, direction right), on the model's
// tokens of both inputs; `added` are the post-processor's tokens.
enc_status Truncate(const enc::tok::Truncation& t, int32_t added,
                    std::vector<Token>* a, std::vector<Token>* b) {
  if (t.max_length <= 0) return ENC_OK;
  const int64_t total =
      static_cast<int64_t>(a->size() + (b ? b->size() : 0)) + added;
  if (total <= t.max_length) return ENC_OK;
  const int64_t to_remove = total - t.max_length;
  switch (t.strategy) {
    case ENC_TRUNCATE_LONGEST_FIRST: {
      const int64_t target = std::max<int64_t>(0, t.max_length - added);
      if (b == nullptr) {
        a->resize(std::min<size_t>(a->size(), static_cast<size_t>(target)));
        return ENC_OK;
      }
      int64_t n1 = static_cast<int64_t>(a->size());
      int64_t n2 = static_cast<int64_t>(b->size());
      const bool swap = n1 > n2;
      if (swap) std::swap(n1, n2);
      n2 = n1 > target ? n1 : std::max(n1, target - n1);
      if (swap) std::swap(n1, n2);
      // Both too long: the first input gets the smaller half, whichever is
      // longer (as HF does).
      if (n1 + n2 > target) {
        n1 = target / 2;
        n2 = n1 + target % 2;
      }
      a->resize(std::min<size_t>(a->size(), static_cast<size_t>(n1)));
      b->resize(std::min<size_t>(b->size(), static_cast<size_t>(n2)));
      return ENC_OK;
    }
    case ENC_TRUNCATE_ONLY_FIRST:
    case ENC_TRUNCATE_ONLY_SECOND: {
      std::vector<Token>* target =
          t.strategy == ENC_TRUNCATE_ONLY_FIRST ? a : b;
      if (target == nullptr) {
        return Fail(ENC_ERR_INPUT,
                    "truncation only_second needs a pair of inputs");
      }
      const int64_t len = static_cast<int64_t>(target->size());
      if (len <= to_remove) {
        return Fail(ENC_ERR_INPUT,
                    "truncation to %d tokens: the %s input (%lld tokens) "
                    "cannot lose %lld",
                    t.max_length,
                    t.strategy == ENC_TRUNCATE_ONLY_FIRST ? "first" : "second",
                    static_cast<long long>(len),
                    static_cast<long long>(to_remove));
      }
      target->resize(static_cast<size_t>(len - to_remove));
      return ENC_OK;
    }
  }
  return Fail(ENC_ERR_INPUT, "unknown truncation strategy");
}

void Append(enc_encoding* e, const enc_tokenizer& tok, int32_t id, int32_t type,
            int32_t seq, int64_t b, int64_t end, int32_t mask,
            const std::string* text = nullptr) {
  e->ids.push_back(id);
  e->type_ids.push_back(type);
  e->attention_mask.push_back(mask);
  e->sequence_ids.push_back(seq);
  e->offsets.push_back(b);
  e->offsets.push_back(end);
  if (text != nullptr && !text->empty()) {
    e->tokens.push_back(*text);
  } else {
    e->tokens.push_back(id >= 0 &&
                                static_cast<size_t>(id) < tok.id_to_token.size()
                            ? std::string(tok.id_to_token.Get(id))
                            : std::string());
  }
}

}  // namespace

enc_status enc_tokenizer::Encode(std::string_view text,
                                 const std::string_view* pair,
                                 bool add_special_tokens,
                                 enc_encoding* out) const {
  *out = enc_encoding{};
  std::vector<Token> a, b;
  if (enc_status s = EncodeSequence(text, &a)) return s;
  if (pair != nullptr) {
    if (enc_status s = EncodeSequence(*pair, &b)) return s;
  }
  const bool special = add_special_tokens && post.present;
  const int32_t added = special ? post.Added(pair != nullptr) : 0;
  if (enc_status s =
          Truncate(truncation, added, &a, pair != nullptr ? &b : nullptr)) {
    return s;
  }
  if (post.trim_offsets) {
    const std::string_view texts[2] = {text, pair != nullptr ? *pair : ""};
    std::vector<Token>* seqs[2] = {&a, &b};
    for (int k = 0; k < 2; ++k) {
      for (size_t i = 0; i < seqs[k]->size(); ++i) {
        Token& t = (*seqs[k])[i];
        enc::tok::TrimByteLevelOffsets(post.spaces[t.id], post.add_prefix_space,
                                       i == 0 || t.begin == 0, texts[k], &t);
      }
    }
  }
  const std::vector<Token>* seqs[2] = {&a, &b};
  if (special) {
    for (const auto& piece : pair != nullptr ? post.pair : post.single) {
      if (piece.is_sequence) {
        for (const Token& t : *seqs[piece.sequence]) {
          Append(out, *this, t.id, piece.type_id, piece.sequence, t.begin,
                 t.end, 1, &t.text);
        }
      } else {
        for (int32_t id : piece.ids) {
          Append(out, *this, id, piece.type_id, -1, 0, 0, 1);
        }
      }
    }
  } else {
    // Without special tokens the inputs keep the type ids the
    // post-processor gives them (HF: the pair's is 1 without one).
    int32_t types[2] = {0, 1};
    if (post.present) {
      for (const auto& piece : post.pair) {
        if (piece.is_sequence) types[piece.sequence] = piece.type_id;
      }
    }
    for (int32_t s = 0; s < (pair != nullptr ? 2 : 1); ++s) {
      for (const Token& t : *seqs[s]) {
        Append(out, *this, t.id, types[s], s, t.begin, t.end, 1, &t.text);
      }
    }
  }
  const int32_t pad_to = padding.batch_longest ? 0 : padding.length;
  while (static_cast<int32_t>(out->ids.size()) < pad_to) {
    Append(out, *this, padding.pad_id, padding.pad_type_id, -1, 0, 0, 0);
  }
  return ENC_OK;
}

namespace {

// HF's WordPiece decoder: pieces joined, the prefix of continuations
// removed, spaces elsewhere, and its cleanup of spaces before punctuation.
void DecodeWordPiece(const enc::tok::Decoder& decoder,
                     const std::vector<std::string_view>& tokens,
                     std::string* out) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string t(tokens[i]);
    if (i != 0) {
      if (t.compare(0, decoder.prefix.size(), decoder.prefix) == 0) {
        t.erase(0, decoder.prefix.size());
      } else {
        t.insert(0, " ");
      }
    }
    if (decoder.cleanup) {
      static const std::pair<const char*, const char*> kCleanup[] = {
          {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
          {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
          {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
      for (const auto& [from, to] : kCleanup) {
        const std::string f = from, r = to;
        for (size_t at = t.find(f); at != std::string::npos;
             at = t.find(f, at + r.size())) {
          t.replace(at, f.size(), r);
        }
      }
    }
    out->append(t);
  }
}

// The byte of a byte-fallback piece "<0xXX>", or -1.
int ByteOfPiece(std::string_view t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int v = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[k];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// SentencePiece's DecodeIds: byte pieces joined into UTF-8 (invalid bytes
// become U+FFFD), the unknown piece as " \u2047 ", U+2581 as a space but
// the dummy prefix's at the start dropped.
void DecodeSentencePiece(const enc::tok::Decoder& decoder,
                         const std::vector<int32_t>& ids,
                         const std::vector<std::string_view>& tokens,
                         std::string* out) {
  std::string text, bytes;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const int byte = decoder.byte_fallback ? ByteOfPiece(tokens[i]) : -1;
    if (byte >= 0) {
      bytes.push_back(static_cast<char>(byte));
      continue;
    }
    enc::tok::AppendUtf8Lossy(bytes, &text);
    bytes.clear();
    if (ids[i] == decoder.unk_id) {
      text += " \u2047 ";
    } else {
      text += tokens[i];
    }
  }
  enc::tok::AppendUtf8Lossy(bytes, &text);
  static const std::string kSpace = "\u2581";
  size_t from = 0;
  if (decoder.metaspace.prepend_scheme != enc::tok::PrependScheme::kNever &&
      text.compare(0, kSpace.size(), kSpace) == 0) {
    from = kSpace.size();
  }
  for (size_t at = from; at < text.size();) {
    if (text.compare(at, kSpace.size(), kSpace) == 0) {
      out->push_back(' ');
      at += kSpace.size();
    } else {
      out->push_back(text[at++]);
    }
  }
}

}  // namespace

enc_status enc_tokenizer::Decode(const int32_t* ids, int32_t count,
                                 bool skip_special, std::string* out) const {
  out->clear();
  std::vector<std::string_view> tokens;
  std::vector<int32_t> kept;
  for (int32_t i = 0; i < count; ++i) {
    const int32_t id = ids[i];
    if (id < 0 || static_cast<size_t>(id) >= id_to_token.size() ||
        id_to_token.Get(id).empty()) {
      return Fail(ENC_ERR_INPUT, "decode: id %d at %d is not in the vocabulary",
                  id, i);
    }
    if (skip_special && is_special[id]) continue;
    tokens.push_back(id_to_token.Get(id));
    kept.push_back(id);
  }
  switch (decoder.kind) {
    case enc::tok::DecoderKind::kNone:
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (i > 0) out->push_back(' ');
        out->append(tokens[i]);
      }
      return ENC_OK;
    case enc::tok::DecoderKind::kByteLevel: {
      std::string bytes;
      for (std::string_view t : tokens) {
        enc::tok::AppendByteLevelBytes(t, &bytes);
      }
      enc::tok::AppendUtf8Lossy(bytes, out);
      return ENC_OK;
    }
    case enc::tok::DecoderKind::kWordPiece:
      DecodeWordPiece(decoder, tokens, out);
      return ENC_OK;
    case enc::tok::DecoderKind::kMetaspace: {
      // The replacement is a space, except in the first token when a
      // prefix was put there (HF drops every one of that token's).
      const enc::tok::Metaspace& m = decoder.metaspace;
      std::vector<char32_t> cps;
      std::vector<int64_t> starts;
      int64_t bad = 0;
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (!enc::tok::DecodeUtf8(tokens[i], &cps, &starts, &bad)) continue;
        for (char32_t c : cps) {
          if (c != m.replacement) {
            enc::tok::AppendUtf8(c, out);
          } else if (i != 0 ||
                     m.prepend_scheme == enc::tok::PrependScheme::kNever) {
            out->push_back(' ');
          }
        }
      }
      return ENC_OK;
    }
    case enc::tok::DecoderKind::kSentencePiece:
      DecodeSentencePiece(decoder, kept, tokens, out);
      return ENC_OK;
  }
  return ENC_OK;
}
