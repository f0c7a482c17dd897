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

namespace enc {
namespace tok {

// Text after normalization: each code point with the byte range of the
// original text it came from (an inserted or expanded code point has the
// range of the one it replaced), so that token offsets point into the input.
struct NormalizedText {
  std::vector<char32_t> cps;
  std::vector<int64_t> begin, end;

  void Push(char32_t c, int64_t b, int64_t e) {
    cps.push_back(c);
    begin.push_back(b);
    end.push_back(e);
  }
  size_t size() const { return cps.size(); }
};

// HF's BertNormalizer (strip_accents null follows lowercase).
struct BertNormalizer {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;
  bool lowercase = true;

  NormalizedText Apply(const std::vector<char32_t>& cps,
                       const std::vector<int64_t>& starts, int64_t base) const;
};

// One token of the model, before post-processing.
struct Token {
  int32_t id;
  int64_t begin, end;  // bytes of the original text
};

// WordPiece: greedy longest match from the left, "##" pieces after the
// first, the whole word [UNK] when a piece is missing or the word is longer
// than max_input_chars_per_word.
struct WordPiece {
  std::unordered_map<std::string, int32_t> vocab;  // every entry, as spelled
  std::unordered_map<std::string, int32_t> continuing;  // prefix removed
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

// One piece of a post-processing template.
struct TemplatePiece {
  bool is_sequence;  // $A or $B (sequence 0 or 1), else a special token
  int32_t sequence;
  std::vector<int32_t> ids;  // the special token's ids
  int32_t type_id;
};

struct PostProcessor {
  bool present = false;
  std::vector<TemplatePiece> single, pair;
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

struct WordPieceDecoder {
  bool present = false;
  std::string prefix = "##";
  bool cleanup = true;
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
  enc::tok::BertNormalizer normalizer;
  bool has_normalizer = false;
  bool bert_pre_tokenizer = false;
  enc::tok::WordPiece model;
  std::vector<enc::tok::AddedToken> added;  // longest first
  enc::tok::PostProcessor post;
  enc::tok::Truncation truncation;
  enc::tok::Padding padding;
  enc::tok::WordPieceDecoder decoder;
  std::vector<std::string> id_to_token;  // "" where no token has the id
  std::vector<bool> is_special;          // by id

  // Encodes one text (with its pair, or null), as enc_tokenizer_encode.
  enc_status Encode(std::string_view text, const std::string_view* pair,
                    bool add_special_tokens, enc_encoding* out) const;
  enc_status Decode(const int32_t* ids, int32_t count, bool skip_special,
                    std::string* out) const;

  // The tokens of one input before post-processing.
  enc_status EncodeSequence(std::string_view text,
                            std::vector<enc::tok::Token>* out) const;
};

#endif  // ENC_RUNTIME_TOKENIZER_TOKENIZER_H_
