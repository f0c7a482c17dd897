// Reading a tokenizer: Hugging Face's tokenizer.json, or a BERT vocab.txt
// (with tokenizer_config.json's do_lower_case beside it). Everything the
// file asks for is either implemented or refused naming the piece: a
// tokenizer is never silently different from the file's.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <string>

#include "src/json_depth.h"
#include "src/status.h"
#include "tokenizer/image.h"
#include "tokenizer/sentencepiece.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace enc {
namespace tok {

uint64_t NextCacheKey() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

namespace {

using nlohmann::json;

// Files beyond this are refused before parsing (the largest published
// tokenizer.json files are a few tens of MB).
constexpr int64_t kMaxFileBytes = int64_t{512} << 20;
// JSON nested deeper than any tokenizer.json is refused before parsing.
constexpr int kMaxDepth = 64;
// A fixed padding past a million tokens is refused rather than allocated
// for every text.
constexpr int64_t kMaxInt32 = 0x7FFFFFFF;
constexpr int64_t kMaxPadding = int64_t{1} << 20;

enc_status ReadFile(const char* path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(ENC_ERR_IO, "%s: cannot open", path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Fail(ENC_ERR_IO, "%s: cannot read", path);
  if (size > kMaxFileBytes) {
    return Fail(ENC_ERR_FORMAT, "%s: %lld bytes is larger than a tokenizer",
                path, static_cast<long long>(size));
  }
  in.seekg(0);
  out->resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(out->data(), size)) {
    return Fail(ENC_ERR_IO, "%s: cannot read", path);
  }
  return ENC_OK;
}

// A loading error: ENC_ERR_FORMAT naming the file and the place in it.
struct Loader {
  const char* path;
  enc_tokenizer* tok;
  // Id -> token while reading; Finish() puts them into tok->id_to_token.
  std::vector<std::string> names = {};

  enc_status Bad(const std::string& where, const std::string& what) const {
    return Fail(ENC_ERR_FORMAT, "%s: %s: %s", path, where.c_str(),
                what.c_str());
  }

  // An integer in [lo, hi]; a float (which nlohmann would cast, undefined
  // out of range), a string or a value out of range is an error naming it.
  enc_status IntOf(const json& v, int64_t lo, int64_t hi,
                   const std::string& where, int64_t* out) const {
    bool ok = false;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      ok = u <= static_cast<uint64_t>(hi);
      *out = ok ? static_cast<int64_t>(u) : 0;
    } else if (v.is_number_integer()) {
      *out = v.get<int64_t>();
      ok = true;
    } else {
      return Bad(where, "not an integer");
    }
    if (!ok || *out < lo || *out > hi) {
      return Bad(where, v.dump() + " is outside [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
    }
    return ENC_OK;
  }

  // IntOf on obj[key], `fallback` when it is absent or null.
  enc_status Int(const json& obj, const char* key, int64_t fallback, int64_t lo,
                 int64_t hi, const std::string& where, int64_t* out) const {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      *out = fallback;
      return ENC_OK;
    }
    return IntOf(*it, lo, hi, where + "." + key, out);
  }

  // A token string must be UTF-8 without NUL.
  static bool ValidToken(const std::string& s) {
    std::vector<char32_t> cps;
    std::vector<int64_t> starts;
    int64_t bad = 0;
    return !s.empty() && s.find('\0') == std::string::npos &&
           DecodeUtf8(s, &cps, &starts, &bad);
  }

  // Records id -> token; a second token for one id is an error.
  enc_status SetToken(const std::string& where, const std::string& token,
                      int64_t id, bool allow_same = false) {
    if (id < 0 || id > kMaxTokenId) {
      return Bad(where, "id " + std::to_string(id) + " of \"" + token +
                            "\" is out of range");
    }
    if (!ValidToken(token)) {
      return Bad(where, "a token is empty, has a NUL or is not UTF-8");
    }
    if (names.size() <= static_cast<size_t>(id)) {
      names.resize(static_cast<size_t>(id) + 1);
    }
    if (!names[id].empty() && !(allow_same && names[id] == token)) {
      return Bad(where, "id " + std::to_string(id) + " is both \"" + names[id] +
                            "\" and \"" + token + "\"");
    }
    names[id] = token;
    tok->token_to_id.Insert(token, static_cast<int32_t>(id));
    return ENC_OK;
  }

  enc_status AddVocabEntry(const std::string& where, const std::string& token,
                           int64_t id) {
    WordPiece& m = tok->wordpiece;
    if (!m.vocab.Insert(token, static_cast<int32_t>(id))) {
      return Bad(where, "the token \"" + token + "\" appears twice");
    }
    if (enc_status s = SetToken(where, token, id)) return s;
    if (token.compare(0, m.prefix.size(), m.prefix) == 0 &&
        token.size() > m.prefix.size()) {
      m.continuing.Insert(std::string_view(token).substr(m.prefix.size()),
                          static_cast<int32_t>(id));
    }
    return ENC_OK;
  }

  // Calls add(token, id) for each entry of a model's "vocab" object, which
  // must be non-empty with integer ids.
  template <typename Add>
  enc_status ForEachVocabEntry(const json& m, Add add) {
    const auto vocab = m.find("vocab");
    if (vocab == m.end() || !vocab->is_object() || vocab->empty()) {
      return Bad("model.vocab", "missing or empty");
    }
    for (const auto& [token, id] : vocab->items()) {
      if (!id.is_number_integer()) {
        return Bad("model.vocab",
                   "the id of \"" + token + "\" is not an integer");
      }
      if (enc_status s = add(token, id.template get<int64_t>())) return s;
    }
    return ENC_OK;
  }

  // A kind may appear once in a Sequence: each has one set of options.
  template <typename Kind>
  enc_status Once(const std::string& where, std::vector<Kind>* list, Kind kind,
                  const std::string& type) const {
    if (std::find(list->begin(), list->end(), kind) != list->end()) {
      return Bad(where, "\"" + type + "\" appears twice in the sequence");
    }
    list->push_back(kind);
    return ENC_OK;
  }

  enc_status OnceStep(const std::string& where, NormalizerKind kind,
                      const std::string& type) {
    for (const NormalizerStep& n : tok->normalizers) {
      if (n.kind == kind) {
        return Bad(where, "\"" + type + "\" appears twice in the sequence");
      }
    }
    tok->normalizers.push_back(NormalizerStep{kind});
    return ENC_OK;
  }

  static bool CodePoints(const std::string& s, std::u32string* out) {
    std::vector<char32_t> cps;
    std::vector<int64_t> starts;
    int64_t bad = 0;
    if (!DecodeUtf8(s, &cps, &starts, &bad)) return false;
    out->assign(cps.begin(), cps.end());
    return true;
  }

  // Replace's pattern: {"String": s}, or {"Regex": r} where r is a code
  // point followed by `+` or `{n,}` (what published files use, such as
  // SentencePiece conversions' " {2,}"); other expressions are refused.
  enc_status ReplaceStep(const json& n, const std::string& where,
                         Replace* r) const {
    const json pattern = n.value("pattern", json());
    if (!CodePoints(n.value("content", ""), &r->content)) {
      return Bad(where, "the content is not UTF-8");
    }
    if (pattern.is_object() && pattern.contains("String")) {
      if (!CodePoints(pattern["String"].get<std::string>(), &r->pattern) ||
          r->pattern.empty()) {
        return Bad(where, "the pattern is empty or not UTF-8");
      }
      return ENC_OK;
    }
    if (pattern.is_object() && pattern.contains("Regex")) {
      const std::string regex = pattern["Regex"].get<std::string>();
      std::u32string cps;
      if (CodePoints(regex, &cps) && cps.size() >= 2) {
        const std::u32string rest = cps.substr(1);
        const bool special = std::u32string(U"\\.[](){}*+?|^$").find(cps[0]) !=
                             std::u32string::npos;
        size_t min = 0;
        if (rest == U"+") min = 1;
        if (rest.size() >= 4 && rest.front() == U'{' &&
            rest.substr(rest.size() - 2) == U",}") {
          min = 0;
          bool digits = true;
          for (size_t k = 1; k + 2 < rest.size(); ++k) {
            if (rest[k] < U'0' || rest[k] > U'9' || min > 1000) digits = false;
            if (digits) min = min * 10 + (rest[k] - U'0');
          }
          if (!digits) min = 0;
        }
        if (!special && min > 0) {
          r->pattern = cps.substr(0, 1);
          r->min_repeat = min;
          return ENC_OK;
        }
      }
      return Bad(where, "the regular expression \"" + regex +
                            "\" is not implemented (only c+ and c{n,})");
    }
    return Bad(where, "the pattern is neither String nor Regex");
  }

  enc_status Normalizer(const json& n, const std::string& where,
                        int depth = 0) {
    if (n.is_null()) return ENC_OK;
    if (!n.is_object()) return Bad(where, "not an object");
    const std::string type = n.value("type", "");
    if (type == "Sequence" && depth == 0) {
      const json list = n.value("normalizers", json());
      if (!list.is_array()) return Bad(where, "normalizers is not a list");
      for (size_t i = 0; i < list.size(); ++i) {
        if (enc_status s =
                Normalizer(list[i], where + "[" + std::to_string(i) + "]", 1)) {
          return s;
        }
      }
      return ENC_OK;
    }
    if (type == "BertNormalizer") {
      BertNormalizer& b = tok->bert_normalizer;
      b.clean_text = n.value("clean_text", true);
      b.handle_chinese_chars = n.value("handle_chinese_chars", true);
      b.lowercase = n.value("lowercase", true);
      const auto sa = n.find("strip_accents");
      b.strip_accents =
          sa == n.end() || sa->is_null() ? b.lowercase : sa->get<bool>();
      return OnceStep(where, NormalizerKind::kBert, type);
    }
    if (type == "Precompiled") {
      const json map = n.value("precompiled_charsmap", json());
      if (map.is_null()) return ENC_OK;  // no map: nothing changes
      std::string why;
      if (!tok->precompiled.Parse(map.get<std::string>(), &why)) {
        return Bad(where, why);
      }
      return OnceStep(where, NormalizerKind::kPrecompiled, type);
    }
    static const std::pair<const char*, UnicodeForm> kForms[] = {
        {"NFD", UnicodeForm::kNfd},
        {"NFKD", UnicodeForm::kNfkd},
        {"NFC", UnicodeForm::kNfc},
        {"NFKC", UnicodeForm::kNfkc}};
    for (const auto& [name, form] : kForms) {
      if (type == name) {
        NormalizerStep step{NormalizerKind::kUnicodeForm};
        step.form = form;
        tok->normalizers.push_back(step);
        return ENC_OK;
      }
    }
    if (type == "Lowercase") {
      tok->normalizers.push_back(NormalizerStep{NormalizerKind::kLowercase});
      return ENC_OK;
    }
    if (type == "Strip") {
      NormalizerStep step{NormalizerKind::kStrip};
      step.strip_left = n.value("strip_left", true);
      step.strip_right = n.value("strip_right", true);
      tok->normalizers.push_back(step);
      return ENC_OK;
    }
    if (type == "Replace") {
      NormalizerStep step{NormalizerKind::kReplace};
      if (enc_status s = ReplaceStep(n, where, &step.replace)) return s;
      tok->normalizers.push_back(std::move(step));
      return ENC_OK;
    }
    return Bad(where, "type \"" + type + "\" is not implemented yet");
  }

  enc_status Metaspace(const json& p, const std::string& where,
                       enc::tok::Metaspace* m) const {
    const std::string r = p.value("replacement", "\u2581");
    std::vector<char32_t> cps;
    std::vector<int64_t> starts;
    int64_t bad = 0;
    if (!DecodeUtf8(r, &cps, &starts, &bad) || cps.size() != 1) {
      return Bad(where, "the replacement \"" + r + "\" is not one character");
    }
    m->replacement = cps[0];
    const json scheme = p.value("prepend_scheme", json());
    if (scheme.is_null()) {  // older files: add_prefix_space
      m->prepend_scheme = p.value("add_prefix_space", true)
                              ? PrependScheme::kAlways
                              : PrependScheme::kNever;
    } else {
      const std::string v = scheme.get<std::string>();
      if (v == "always") {
        m->prepend_scheme = PrependScheme::kAlways;
      } else if (v == "first") {
        m->prepend_scheme = PrependScheme::kFirst;
      } else if (v == "never") {
        m->prepend_scheme = PrependScheme::kNever;
      } else {
        return Bad(where, "prepend_scheme \"" + v + "\"");
      }
    }
    m->split = p.value("split", true);
    return ENC_OK;
  }

  enc_status PreTokenizer(const json& p, const std::string& where,
                          int depth = 0) {
    if (p.is_null()) return ENC_OK;
    if (!p.is_object()) return Bad(where, "not an object");
    const std::string type = p.value("type", "");
    auto& list = tok->pre_tokenizers;
    if (type == "Sequence" && depth == 0) {
      const json steps = p.value("pretokenizers", json());
      if (!steps.is_array()) return Bad(where, "pretokenizers is not a list");
      for (size_t i = 0; i < steps.size(); ++i) {
        if (enc_status s = PreTokenizer(
                steps[i], where + "[" + std::to_string(i) + "]", 1)) {
          return s;
        }
      }
      return ENC_OK;
    }
    if (type == "BertPreTokenizer") {
      return Once(where, &list, PreTokenizerKind::kBert, type);
    }
    if (type == "WhitespaceSplit") {
      return Once(where, &list, PreTokenizerKind::kWhitespaceSplit, type);
    }
    if (type == "ByteLevel") {
      tok->byte_level.add_prefix_space = p.value("add_prefix_space", true);
      tok->byte_level.use_regex = p.value("use_regex", true);
      return Once(where, &list, PreTokenizerKind::kByteLevel, type);
    }
    if (type == "Metaspace") {
      if (enc_status s = Metaspace(p, where, &tok->metaspace)) return s;
      return Once(where, &list, PreTokenizerKind::kMetaspace, type);
    }
    return Bad(where, "type \"" + type + "\" is not implemented yet");
  }

  enc_status WordPieceModel(const json& m) {
    tok->model = ModelKind::kWordPiece;
    WordPiece& w = tok->wordpiece;
    w.prefix = m.value("continuing_subword_prefix", "##");
    if (enc_status s = Int(m, "max_input_chars_per_word", 100, 0, kMaxInt32,
                           "model", &w.max_input_chars_per_word)) {
      return s;
    }
    if (enc_status s =
            ForEachVocabEntry(m, [&](const std::string& token, int64_t id) {
              return AddVocabEntry("model.vocab", token, id);
            })) {
      return s;
    }
    const std::string unk = m.value("unk_token", "[UNK]");
    w.unk_id = w.vocab.Find(unk);
    if (w.unk_id < 0) {
      return Bad("model.unk_token", "\"" + unk + "\" is not in the vocabulary");
    }
    return ENC_OK;
  }

  // One merge, "a b" (older files) or ["a", "b"].
  enc_status MergePair(const json& merge, size_t rank, std::string* a,
                       std::string* b) const {
    const std::string where = "model.merges[" + std::to_string(rank) + "]";
    if (merge.is_string()) {
      const std::string line = merge.get<std::string>();
      const size_t space = line.find(' ');
      if (space == std::string::npos) {
        return Bad(where, "\"" + line + "\" is not two tokens");
      }
      *a = line.substr(0, space);
      *b = line.substr(space + 1);
      return ENC_OK;
    }
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
        merge[1].is_string()) {
      *a = merge[0].get<std::string>();
      *b = merge[1].get<std::string>();
      return ENC_OK;
    }
    return Bad(where, "neither \"a b\" nor [a, b]");
  }

  enc_status BpeModel(const json& m) {
    tok->model = ModelKind::kBpe;
    Bpe& bpe = tok->bpe;
    bpe.cache_key = NextCacheKey();
    const json dropout = m.value("dropout", json());
    if (!dropout.is_null() && dropout.get<double>() != 0.0) {
      return Bad("model.dropout",
                 "BPE dropout (random merges) is not "
                 "supported: a tokenizer here is "
                 "deterministic");
    }
    const json prefix = m.value("continuing_subword_prefix", json());
    const json suffix = m.value("end_of_word_suffix", json());
    bpe.continuing_subword_prefix =
        prefix.is_null() ? "" : prefix.get<std::string>();
    bpe.end_of_word_suffix = suffix.is_null() ? "" : suffix.get<std::string>();
    bpe.fuse_unk = m.value("fuse_unk", false);
    bpe.byte_fallback = m.value("byte_fallback", false);
    bpe.ignore_merges = m.value("ignore_merges", false);
    if (enc_status s =
            ForEachVocabEntry(m, [&](const std::string& token, int64_t id) {
              if (enc_status s = SetToken("model.vocab", token, id)) return s;
              if (!bpe.vocab.Insert(token, static_cast<int32_t>(id))) {
                return Bad("model.vocab",
                           "the token \"" + token + "\" appears twice");
              }
              return ENC_OK;
            })) {
      return s;
    }
    const json unk = m.value("unk_token", json());
    if (!unk.is_null()) {
      bpe.unk_id = bpe.vocab.Find(unk.get<std::string>());
      if (bpe.unk_id < 0) {
        return Bad("model.unk_token", "\"" + unk.get<std::string>() +
                                          "\" is not in the vocabulary");
      }
    }
    const auto merges = m.find("merges");
    if (merges == m.end() || !merges->is_array()) {
      return Bad("model.merges", "missing or not a list");
    }
    const size_t prefix_len = bpe.continuing_subword_prefix.size();
    std::string a, b;
    for (size_t rank = 0; rank < merges->size(); ++rank) {
      if (enc_status s = MergePair((*merges)[rank], rank, &a, &b)) return s;
      const std::string where = "model.merges[" + std::to_string(rank) + "]";
      if (b.size() < prefix_len) {
        return Bad(where, "\"" + b + "\" is shorter than the subword prefix");
      }
      const std::string merged = a + b.substr(prefix_len);
      int32_t ids[3];
      const std::string* parts[3] = {&a, &b, &merged};
      for (int k = 0; k < 3; ++k) {
        ids[k] = bpe.vocab.Find(*parts[k]);
        if (ids[k] < 0) {
          return Bad(where, "\"" + *parts[k] + "\" is not in the vocabulary");
        }
      }
      // A pair given twice keeps its last rank (as HF's map does).
      bpe.merges.Set(Bpe::PairKey(ids[0], ids[1]),
                     BpeMerge{static_cast<int32_t>(rank), ids[2]});
    }
    return ENC_OK;
  }

  enc_status UnigramModel(const json& m) {
    tok->model = ModelKind::kUnigram;
    Unigram& u = tok->unigram;
    u.cache_key = NextCacheKey();
    const auto vocab = m.find("vocab");
    if (vocab == m.end() || !vocab->is_array() || vocab->empty()) {
      return Bad("model.vocab", "missing or empty");
    }
    u.scores.Edit().reserve(vocab->size());
    for (size_t id = 0; id < vocab->size(); ++id) {
      const json& e = (*vocab)[id];
      const std::string where = "model.vocab[" + std::to_string(id) + "]";
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() ||
          !e[1].is_number()) {
        return Bad(where, "not a [piece, score] pair");
      }
      const std::string piece = e[0].get<std::string>();
      const double score = e[1].get<double>();
      if (!std::isfinite(score)) return Bad(where, "the score is not finite");
      if (u.vocab.Contains(piece)) {
        return Bad(where, "the piece \"" + piece + "\" appears twice");
      }
      if (enc_status s = SetToken(where, piece, static_cast<int64_t>(id))) {
        return s;
      }
      u.Add(piece, score);
    }
    const json unk = m.value("unk_id", json());
    if (!unk.is_null()) {
      int64_t id = 0;
      if (enc_status s = IntOf(unk, 0, kMaxInt32, "model.unk_id", &id)) {
        return s;
      }
      if (static_cast<size_t>(id) >= u.scores.size()) {
        return Bad("model.unk_id",
                   std::to_string(id) + " is not an id of the vocabulary");
      }
      u.unk_id = static_cast<int32_t>(id);
    }
    u.byte_fallback = m.value("byte_fallback", false);
    return ENC_OK;
  }

  enc_status Model(const json& m) {
    if (!m.is_object()) return Bad("model", "not an object");
    // Old files give no type: the models are told by their keys.
    std::string type = m.value("type", "");
    if (!m.contains("type")) {
      if (m.contains("unk_id") ||
          (m.contains("vocab") && m["vocab"].is_array())) {
        type = "Unigram";
      } else if (m.contains("merges")) {
        type = "BPE";
      } else if (m.contains("continuing_subword_prefix")) {
        type = "WordPiece";
      }
    }
    if (type == "WordPiece") return WordPieceModel(m);
    if (type == "BPE") return BpeModel(m);
    if (type == "Unigram") return UnigramModel(m);
    return Bad("model", "type \"" + type + "\" is not implemented yet");
  }

  enc_status Added(const json& list) {
    if (list.is_null()) return ENC_OK;
    if (!list.is_array()) return Bad("added_tokens", "not a list");
    // Ids as HF's AddedVocabulary gives them, whatever the file's "id": a
    // token of the model's vocabulary (or added before) keeps its id, a new
    // one takes the next after the vocabulary and the added tokens.
    size_t model_size = 0;
    switch (tok->model) {
      case ModelKind::kWordPiece:
        model_size = tok->wordpiece.vocab.size();
        break;
      case ModelKind::kBpe:
        model_size = tok->bpe.vocab.size();
        break;
      case ModelKind::kUnigram:
        model_size = tok->unigram.scores.size();
        break;
    }
    int64_t max_added = -1;
    for (const json& a : list) {
      AddedToken t;
      t.content = a.value("content", "");
      const int32_t known = tok->token_to_id.Find(t.content);
      const bool seen = std::any_of(
          tok->added.begin(), tok->added.end(),
          [&](const AddedToken& x) { return x.content == t.content; });
      if (seen) continue;  // HF keeps the first
      if (known >= 0) {
        t.id = known;
      } else {
        t.id = static_cast<int32_t>(
            max_added >= static_cast<int64_t>(model_size) || model_size == 0
                ? max_added + 1
                : static_cast<int64_t>(model_size));
      }
      max_added = std::max<int64_t>(max_added, t.id);
      t.special = a.value("special", false);
      t.single_word = a.value("single_word", false);
      t.lstrip = a.value("lstrip", false);
      t.rstrip = a.value("rstrip", false);
      t.normalized = a.value("normalized", !t.special);
      if (enc_status s = SetToken("added_tokens", t.content, t.id, true)) {
        return s;
      }
      std::vector<char32_t> cps;
      std::vector<int64_t> starts;
      int64_t bad = 0;
      DecodeUtf8(t.content, &cps, &starts, &bad);
      t.cps.assign(cps.begin(), cps.end());
      tok->added.push_back(std::move(t));
    }
    // Longest first, ties in file order: the matcher takes the first that
    // matches. (std::sort on an explicit key: libstdc++'s stable_sort uses
    // get_temporary_buffer, deprecated in C++17 and an error under -Werror.)
    std::vector<size_t> order(tok->added.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      size_t lx = tok->added[x].cps.size(), ly = tok->added[y].cps.size();
      return lx != ly ? lx > ly : x < y;
    });
    std::vector<AddedToken> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(tok->added[i]));
    tok->added = std::move(sorted);
    return ENC_OK;
  }

  int32_t IdOf(const std::string& token) const {
    return tok->token_to_id.Find(token);
  }

  // A [token, id] pair of BertProcessing or RobertaProcessing: the id is
  // read checked (an implicit json conversion of a float is undefined).
  enc_status Special(const std::string& where, const json& token_json,
                     const json& id_json, int32_t type_id,
                     TemplatePiece* out) const {
    if (!token_json.is_string()) return Bad(where, "the token is not a string");
    const std::string token = token_json.get<std::string>();
    int64_t id = 0;
    if (enc_status s = IntOf(id_json, 0, kMaxTokenId, where, &id)) return s;
    if (IdOf(token) != id) {
      return Bad(where, "\"" + token + "\" is not token " + std::to_string(id));
    }
    *out = TemplatePiece{false, 0, {static_cast<int32_t>(id)}, type_id};
    return ENC_OK;
  }

  enc_status TypeId(const json& piece, const std::string& where,
                    int32_t* out) const {
    int64_t v = 0;
    if (enc_status s = Int(piece, "type_id", 0, 0, kMaxTokenId, where, &v)) {
      return s;
    }
    *out = static_cast<int32_t>(v);
    return ENC_OK;
  }

  enc_status Template(const json& pieces, const json& specials,
                      const std::string& where,
                      std::vector<TemplatePiece>* out) const {
    if (!pieces.is_array()) return Bad(where, "not a list");
    for (const json& p : pieces) {
      TemplatePiece piece{};
      if (p.contains("Sequence")) {
        const json& s = p["Sequence"];
        const std::string id = s.value("id", "");
        if (id != "A" && id != "B")
          return Bad(where, "sequence \"" + id + "\"");
        piece.is_sequence = true;
        piece.sequence = id == "A" ? 0 : 1;
        if (enc_status e = TypeId(s, where, &piece.type_id)) return e;
      } else if (p.contains("SpecialToken")) {
        const json& s = p["SpecialToken"];
        const std::string id = s.value("id", "");
        if (enc_status e = TypeId(s, where, &piece.type_id)) return e;
        const auto sp = specials.find(id);
        if (sp == specials.end()) {
          return Bad(where, "special token \"" + id + "\" has no entry");
        }
        for (const json& i : sp->value("ids", json::array())) {
          int64_t v = 0;
          if (enc_status e = IntOf(i, 0, kMaxInt32, where + ".ids", &v)) {
            return e;
          }
          if (static_cast<size_t>(v) >= names.size() || names[v].empty()) {
            return Bad(where, "special token \"" + id + "\" has id " +
                                  std::to_string(v) +
                                  ", not in the vocabulary");
          }
          piece.ids.push_back(static_cast<int32_t>(v));
        }
      } else {
        return Bad(where, "a piece is neither Sequence nor SpecialToken");
      }
      out->push_back(piece);
    }
    return ENC_OK;
  }

  enc_status Post(const json& p, int depth = 0) {
    PostProcessor& post = tok->post;
    if (p.is_null()) return ENC_OK;
    const std::string type = p.value("type", "");
    if (type == "Sequence" && depth == 0) {
      // As newer files chain them: ByteLevel's trimming, then one template
      // (a second template would replace the first's specials).
      const json list = p.value("processors", json());
      if (!list.is_array()) {
        return Bad("post_processor", "processors is not a list");
      }
      int templates = 0;
      for (const json& step : list) {
        const bool is_template =
            step.is_object() && step.value("type", "") != "ByteLevel";
        if (is_template && ++templates > 1) {
          return Bad("post_processor",
                     "a sequence of two templates is not implemented");
        }
        if (enc_status s = Post(step, 1)) return s;
      }
      return ENC_OK;
    }
    if (type == "ByteLevel") {  // offsets trimming only, no special tokens
      post.trim_offsets = p.value("trim_offsets", true);
      post.add_prefix_space = p.value("add_prefix_space", true);
      return ENC_OK;
    }
    post.present = true;
    if (type == "TemplateProcessing") {
      const json specials = p.value("special_tokens", json::object());
      if (enc_status s = Template(p.value("single", json()), specials,
                                  "post_processor.single", &post.single)) {
        return s;
      }
      return Template(p.value("pair", json()), specials, "post_processor.pair",
                      &post.pair);
    }
    if (type == "BertProcessing" || type == "RobertaProcessing") {
      const json cls = p.value("cls", json()), sep = p.value("sep", json());
      if (!cls.is_array() || cls.size() != 2 || !sep.is_array() ||
          sep.size() != 2) {
        return Bad("post_processor", "cls and sep must be [token, id]");
      }
      TemplatePiece c, s0, s1;
      if (enc_status s = Special("post_processor.cls", cls[0], cls[1], 0, &c)) {
        return s;
      }
      if (enc_status s =
              Special("post_processor.sep", sep[0], sep[1], 0, &s0)) {
        return s;
      }
      const bool bert = type == "BertProcessing";
      if (!bert) {
        post.trim_offsets = p.value("trim_offsets", true);
        post.add_prefix_space = p.value("add_prefix_space", true);
      }
      s1 = s0;
      s1.type_id = bert ? 1 : 0;
      const TemplatePiece a{true, 0, {}, 0}, b{true, 1, {}, bert ? 1 : 0};
      post.single = {c, a, s0};
      if (bert) {
        post.pair = {c, a, s0, b, s1};
      } else {  // <s> A </s> </s> B </s>
        post.pair = {c, a, s0, s0, b, s0};
      }
      return ENC_OK;
    }
    return Bad("post_processor",
               "type \"" + type + "\" is not implemented yet");
  }

  enc_status Decoder(const json& d) {
    if (d.is_null()) return ENC_OK;
    const std::string type = d.value("type", "");
    if (type == "WordPiece") {
      tok->decoder.kind = DecoderKind::kWordPiece;
      tok->decoder.prefix = d.value("prefix", "##");
      tok->decoder.cleanup = d.value("cleanup", true);
      return ENC_OK;
    }
    if (type == "ByteLevel") {
      tok->decoder.kind = DecoderKind::kByteLevel;
      return ENC_OK;
    }
    if (type == "Metaspace") {
      tok->decoder.kind = DecoderKind::kMetaspace;
      return Metaspace(d, "decoder", &tok->decoder.metaspace);
    }
    return Bad("decoder", "type \"" + type + "\" is not implemented yet");
  }

  enc_status TruncationAndPadding(const json& t, const json& p) {
    if (!t.is_null()) {
      int64_t v = 0;
      if (enc_status s =
              Int(t, "max_length", 0, 0, kMaxInt32, "truncation", &v)) {
        return s;
      }
      tok->truncation.max_length = static_cast<int32_t>(v);
      const std::string strategy = t.value("strategy", "LongestFirst");
      if (strategy == "LongestFirst") {
        tok->truncation.strategy = ENC_TRUNCATE_LONGEST_FIRST;
      } else if (strategy == "OnlyFirst") {
        tok->truncation.strategy = ENC_TRUNCATE_ONLY_FIRST;
      } else if (strategy == "OnlySecond") {
        tok->truncation.strategy = ENC_TRUNCATE_ONLY_SECOND;
      } else {
        return Bad("truncation.strategy", "\"" + strategy + "\"");
      }
      if (enc_status s = Int(t, "stride", 0, 0, kMaxInt32, "truncation", &v)) {
        return s;
      }
      if (v != 0) {
        return Bad("truncation.stride", "a stride is not implemented yet");
      }
      if (t.value("direction", "Right") != "Right") {
        return Bad("truncation.direction", "only Right is implemented");
      }
    }
    if (!p.is_null()) {
      Padding& pad = tok->padding;
      const json strategy = p.value("strategy", json());
      int64_t v = 0;
      if (strategy.is_object() && strategy.contains("Fixed")) {
        if (enc_status s = IntOf(strategy["Fixed"], 0, kMaxPadding,
                                 "padding.strategy.Fixed", &v)) {
          return s;
        }
        pad.length = static_cast<int32_t>(v);
      } else {
        pad.batch_longest = true;
      }
      if (enc_status s = Int(p, "pad_id", 0, 0, kMaxTokenId, "padding", &v)) {
        return s;
      }
      pad.pad_id = static_cast<int32_t>(v);
      if (static_cast<size_t>(pad.pad_id) >= names.size() ||
          names[pad.pad_id].empty()) {
        return Bad("padding.pad_id", std::to_string(pad.pad_id) +
                                         " is not an id of the vocabulary");
      }
      if (enc_status s =
              Int(p, "pad_type_id", 0, 0, kMaxTokenId, "padding", &v)) {
        return s;
      }
      pad.pad_type_id = static_cast<int32_t>(v);
      pad.pad_token = p.value("pad_token", "[PAD]");
      if (p.value("direction", "Right") != "Right") {
        return Bad("padding.direction", "only Right is implemented");
      }
      if (!p.value("pad_to_multiple_of", json()).is_null()) {
        return Bad("padding.pad_to_multiple_of", "not implemented yet");
      }
    }
    return ENC_OK;
  }

  // What every loader ends with: the tokenizer it built, held to the
  // invariants an image is read under (CheckTokenizer), so that a file
  // opens exactly when its compiled image would.
  enc_status Done() { return CheckTokenizer(path, tok); }

  // The table of specials, by id, once everything has its id.
  void Finish() {
    tok->id_to_token.Set(names);
    std::vector<uint8_t>& special = tok->is_special.Edit();
    special.assign(names.size(), 0);
    if (tok->post.trim_offsets) {
      std::vector<TokenSpaces>& spaces = tok->post.spaces.Edit();
      spaces.resize(names.size());
      for (size_t id = 0; id < names.size(); ++id) {
        spaces[id] = ByteLevelSpaces(names[id]);
      }
    }
    tok->added_index.clear();
    for (size_t i = 0; i < tok->added.size(); ++i) {
      const AddedToken& a = tok->added[i];
      if (a.special) special[a.id] = 1;
      if (!a.cps.empty()) {
        tok->added_index[a.cps[0]].push_back(static_cast<uint32_t>(i));
      }
    }
  }
};

enc_status LoadJson(const char* path, const std::string& text,
                    enc_tokenizer* tok) {
  Loader l{path, tok};
  if (JsonDepth(text) > kMaxDepth) {
    return l.Bad("JSON", "nested deeper than " + std::to_string(kMaxDepth));
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return l.Bad("JSON", e.what());
  }
  if (!j.is_object() || !j.contains("model")) {
    return l.Bad("JSON", "not a tokenizer.json (no \"model\")");
  }
  try {
    if (enc_status s = l.Model(j["model"])) return s;
    if (enc_status s = l.Added(j.value("added_tokens", json()))) return s;
    if (enc_status s =
            l.Normalizer(j.value("normalizer", json()), "normalizer")) {
      return s;
    }
    if (enc_status s =
            l.PreTokenizer(j.value("pre_tokenizer", json()), "pre_tokenizer")) {
      return s;
    }
    if (enc_status s = l.Post(j.value("post_processor", json()))) return s;
    if (enc_status s = l.Decoder(j.value("decoder", json()))) return s;
    if (enc_status s = l.TruncationAndPadding(j.value("truncation", json()),
                                              j.value("padding", json()))) {
      return s;
    }
  } catch (const json::exception& e) {
    return l.Bad("a field has the wrong type", e.what());
  }
  l.Finish();
  return l.Done();
}

}  // namespace

enc_status LoadVocabTxt(const char* path, const std::string& text,
                        bool lowercase, enc_tokenizer* tok) {
  Loader l{path, tok};
  std::istringstream lines(text);
  std::string line;
  int64_t id = 0;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      return l.Bad("line " + std::to_string(id + 1), "an empty token");
    }
    if (enc_status s =
            l.AddVocabEntry("line " + std::to_string(id + 1), line, id)) {
      return s;
    }
    ++id;
  }
  tok->model = ModelKind::kWordPiece;
  WordPiece& w = tok->wordpiece;
  w.unk_id = w.vocab.Find("[UNK]");
  if (w.unk_id < 0) return l.Bad("vocabulary", "no [UNK]");
  // As transformers' BertTokenizer: these five are special where present,
  // [CLS] A [SEP] (B [SEP]) around the text.
  for (const char* name : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    const int32_t id = w.vocab.Find(name);
    if (id < 0) continue;
    AddedToken t{name, {}, id, true, false, false, false, false};
    t.cps.assign(t.content.begin(), t.content.end());
    tok->added.push_back(t);
  }
  const int32_t cls = w.vocab.Find("[CLS]"), sep = w.vocab.Find("[SEP]");
  if (cls < 0 || sep < 0) return l.Bad("vocabulary", "no [CLS] or [SEP]");
  const TemplatePiece c{false, 0, {cls}, 0}, s0{false, 0, {sep}, 0},
      s1{false, 0, {sep}, 1}, a{true, 0, {}, 0}, b{true, 1, {}, 1};
  tok->post.present = true;
  tok->post.single = {c, a, s0};
  tok->post.pair = {c, a, s0, b, s1};
  tok->bert_normalizer.lowercase = lowercase;
  tok->bert_normalizer.strip_accents = lowercase;
  tok->normalizers = {NormalizerStep{NormalizerKind::kBert}};
  tok->pre_tokenizers = {PreTokenizerKind::kBert};
  tok->decoder.kind = DecoderKind::kWordPiece;
  const int32_t pad = w.vocab.Find("[PAD]");
  tok->padding.pad_id = pad >= 0 ? pad : 0;
  l.Finish();
  return l.Done();
}

enc_status LoadSentencePiece(const char* path, const std::string& bytes,
                             enc_tokenizer* tok) {
  Loader l{path, tok};
  SpmModel m;
  std::string why;
  if (!ParseSentencePiece(bytes, &m, &why)) {
    return l.Bad("SentencePiece model", why);
  }
  if (m.model_type != 1) {
    static const char* const kTypes[] = {"", "unigram", "BPE", "word", "char"};
    const std::string type = m.model_type >= 1 && m.model_type <= 4
                                 ? kTypes[m.model_type]
                                 : std::to_string(m.model_type);
    return l.Bad("trainer_spec.model_type",
                 type + " is not implemented; only unigram models are");
  }
  if (!m.escape_whitespaces) {
    return l.Bad("normalizer_spec.escape_whitespaces",
                 "false is not implemented");
  }
  tok->model = ModelKind::kUnigram;
  Unigram& u = tok->unigram;
  u.cache_key = NextCacheKey();
  u.byte_fallback = m.byte_fallback;
  u.sentencepiece = true;
  u.scores.Edit().reserve(m.pieces.size());
  // SentencePiece's bounds of the normal pieces' scores.
  float min_score = std::numeric_limits<float>::max();
  float max_score = std::numeric_limits<float>::min();
  for (const SpmPiece& p : m.pieces) {
    if (p.type != SpmPiece::kNormal) continue;
    min_score = std::min(min_score, p.score);
    max_score = std::max(max_score, p.score);
  }
  for (size_t id = 0; id < m.pieces.size(); ++id) {
    const SpmPiece& p = m.pieces[id];
    const std::string where = "pieces[" + std::to_string(id) + "]";
    if (!std::isfinite(p.score)) {
      return l.Bad(where, "the score is not finite");
    }
    if (u.vocab.Contains(p.piece)) {
      return l.Bad(where, "the piece \"" + p.piece + "\" appears twice");
    }
    if (enc_status s = l.SetToken(where, p.piece, static_cast<int64_t>(id))) {
      return s;
    }
    // As SentencePiece: text matches normal and user-defined pieces, the
    // latter scored to win over any normal piece (length * max_score - 0.1,
    // max_score being at least FLT_MIN); control, unknown, unused and byte
    // pieces never come from text.
    const bool user = p.type == SpmPiece::kUserDefined;
    const double score =
        user ? static_cast<double>(static_cast<float>(p.piece.size()) *
                                   max_score) -
                   0.1
             : p.score;
    if (!std::isfinite(score)) {
      char highest[32];
      std::snprintf(highest, sizeof highest, "%g", max_score);
      return l.Bad(where,
                   std::string("a user-defined piece scores its length times "
                               "the highest normal score (") +
                       highest + "), past float's range");
    }
    u.Add(p.piece, score, p.type == SpmPiece::kNormal || user);
  }
  u.min_score = min_score;
  if (m.unk_id < 0 || static_cast<size_t>(m.unk_id) >= m.pieces.size()) {
    return l.Bad("trainer_spec.unk_id",
                 std::to_string(m.unk_id) + " is not an id of the model");
  }
  u.unk_id = static_cast<int32_t>(m.unk_id);
  tok->normalizers.clear();
  if (!m.precompiled_charsmap.empty()) {
    if (!tok->precompiled.ParseBytes(m.precompiled_charsmap, &why)) {
      return l.Bad("normalizer_spec.precompiled_charsmap", why);
    }
    tok->precompiled.longest_match = true;
    tok->normalizers.push_back(NormalizerStep{NormalizerKind::kPrecompiled});
  }
  if (m.remove_extra_whitespaces) {  // no space at either end, none doubled
    NormalizerStep strip{NormalizerKind::kStrip};
    strip.strip_left = strip.strip_right = true;
    NormalizerStep collapse{NormalizerKind::kReplace};
    collapse.replace.pattern = U" ";
    collapse.replace.min_repeat = 2;
    collapse.replace.content = U" ";
    tok->normalizers.push_back(strip);
    tok->normalizers.push_back(collapse);
  }
  tok->pre_tokenizers = {PreTokenizerKind::kMetaspace};
  tok->metaspace.prepend_scheme =
      m.add_dummy_prefix ? PrependScheme::kAlways : PrependScheme::kNever;
  tok->metaspace.split = false;  // one Viterbi over the text, as SentencePiece
  tok->decoder.kind = DecoderKind::kSentencePiece;
  tok->decoder.metaspace = tok->metaspace;
  tok->decoder.unk_id = u.unk_id;
  tok->decoder.byte_fallback = m.byte_fallback;
  if (m.pad_id >= 0 && static_cast<size_t>(m.pad_id) < m.pieces.size()) {
    tok->padding.pad_id = static_cast<int32_t>(m.pad_id);
    tok->padding.pad_token = m.pieces[m.pad_id].piece;
  }
  l.Finish();
  // Control pieces are what decode's skip_special_tokens drops.
  for (size_t id = 0; id < m.pieces.size(); ++id) {
    if (m.pieces[id].type == SpmPiece::kControl) {
      tok->is_special.Edit()[id] = 1;
    }
  }
  return l.Done();
}

namespace {
bool EndsWith(const std::string& s, const char* ext) {
  const size_t n = std::strlen(ext);
  return s.size() >= n && s.compare(s.size() - n, n, ext) == 0;
}
}  // namespace

enc_status LoadBytes(const char* name, const std::string& bytes,
                     enc_tokenizer* tok) {
  if (static_cast<int64_t>(bytes.size()) > kMaxFileBytes) {
    return Fail(ENC_ERR_FORMAT, "%s: larger than %lld bytes", name,
                static_cast<long long>(kMaxFileBytes));
  }
  if (IsImage(bytes.data(), bytes.size())) {  // what encc compiles in
    return ReadImage(name, bytes.data(), bytes.size(), /*borrow=*/false, tok);
  }
  const std::string n = name;
  if (EndsWith(n, ".model")) return LoadSentencePiece(name, bytes, tok);
  // In memory no tokenizer_config.json sits beside a vocab.txt: the name
  // carries do_lower_case (true, transformers' default, unless ".cased.txt").
  if (EndsWith(n, ".cased.txt")) return LoadVocabTxt(name, bytes, false, tok);
  if (EndsWith(n, ".txt")) return LoadVocabTxt(name, bytes, true, tok);
  return LoadJson(name, bytes, tok);
}

enc_status Load(const char* path, enc_tokenizer* tok) {
  std::string text;
  if (enc_status s = ReadFile(path, &text)) return s;
  const std::string p = path;
  if (!EndsWith(p, ".txt")) return LoadBytes(path, text, tok);
  // vocab.txt: do_lower_case from a tokenizer_config.json beside it.
  bool lowercase = true;
  const size_t slash = p.rfind('/');
  const std::string config =
      (slash == std::string::npos ? std::string() : p.substr(0, slash + 1)) +
      "tokenizer_config.json";
  std::string config_text;
  std::ifstream probe(config);
  if (probe && ReadFile(config.c_str(), &config_text) == ENC_OK &&
      JsonDepth(config_text) <= kMaxDepth) {
    try {
      const json c = json::parse(config_text);
      if (c.is_object()) lowercase = c.value("do_lower_case", true);
    } catch (const json::exception& e) {
      return Fail(ENC_ERR_FORMAT, "%s: %s", config.c_str(), e.what());
    }
  }
  return LoadVocabTxt(path, text, lowercase, tok);
}

}  // namespace tok
}  // namespace enc
