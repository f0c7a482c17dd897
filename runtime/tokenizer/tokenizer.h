// A tokenizer as Hugging Face `tokenizers` composes one: added tokens
// matched first, then normalizer -> pre-tokenizer -> model -> truncation ->
// post-processor -> padding, and a decoder (docs/tokenizers.md). Each piece
// is a plain struct read from the file (tokenizer/load.cc); Encode and
// Decode only read it, so one Tokenizer serves many threads.
#ifndef ENC_RUNTIME_TOKENIZER_TOKENIZER_H_
#define ENC_RUNTIME_TOKENIZER_TOKENIZER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "enc/tokenizer.h"
#include "tokenizer/bpe.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/normalized.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/precompiled.h"
#include "tokenizer/tables.h"
#include "tokenizer/unigram.h"

namespace enc {
namespace tok {

// Ids and type ids are at most this (a file with larger ones is refused).
constexpr int64_t kMaxTokenId = int64_t{1} << 24;

// Each model's key for the per-thread caches of split words: never reused,
// so a cache never serves another (or a freed and reallocated) model.
uint64_t NextCacheKey();

// HF's BertNormalizer (strip_accents null follows lowercase).
struct BertNormalizer {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;
  bool lowercase = true;

  NormalizedText Apply(const NormalizedText& in) const;
};

// WordPiece: greedy longest match from the left, "##" pieces after the
// first, the whole word [UNK] when a piece is missing or the word is longer
// than max_input_chars_per_word.
struct WordPiece {
  StrIdMap vocab;       // every entry, as spelled
  StrIdMap continuing;  // prefix removed
  std::string prefix = "##";
  int32_t unk_id = -1;
  int64_t max_input_chars_per_word = 100;

  // Appends the tokens of word [first, last) of `text`.
  void Tokenize(const NormalizedText& text, size_t first, size_t last,
                std::string* scratch, std::vector<Token>* out) const;
};

// A token matched in the text before the model (HF's AddedToken).
struct AddedToken {
  std::string content;
  std::u32string cps;  // content's code points, as matched
  int32_t id;
  bool special, single_word, lstrip, rstrip, normalized;
};

// The added tokens (indices into the list, longest first) that start with
// each code point.
using AddedIndex = std::unordered_map<char32_t, std::vector<uint32_t>>;

// One piece of a post-processing template.
struct TemplatePiece {
  bool is_sequence;  // $A or $B (sequence 0 or 1), else a special token
  int32_t sequence;
  std::vector<int32_t> ids;  // the special token's ids
  int32_t type_id;
};

struct PostProcessor {
  bool present = false;  // special tokens and type ids from the templates
  std::vector<TemplatePiece> single, pair;
  // ByteLevel's offsets trimming (RobertaProcessing and ByteLevel's own
  // post-processor), with or without special tokens.
  bool trim_offsets = false;
  bool add_prefix_space = false;
  Table<TokenSpaces> spaces;  // by id, when trim_offsets
  // Tokens added around one text and around a pair (for truncation).
  int32_t Added(bool is_pair) const;
};

struct Truncation {
  int32_t max_length = 0;  // 0: off
  enc_truncation strategy = ENC_TRUNCATE_LONGEST_FIRST;
};

struct Padding {
  int32_t length = 0;  // Fixed: that length; 0 off
  bool batch_longest = false;
  int32_t pad_id = 0, pad_type_id = 0;
  std::string pad_token = "[PAD]";
};

// The pieces a file can choose, one enum each: switches over them have no
// default arm, so a new choice fails to compile until every step has it.
// A `Sequence` of normalizers or pre-tokenizers is a list of kinds.
enum class NormalizerKind {
  kBert,
  kPrecompiled,
  kUnicodeForm,
  kLowercase,
  kStrip,
  kReplace
};

// One normalizer of the sequence, with the options of the kinds that may
// appear more than once (Bert and Precompiled keep theirs in the tokenizer).
struct NormalizerStep {
  NormalizerStep() : kind(NormalizerKind::kBert) {}
  explicit NormalizerStep(NormalizerKind k) : kind(k) {}
  NormalizerKind kind;
  UnicodeForm form = UnicodeForm::kNfc;          // NFD, NFKD, NFC, NFKC
  bool strip_left = false, strip_right = false;  // Strip
  Replace replace;                               // Replace
};
enum class ModelKind { kWordPiece, kBpe, kUnigram };
enum class PreTokenizerKind { kBert, kByteLevel, kWhitespaceSplit, kMetaspace };
enum class DecoderKind {
  kNone,
  kWordPiece,
  kByteLevel,
  kMetaspace,
  kSentencePiece  // a .model file's own decode (docs/tokenizers.md)
};

// Metaspace (SentencePiece's spaces): ' ' becomes the replacement (U+2581),
// one is put before a text per the prepend scheme, and the text is split
// before each.
enum class PrependScheme { kAlways, kFirst, kNever };
struct Metaspace {
  char32_t replacement = 0x2581;
  PrependScheme prepend_scheme = PrependScheme::kAlways;
  bool split = true;
};

struct ByteLevelPreTokenizer {
  bool add_prefix_space = false;  // a space before each text that lacks one
  bool use_regex = true;          // GPT-2's split; else one word per text
};

struct Decoder {
  DecoderKind kind = DecoderKind::kNone;
  std::string prefix = "##";   // WordPiece
  bool cleanup = true;         // WordPiece
  Metaspace metaspace;         // Metaspace, SentencePiece
  int32_t unk_id = -1;         // SentencePiece: decoded as " \u2047 "
  bool byte_fallback = false;  // SentencePiece: <0xXX> pieces are bytes
};

}  // namespace tok
}  // namespace enc

// The encoding of one text or pair, as enc_encoding_* reads it.
struct enc_encoding {
  std::vector<int32_t> ids, type_ids, attention_mask, sequence_ids;
  std::vector<int64_t> offsets;  // pairs
  std::vector<std::string> tokens;
};

struct enc_tokenizer {
  std::vector<enc::tok::NormalizerStep> normalizers;  // in order
  enc::tok::BertNormalizer bert_normalizer;
  enc::tok::Precompiled precompiled;
  std::vector<enc::tok::PreTokenizerKind> pre_tokenizers;  // in order
  enc::tok::ByteLevelPreTokenizer byte_level;
  enc::tok::Metaspace metaspace;
  enc::tok::ModelKind model = enc::tok::ModelKind::kWordPiece;
  enc::tok::WordPiece wordpiece;
  enc::tok::Bpe bpe;
  enc::tok::Unigram unigram;
  std::vector<enc::tok::AddedToken> added;  // longest first
  enc::tok::AddedIndex added_index;         // by first code point
  enc::tok::PostProcessor post;
  enc::tok::Truncation truncation;
  enc::tok::Padding padding;
  enc::tok::Decoder decoder;
  enc::tok::TokenNames id_to_token;     // "" where no token has the id
  enc::tok::StrIdMap token_to_id;       // model and added
  enc::tok::Table<uint8_t> is_special;  // by id
  // The image the tables view, when opened from a copy of one
  // (tokenizer/image.h); 8-byte aligned.
  std::vector<uint64_t> image;

  // Encodes one text (with its pair, or null), as enc_tokenizer_encode.
  enc_status Encode(std::string_view text, const std::string_view* pair,
                    bool add_special_tokens, enc_encoding* out) const;
  enc_status Decode(const int32_t* ids, int32_t count, bool skip_special,
                    std::string* out) const;

  // The tokens of one input before post-processing.
  enc_status EncodeSequence(std::string_view text,
                            std::vector<enc::tok::Token>* out) const;

 private:
  // Pre-tokenizer `step` on and the model over text[first, last), a span
  // that is not an added token; false when the model cannot encode it.
  bool PreTokenize(size_t step, const enc::tok::NormalizedText& text,
                   size_t first, size_t last, std::string* scratch,
                   std::vector<enc::tok::Token>* out) const;
  bool Model(const enc::tok::NormalizedText& text, size_t first, size_t last,
             std::string* scratch, std::vector<enc::tok::Token>* out) const;
};

#endif  // ENC_RUNTIME_TOKENIZER_TOKENIZER_H_
