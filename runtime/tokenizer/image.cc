#include "tokenizer/image.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "src/status.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace enc {
namespace tok {
namespace {

// The header: magic, version, 0, the body's size, the body's checksum.
// The version changes with any change of the fields below or of HashBytes.
constexpr char kMagic[8] = {'E', 'N', 'C', 'T', 'O', 'K', '\n', '\x1a'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 32;
constexpr int64_t kMaxIds = kMaxTokenId + 1;

size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Writes each field in order; the Reader reads them in the same order
// (one field list, Visit below, drives both).
class Writer {
 public:
  template <class T>
  void Pod(const T& v) {
    static_assert(std::is_arithmetic<T>::value || std::is_enum<T>::value, "");
    const char* p = reinterpret_cast<const char*>(&v);
    out_.append(p, sizeof v);
  }
  void Bool(const bool& v) { Pod(static_cast<uint8_t>(v ? 1 : 0)); }
  void Str(const std::string& s) {
    Pod(static_cast<uint64_t>(s.size()));
    out_.append(s);
  }
  void Str32(const std::u32string& s) {
    Pod(static_cast<uint64_t>(s.size()));
    for (char32_t c : s) Pod(static_cast<uint32_t>(c));
  }
  // A list's length (the Reader's is checked against what is left, at
  // `min_bytes` an item).
  size_t Count(size_t n, size_t /*min_bytes*/) {
    Pod(static_cast<uint64_t>(n));
    return n;
  }
  template <class T>
  void Tab(const Table<T>& t) {
    Pod(static_cast<uint64_t>(t.size()));
    out_.resize(Align8(out_.size()), '\0');
    out_.append(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(T));
    out_.resize(Align8(out_.size()), '\0');
  }
  bool ok() const { return true; }
  void Bad(const std::string&) {}
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  // data is 8-byte aligned; offsets are aligned as the Writer's were.
  Reader(const char* data, size_t size) : data_(data), size_(size) {}

  template <class T>
  void Pod(T& v) {
    if (!Need(sizeof v)) return;
    std::memcpy(&v, data_ + at_, sizeof v);
    at_ += sizeof v;
  }
  void Bool(bool& v) {
    uint8_t b = 0;
    Pod(b);
    if (b > 1) Bad("a flag is neither 0 nor 1");
    v = b == 1;
  }
  void Str(std::string& s) {
    const size_t n = Length(1);
    if (!Need(n)) return;
    s.assign(data_ + at_, n);
    at_ += n;
  }
  void Str32(std::u32string& s) {
    const size_t n = Length(4);
    s.clear();
    for (size_t i = 0; i < n && ok_; ++i) {
      uint32_t c = 0;
      Pod(c);
      if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        Bad("a code point is out of range");
      }
      s.push_back(static_cast<char32_t>(c));
    }
  }
  size_t Count(size_t, size_t min_bytes) { return Length(min_bytes); }
  template <class T>
  void Tab(Table<T>& t) {
    const size_t n = Length(sizeof(T));
    if (!ok_) return;
    if (Align8(at_) > size_) {
      Bad("a table runs past the end");
      return;
    }
    at_ = Align8(at_);
    if (!Need(n * sizeof(T))) return;
    t.View(reinterpret_cast<const T*>(data_ + at_), n);
    at_ = Align8(at_ + n * sizeof(T));
    if (at_ > size_) Bad("a table runs past the end");
  }
  bool ok() const { return ok_; }
  bool done() const { return at_ == size_; }
  const std::string& why() const { return why_; }
  void Bad(const std::string& why) {
    if (ok_) why_ = why;
    ok_ = false;
  }

 private:
  bool Need(size_t n) {
    if (!ok_) return false;
    if (n > size_ - at_) {
      Bad("truncated at byte " + std::to_string(kHeaderBytes + at_));
      return false;
    }
    return true;
  }
  // A count of items of `item_bytes` each that fits in what is left.
  size_t Length(size_t item_bytes) {
    uint64_t n = 0;
    Pod(n);
    if (ok_ && n > (size_ - at_) / item_bytes) {
      Bad("a length of " + std::to_string(n) + " runs past the end");
      return 0;
    }
    return ok_ ? static_cast<size_t>(n) : 0;
  }
  const char* data_;
  size_t size_, at_ = 0;
  bool ok_ = true;
  std::string why_;
};

// Tables are stored as their bytes: no padding may leak into an image.
template <class T>
constexpr bool kFlat = std::has_unique_object_representations<T>::value ||
                       std::is_floating_point<T>::value;
static_assert(kFlat<StrIdMap::Entry> && kFlat<U64Map<BpeMerge>::Slot> &&
                  kFlat<U64Map<int64_t>::Slot> && kFlat<TokenSpaces>,
              "a table type has padding");

template <class Io>
void Visit(Io& io, StrIdMap& m) {
  io.Tab(m.blob_);
  io.Tab(m.entries_);
  io.Tab(m.slots_);
}

template <class Io>
void Visit(Io& io, Metaspace& m) {
  io.Pod(m.replacement);
  io.Pod(m.prepend_scheme);
  io.Bool(m.split);
}

template <class Io>
void Visit(Io& io, std::vector<TemplatePiece>& pieces) {
  pieces.resize(io.Count(pieces.size(), 17));
  for (TemplatePiece& p : pieces) {
    io.Bool(p.is_sequence);
    io.Pod(p.sequence);
    p.ids.resize(io.Count(p.ids.size(), 4));
    for (int32_t& id : p.ids) io.Pod(id);
    io.Pod(p.type_id);
  }
}

// The one list of the fields an image holds, in order.
template <class Io>
void Visit(Io& io, enc_tokenizer& t) {
  t.normalizers.resize(io.Count(t.normalizers.size(), 42));
  for (NormalizerStep& n : t.normalizers) {
    io.Pod(n.kind);
    io.Pod(n.form);
    io.Bool(n.strip_left);
    io.Bool(n.strip_right);
    io.Str32(n.replace.pattern);
    uint64_t min_repeat = n.replace.min_repeat;
    io.Pod(min_repeat);
    n.replace.min_repeat = static_cast<size_t>(min_repeat);
    io.Str32(n.replace.content);
  }
  BertNormalizer& b = t.bert_normalizer;
  io.Bool(b.clean_text);
  io.Bool(b.handle_chinese_chars);
  io.Bool(b.strip_accents);
  io.Bool(b.lowercase);
  io.Tab(t.precompiled.trie);
  io.Tab(t.precompiled.replacements);
  io.Bool(t.precompiled.longest_match);
  t.pre_tokenizers.resize(io.Count(t.pre_tokenizers.size(), 4));
  for (PreTokenizerKind& k : t.pre_tokenizers) io.Pod(k);
  io.Bool(t.byte_level.add_prefix_space);
  io.Bool(t.byte_level.use_regex);
  Visit(io, t.metaspace);
  io.Pod(t.model);
  WordPiece& w = t.wordpiece;
  Visit(io, w.vocab);
  Visit(io, w.continuing);
  io.Str(w.prefix);
  io.Pod(w.unk_id);
  io.Pod(w.max_input_chars_per_word);
  Bpe& bpe = t.bpe;
  Visit(io, bpe.vocab);
  io.Tab(bpe.merges.slots_);
  io.Pod(bpe.unk_id);
  io.Bool(bpe.fuse_unk);
  io.Bool(bpe.byte_fallback);
  io.Bool(bpe.ignore_merges);
  io.Str(bpe.continuing_subword_prefix);
  io.Str(bpe.end_of_word_suffix);
  Unigram& u = t.unigram;
  io.Tab(u.scores);
  Visit(io, u.vocab);
  io.Pod(u.unk_id);
  io.Bool(u.fuse_unk);
  io.Bool(u.byte_fallback);
  io.Pod(u.min_score);
  io.Bool(u.has_min_score);
  io.Bool(u.sentencepiece);
  io.Tab(u.node_id);
  io.Tab(u.children.slots_);
  t.added.resize(io.Count(t.added.size(), 17));
  for (AddedToken& a : t.added) {  // cps follow from content
    io.Str(a.content);
    io.Pod(a.id);
    io.Bool(a.special);
    io.Bool(a.single_word);
    io.Bool(a.lstrip);
    io.Bool(a.rstrip);
    io.Bool(a.normalized);
  }
  PostProcessor& post = t.post;
  io.Bool(post.present);
  Visit(io, post.single);
  Visit(io, post.pair);
  io.Bool(post.trim_offsets);
  io.Bool(post.add_prefix_space);
  io.Tab(post.spaces);
  io.Pod(t.truncation.max_length);
  // A C enum: stored as its int, known before it becomes the enum (a load
  // of another value would be undefined).
  int32_t strategy = t.truncation.strategy;
  io.Pod(strategy);
  if (strategy == ENC_TRUNCATE_LONGEST_FIRST ||
      strategy == ENC_TRUNCATE_ONLY_FIRST ||
      strategy == ENC_TRUNCATE_ONLY_SECOND) {
    t.truncation.strategy = static_cast<enc_truncation>(strategy);
  } else {
    io.Bad("an unknown truncation strategy");
  }
  io.Pod(t.padding.length);
  io.Bool(t.padding.batch_longest);
  io.Pod(t.padding.pad_id);
  io.Pod(t.padding.pad_type_id);
  io.Str(t.padding.pad_token);
  Decoder& d = t.decoder;
  io.Pod(d.kind);
  io.Str(d.prefix);
  io.Bool(d.cleanup);
  Visit(io, d.metaspace);
  io.Pod(d.unk_id);
  io.Bool(d.byte_fallback);
  io.Tab(t.id_to_token.blob_);
  io.Tab(t.id_to_token.starts_);
  Visit(io, t.token_to_id);
  io.Tab(t.is_special);
}

// The enums an image holds, each a switch with no default arm.
bool Known(NormalizerKind k) {
  switch (k) {
    case NormalizerKind::kBert:
    case NormalizerKind::kPrecompiled:
    case NormalizerKind::kUnicodeForm:
    case NormalizerKind::kLowercase:
    case NormalizerKind::kStrip:
    case NormalizerKind::kReplace:
      return true;
  }
  return false;
}
bool Known(UnicodeForm f) {
  switch (f) {
    case UnicodeForm::kNfd:
    case UnicodeForm::kNfkd:
    case UnicodeForm::kNfc:
    case UnicodeForm::kNfkc:
      return true;
  }
  return false;
}
bool Known(PreTokenizerKind k) {
  switch (k) {
    case PreTokenizerKind::kBert:
    case PreTokenizerKind::kByteLevel:
    case PreTokenizerKind::kWhitespaceSplit:
    case PreTokenizerKind::kMetaspace:
      return true;
  }
  return false;
}
bool Known(ModelKind k) {
  switch (k) {
    case ModelKind::kWordPiece:
    case ModelKind::kBpe:
    case ModelKind::kUnigram:
      return true;
  }
  return false;
}
bool Known(DecoderKind k) {
  switch (k) {
    case DecoderKind::kNone:
    case DecoderKind::kWordPiece:
    case DecoderKind::kByteLevel:
    case DecoderKind::kMetaspace:
    case DecoderKind::kSentencePiece:
      return true;
  }
  return false;
}
bool Known(PrependScheme p) {
  switch (p) {
    case PrependScheme::kAlways:
    case PrependScheme::kFirst:
    case PrependScheme::kNever:
      return true;
  }
  return false;
}

bool CodePoint(char32_t c) {
  return c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

// Every fact the encoder relies on, checked once: what passes is a
// tokenizer the file loader could have built (up to its contents).
bool Check(enc_tokenizer& t, std::string* why) {
  auto bad = [&](const std::string& what) {
    *why = what;
    return false;
  };
  if (!t.id_to_token.Check(why)) return false;
  const auto ids = static_cast<int64_t>(t.id_to_token.size());
  if (ids > kMaxIds) return bad("more ids than a tokenizer has");
  // An id the tokenizer can give has a token, as the file loader ensures.
  auto id_ok = [&](int64_t id) {
    return id >= 0 && id < ids && !t.id_to_token.Get(id).empty();
  };
  auto id_or_none = [&](int64_t id) { return id == -1 || id_ok(id); };
  for (const NormalizerStep& n : t.normalizers) {
    if (!Known(n.kind) || !Known(n.form)) return bad("an unknown normalizer");
    if (n.kind == NormalizerKind::kReplace && n.replace.pattern.empty()) {
      return bad("a Replace normalizer has an empty pattern");
    }
  }
  int64_t bad_at = 0;
  if (!ValidUtf8(std::string_view(t.precompiled.replacements.data(),
                                  t.precompiled.replacements.size()),
                 &bad_at)) {
    return bad("the precompiled replacements are not UTF-8");
  }
  for (PreTokenizerKind k : t.pre_tokenizers) {
    if (!Known(k)) return bad("an unknown pre-tokenizer");
  }
  if (!Known(t.metaspace.prepend_scheme) ||
      !CodePoint(t.metaspace.replacement) ||
      !Known(t.decoder.metaspace.prepend_scheme) ||
      !CodePoint(t.decoder.metaspace.replacement)) {
    return bad("a Metaspace option is out of range");
  }
  if (!Known(t.model) || !Known(t.decoder.kind)) {
    return bad("an unknown model or decoder");
  }
  if (!t.token_to_id.Check(id_ok, why) ||
      !t.wordpiece.vocab.Check(id_ok, why) ||
      !t.wordpiece.continuing.Check(id_ok, why) ||
      !t.bpe.vocab.Check(id_ok, why) || !t.unigram.vocab.Check(id_ok, why)) {
    return false;
  }
  if (t.model == ModelKind::kWordPiece ? !id_ok(t.wordpiece.unk_id)
                                       : !id_or_none(t.wordpiece.unk_id)) {
    return bad("WordPiece's unknown token is out of range");
  }
  if (!id_or_none(t.bpe.unk_id) || !id_or_none(t.unigram.unk_id) ||
      !id_or_none(t.decoder.unk_id)) {
    return bad("an unknown token id is out of range");
  }
  if (!t.bpe.merges.Check(
          [&](const BpeMerge& m) { return m.rank >= 0 && id_ok(m.merged); },
          why)) {
    return false;
  }
  Unigram& u = t.unigram;
  if (static_cast<int64_t>(u.scores.size()) > ids) {
    return bad("more Unigram scores than ids");
  }
  for (double s : u.scores) {
    if (!std::isfinite(s)) return bad("a Unigram score is not finite");
  }
  if (!std::isfinite(u.min_score)) return bad("Unigram's lowest score");
  const auto pieces = static_cast<int64_t>(u.scores.size());
  for (int32_t id : u.node_id) {
    if (id < -1 || id >= pieces || (id >= 0 && !id_ok(id))) {
      return bad("a Unigram trie node's piece");
    }
  }
  const auto nodes = static_cast<int64_t>(u.node_id.size());
  if (!u.children.Check([&](int64_t n) { return n >= 0 && n < nodes; }, why)) {
    return false;
  }
  for (AddedToken& a : t.added) {
    std::vector<char32_t> cps;
    std::vector<int64_t> starts;
    if (a.content.empty() || !DecodeUtf8(a.content, &cps, &starts, &bad_at) ||
        !id_ok(a.id)) {
      return bad("an added token is empty, not UTF-8 or out of range");
    }
    a.cps.assign(cps.begin(), cps.end());
  }
  for (const auto* list : {&t.post.single, &t.post.pair}) {
    for (const TemplatePiece& p : *list) {
      if (p.sequence < 0 || p.sequence > 1 || p.type_id < 0 ||
          p.type_id >= kMaxIds) {
        return bad("a template piece is out of range");
      }
      for (int32_t id : p.ids) {
        if (!id_ok(id)) return bad("a template's token id is out of range");
      }
    }
  }
  if (t.post.trim_offsets &&
      static_cast<int64_t>(t.post.spaces.size()) != ids) {
    return bad("the offsets table does not cover every id");
  }
  if (t.truncation.max_length < 0) {
    return bad("the truncation is out of range");
  }
  const Padding& pad = t.padding;
  if (pad.length < 0 || pad.length > (1 << 20) || pad.pad_type_id < 0 ||
      pad.pad_type_id >= kMaxIds ||
      (ids > 0 && (pad.pad_id < 0 || pad.pad_id >= ids)) ||
      ((pad.length > 0 || pad.batch_longest) && !id_ok(pad.pad_id))) {
    return bad("the padding is out of range");
  }
  if (static_cast<int64_t>(t.is_special.size()) != ids) {
    return bad("the special-token table does not cover every id");
  }
  return true;
}

}  // namespace

bool IsImage(const char* data, size_t size) {
  return data != nullptr && size >= sizeof kMagic &&
         std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

std::string WriteImage(const enc_tokenizer& tok) {
  Writer w;
  // The Writer only reads: one field list serves both directions.
  Visit(w, const_cast<enc_tokenizer&>(tok));
  std::string body = std::move(w.out());
  std::string image(kHeaderBytes, '\0');
  const uint32_t zero = 0;
  const uint64_t size = body.size();
  const uint64_t sum = HashBytes(body.data(), body.size());
  std::memcpy(&image[0], kMagic, 8);
  std::memcpy(&image[8], &kVersion, 4);
  std::memcpy(&image[12], &zero, 4);
  std::memcpy(&image[16], &size, 8);
  std::memcpy(&image[24], &sum, 8);
  return image + body;
}

enc_status CheckTokenizer(const char* name, enc_tokenizer* tok) {
  std::string why;
  if (!Check(*tok, &why)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: %s (refused, as its compiled image would be)", name,
                why.c_str());
  }
  return ENC_OK;
}

enc_status ReadImage(const char* name, const char* data, size_t size,
                     bool borrow, enc_tokenizer* tok) {
  auto bad = [&](const std::string& why) {
    return Fail(ENC_ERR_FORMAT, "%s: tokenizer image: %s", name, why.c_str());
  };
  if (!IsImage(data, size) || size < kHeaderBytes) {
    return bad("no image header");
  }
  uint32_t version = 0;
  uint64_t body_size = 0, sum = 0;
  std::memcpy(&version, data + 8, 4);
  std::memcpy(&body_size, data + 16, 8);
  std::memcpy(&sum, data + 24, 8);
  if (version != kVersion) {
    return bad("version " + std::to_string(version) + ", this runtime reads " +
               std::to_string(kVersion) + " (recompile the model)");
  }
  if (body_size != size - kHeaderBytes) {
    return bad("the header says " + std::to_string(body_size) +
               " bytes of body, there are " +
               std::to_string(size - kHeaderBytes));
  }
  if (!borrow || reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    tok->image.assign((size + 7) / 8, 0);
    std::memcpy(tok->image.data(), data, size);
    data = reinterpret_cast<const char*>(tok->image.data());
  }
  const char* body = data + kHeaderBytes;
  if (HashBytes(body, body_size) != sum) {
    return bad("the checksum does not match (a damaged image)");
  }
  Reader r(body, body_size);
  Visit(r, *tok);
  if (r.ok() && !r.done()) r.Bad("bytes are left after the last field");
  if (!r.ok()) return bad(r.why());
  std::string why;
  if (!Check(*tok, &why)) return bad(why);
  tok->bpe.cache_key = NextCacheKey();
  tok->unigram.cache_key = NextCacheKey();
  tok->added_index.clear();
  for (size_t i = 0; i < tok->added.size(); ++i) {
    tok->added_index[tok->added[i].cps[0]].push_back(static_cast<uint32_t>(i));
  }
  return ENC_OK;
}

}  // namespace tok
}  // namespace enc
