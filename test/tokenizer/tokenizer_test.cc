// enc/tokenizer.h's C ABI on what no reference covers: bad text, broken and
// hostile tokenizer files, bad arguments, batches, and concurrent use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "enc/tokenizer.h"

namespace {

const std::string kInputs = ENC_TOKENIZER_INPUTS;

struct Tok {
  enc_tokenizer* t = nullptr;
  ~Tok() { enc_tokenizer_free(t); }
};

std::vector<int32_t> Ids(const enc_tokenizer* t, const std::string& text) {
  enc_encoding* e = nullptr;
  EXPECT_EQ(
      enc_tokenizer_encode(t, text.data(), text.size(), nullptr, 0, 1, &e),
      ENC_OK)
      << enc_last_error();
  std::vector<int32_t> ids(enc_encoding_ids(e),
                           enc_encoding_ids(e) + enc_encoding_length(e));
  enc_encoding_free(e);
  return ids;
}

// Writes `text` to a temporary tokenizer file; its path.
std::string Write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string OpenError(const std::string& path) {
  enc_tokenizer* t = reinterpret_cast<enc_tokenizer*>(&t);
  const enc_status s = enc_tokenizer_open(path.c_str(), &t);
  EXPECT_NE(s, ENC_OK) << path;
  EXPECT_EQ(t, nullptr);
  return enc_last_error();
}

const char* kSmall = R"({"model": {"type": "WordPiece", "unk_token": "[UNK]",
  "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
  "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "##s": 4}},
  "normalizer": {"type": "BertNormalizer"},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2],
                     "cls": ["[CLS]", 1]}})";

TEST(Tokenizer, InvalidUtf8NamesTheByte) {
  Tok tok;
  ASSERT_EQ(enc_tokenizer_open(Write("small.json", kSmall).c_str(), &tok.t),
            ENC_OK)
      << enc_last_error();
  const std::string bad[] = {"ab\xff", "hello \xc3", "x\xed\xa0\x80",
                             "\xc0\xaf", "ok \xf4\x90\x80\x80"};
  const int offsets[] = {2, 6, 1, 0, 3};
  for (int i = 0; i < 5; ++i) {
    enc_encoding* e = reinterpret_cast<enc_encoding*>(&tok);
    EXPECT_EQ(enc_tokenizer_encode(tok.t, bad[i].data(), bad[i].size(), nullptr,
                                   0, 1, &e),
              ENC_ERR_INPUT);
    EXPECT_EQ(e, nullptr);
    EXPECT_NE(
        std::string(enc_last_error())
            .find("not valid UTF-8 at byte " + std::to_string(offsets[i])),
        std::string::npos)
        << enc_last_error();
  }
  EXPECT_EQ(Ids(tok.t, "hellos HELLO"), (std::vector<int32_t>{1, 3, 4, 3, 2}));
}

TEST(Tokenizer, BrokenFilesAreRefusedNamingWhat) {
  EXPECT_NE(OpenError("/nonexistent/tokenizer.json").find("cannot open"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("empty.json", "")).find("JSON"), std::string::npos);
  const std::string small = kSmall;
  EXPECT_NE(OpenError(Write("cut.json", small.substr(0, small.size() / 2)))
                .find("JSON"),
            std::string::npos);
  std::string other = small;
  other.replace(other.find("WordPiece"), 9, "WordLevel");
  EXPECT_NE(OpenError(Write("other.json", other))
                .find("model: type \"WordLevel\" is not implemented"),
            std::string::npos);
  std::string dup = small;
  dup.replace(dup.find("\"##s\": 4"), 8, "\"##s\": 3");
  EXPECT_NE(OpenError(Write("dup.json", dup)).find("id 3 is both"),
            std::string::npos);
  std::string neg = small;
  neg.replace(neg.find("\"##s\": 4"), 8, "\"##s\": -4");
  EXPECT_NE(OpenError(Write("neg.json", neg)).find("out of range"),
            std::string::npos);
  std::string unk = small;
  unk.replace(unk.find("\"unk_token\": \"[UNK]\""), 20,
              "\"unk_token\": \"<u>\"");
  EXPECT_NE(OpenError(Write("unk.json", unk))
                .find("\"<u>\" is not in the vocabulary"),
            std::string::npos);
  std::string sep = small;
  sep.replace(sep.find("[\"[SEP]\", 2]"), 12, "[\"[SEP]\", 9]");
  EXPECT_NE(OpenError(Write("sep.json", sep)).find("post_processor.sep"),
            std::string::npos);
  std::string norm = small;
  norm.replace(norm.find("BertNormalizer"), 14, "StripAccents");
  EXPECT_NE(OpenError(Write("accents.json", norm))
                .find("normalizer: type \"StripAccents\""),
            std::string::npos);
  std::string pad = small;
  pad.insert(pad.size() - 1, ", \"padding\": {\"pad_id\": 5}");
  EXPECT_NE(OpenError(Write("pad.json", pad))
                .find("padding.pad_id: 5 is not an id of the vocabulary"),
            std::string::npos);
  std::string wrong = small;
  wrong.replace(wrong.find("100"), 3, "\"a\"");
  EXPECT_NE(OpenError(Write("type.json", wrong))
                .find("model.max_input_chars_per_word: not an integer"),
            std::string::npos);
  // A float where an integer goes is refused, not cast (nlohmann's cast of
  // an out-of-range float is undefined).
  std::string huge = small;
  huge.replace(huge.find("100"), 3, "1e99");
  EXPECT_NE(OpenError(Write("huge.json", huge)).find("not an integer"),
            std::string::npos);
  std::string sep_float = small;
  sep_float.replace(sep_float.find("[\"[SEP]\", 2]"), 12,
                    "[\"[SEP]\", 6.6e73]");
  EXPECT_NE(OpenError(Write("sepfloat.json", sep_float))
                .find("post_processor.sep: not an integer"),
            std::string::npos);
  std::string pad_huge = small;
  pad_huge.insert(pad_huge.size() - 1,
                  ", \"padding\": {\"strategy\": {\"Fixed\": 99999999}}");
  EXPECT_NE(OpenError(Write("padhuge.json", pad_huge))
                .find("padding.strategy.Fixed: 99999999 is outside"),
            std::string::npos);
  std::string wrong_type = small;
  wrong_type.replace(wrong_type.find("\"continuing_subword_prefix\": \"##\""),
                     33, "\"continuing_subword_prefix\": 3");
  EXPECT_NE(OpenError(Write("wrongtype.json", wrong_type)).find("wrong type"),
            std::string::npos);
  // Deep JSON: refused before the parser sees it.
  std::string deep = "{\"model\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_NE(OpenError(Write("deep.json", deep)).find("nested deeper"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("vocab.txt", "a\n\nb\n")).find("line 2"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("nounk.txt", "a\nb\n")).find("no [UNK]"),
            std::string::npos);
}

TEST(Tokenizer, ArgumentsAndBatch) {
  Tok tok;
  ASSERT_EQ(
      enc_tokenizer_open(
          (kInputs + "/bert-base-uncased/tokenizer.json").c_str(), &tok.t),
      ENC_OK)
      << enc_last_error();
  EXPECT_EQ(enc_tokenizer_vocab_size(tok.t), 30522);
  EXPECT_EQ(enc_tokenizer_token_to_id(tok.t, "[CLS]", 5), 101);
  EXPECT_EQ(enc_tokenizer_token_to_id(tok.t, "nope-not-a-token", 16), -1);
  EXPECT_STREQ(enc_tokenizer_id_to_token(tok.t, 7592), "hello");
  EXPECT_EQ(enc_tokenizer_id_to_token(tok.t, 30522), nullptr);
  EXPECT_EQ(enc_tokenizer_id_to_token(tok.t, -1), nullptr);
  enc_encoding* e = nullptr;
  EXPECT_EQ(enc_tokenizer_encode(nullptr, "a", 1, nullptr, 0, 1, &e),
            ENC_ERR_INPUT);
  EXPECT_EQ(enc_tokenizer_encode(tok.t, nullptr, 3, nullptr, 0, 1, &e),
            ENC_ERR_INPUT);
  EXPECT_EQ(enc_tokenizer_set_truncation(tok.t, 2, ENC_TRUNCATE_LONGEST_FIRST),
            ENC_ERR_INPUT);  // fewer than a pair's 3 special tokens
  EXPECT_EQ(
      enc_tokenizer_set_truncation(tok.t, 4, static_cast<enc_truncation>(7)),
      ENC_ERR_INPUT);
  // decode: an id outside the vocabulary, a buffer too small.
  const int32_t bad[] = {101, 99999};
  size_t needed = 0;
  char buf[64];
  EXPECT_EQ(enc_tokenizer_decode(tok.t, bad, 2, 1, buf, sizeof buf, &needed),
            ENC_ERR_INPUT);
  const int32_t ids[] = {101, 7592, 1010, 2088, 999, 102};
  EXPECT_EQ(enc_tokenizer_decode(tok.t, ids, 6, 1, buf, 4, &needed),
            ENC_ERR_INPUT);
  EXPECT_EQ(needed, 14u);
  ASSERT_EQ(enc_tokenizer_decode(tok.t, ids, 6, 1, buf, sizeof buf, &needed),
            ENC_OK);
  EXPECT_STREQ(buf, "hello, world!");
  // A batch into enc_input's arrays: padded with [PAD], lengths exact.
  const char* texts[] = {"hello world", "a much longer sentence than that", ""};
  const size_t lens[] = {11, 32, 0};
  std::vector<int32_t> tokens(3 * 16, -7), types(3 * 16, -7), lengths(3);
  int32_t seq_len = 0;
  ASSERT_EQ(
      enc_tokenizer_encode_batch(tok.t, 3, texts, lens, 3 * 16, tokens.data(),
                                 types.data(), lengths.data(), &seq_len),
      ENC_OK)
      << enc_last_error();
  EXPECT_EQ(lengths, (std::vector<int32_t>{4, 8, 2}));
  EXPECT_EQ(seq_len, 8);
  EXPECT_EQ(std::vector<int32_t>(tokens.begin(), tokens.begin() + 8),
            (std::vector<int32_t>{101, 7592, 2088, 102, 0, 0, 0, 0}));
  EXPECT_EQ(tokens[8], 101);
  // The empty text: [CLS] [SEP], then padding.
  EXPECT_EQ(std::vector<int32_t>(tokens.begin() + 16, tokens.begin() + 24),
            (std::vector<int32_t>{101, 102, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(tokens[24], -7);  // nothing past count * seq_len
  EXPECT_EQ(enc_tokenizer_encode_batch(tok.t, 3, texts, lens, 23, tokens.data(),
                                       types.data(), lengths.data(), &seq_len),
            ENC_ERR_INPUT);
  EXPECT_EQ(seq_len, 8);
}

// One tokenizer, two threads, the same answers as one thread.
// A byte-level BPE: "h" "e" "l" "o" and the space's 'Ġ' (U+0120), merged
// to "he", "ll", "hell", "hello".
const char* kBpe = R"({"model": {"type": "BPE", "dropout": null,
  "unk_token": null, "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "\u0120": 4,
  "he": 5, "ll": 6, "hell": 7, "hello": 8},
  "merges": ["h e", "l l", "he ll", "hell o"]},
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
  "decoder": {"type": "ByteLevel"}})";

TEST(Tokenizer, BytePairEncoding) {
  Tok tok;
  ASSERT_EQ(enc_tokenizer_open(Write("bpe.json", kBpe).c_str(), &tok.t), ENC_OK)
      << enc_last_error();
  // "hello" merges fully; " hel" has no merge with 'Ġ', "l" stays alone;
  // bytes outside the vocabulary are dropped (no unk_token), as in HF.
  EXPECT_EQ(Ids(tok.t, "hello hel!"), (std::vector<int32_t>{8, 4, 5, 2}));
  const int32_t ids[] = {8, 4, 7, 3};
  char buf[32];
  size_t needed = 0;
  ASSERT_EQ(enc_tokenizer_decode(tok.t, ids, 4, 1, buf, sizeof buf, &needed),
            ENC_OK);
  EXPECT_STREQ(buf, "hello hello");
}

TEST(Tokenizer, BrokenBpeFilesAreRefusedNamingWhat) {
  const std::string bpe = kBpe;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = bpe;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_NE(OpenError(Write("m1.json", with("\"he ll\"", "\"he xx\"")))
                .find("model.merges[2]: \"xx\" is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("m2.json", with("\"l l\"", "\"ll\"")))
                .find("model.merges[1]: \"ll\" is not two tokens"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("m3.json", with("\"l l\"", "3")))
                .find("model.merges[1]: neither"),
            std::string::npos);
  // The merged token must exist too: "o h" would make "oh".
  EXPECT_NE(OpenError(Write("m4.json", with("\"h e\"", "\"o h\"")))
                .find("\"oh\" is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(
      OpenError(Write("d.json", with("\"dropout\": null", "\"dropout\": 0.1")))
          .find("model.dropout"),
      std::string::npos);
  EXPECT_NE(OpenError(Write("u.json", with("\"unk_token\": null",
                                           "\"unk_token\": \"<unk>\"")))
                .find("\"<unk>\" is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("v.json", with("\"ll\": 6", "\"ll\": 5")))
                .find("id 5 is both"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("nm.json", with("\"merges\"", "\"merged\"")))
                .find("model.merges: missing"),
            std::string::npos);
}

// A Unigram with SentencePiece's pieces: "▁" starts a word.
const char* kUnigram = R"({"model": {"type": "Unigram", "unk_id": 0,
  "vocab": [["<unk>", 0.0], ["\u2581", -3.0], ["\u2581he", -2.0],
            ["llo", -2.0], ["\u2581hello", -3.5], ["l", -4.0], ["o", -4.0],
            ["h", -4.0], ["e", -4.0]]},
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
    {"type": "WhitespaceSplit"},
    {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
     "split": true}]},
  "decoder": {"type": "Metaspace", "replacement": "\u2581",
              "prepend_scheme": "always", "split": true}})";

TEST(Tokenizer, UnigramTakesTheBestPath) {
  Tok tok;
  ASSERT_EQ(enc_tokenizer_open(Write("uni.json", kUnigram).c_str(), &tok.t),
            ENC_OK)
      << enc_last_error();
  // "▁hello" (-3.5) beats "▁he" + "llo" (-4.0); "x" and "y" are unknown,
  // fused into one <unk>.
  EXPECT_EQ(Ids(tok.t, "hello  hexy"), (std::vector<int32_t>{4, 2, 0}));
  const int32_t ids[] = {2, 3, 4};
  char buf[32];
  size_t needed = 0;
  ASSERT_EQ(enc_tokenizer_decode(tok.t, ids, 3, 1, buf, sizeof buf, &needed),
            ENC_OK);
  EXPECT_STREQ(buf, "hello hello");
}

TEST(Tokenizer, BrokenUnigramFilesAreRefusedNamingWhat) {
  const std::string uni = kUnigram;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = uni;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_NE(OpenError(Write("u1.json", with("[\"llo\", -2.0]", "[\"llo\"]")))
                .find("model.vocab[3]: not a [piece, score] pair"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("u2.json", with("[\"o\", -4.0]", "[\"l\", -4.0]")))
                .find("model.vocab[6]: the piece \"l\" appears twice"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("u3.json", with("\"unk_id\": 0", "\"unk_id\": 9")))
                .find("model.unk_id: 9 is not an id"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("u4.json", with("\"replacement\": \"\\u2581\", "
                                            "\"prepend_scheme\"",
                                            "\"replacement\": \"ab\", "
                                            "\"prepend_scheme\"")))
                .find("not one character"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("u5.json", with("{\"type\": \"WhitespaceSplit\"}",
                                            "{\"type\": \"Metaspace\"}")))
                .find("\"Metaspace\" appears twice"),
            std::string::npos);
  // A precompiled_charsmap: not base64, a trie larger than the blob, and
  // a hostile trie (every unit points far away) that must read nothing
  // outside itself.
  auto charsmap = [&](const std::string& b64) {
    return with("\"pre_tokenizer\"",
                "\"normalizer\": {\"type\": \"Precompiled\", "
                "\"precompiled_charsmap\": \"" +
                    b64 + "\"}, \"pre_tokenizer\"");
  };
  auto normalizer = [&](const std::string& json) {
    return with("\"pre_tokenizer\"",
                "\"normalizer\": " + json + ", \"pre_tokenizer\"");
  };
  EXPECT_NE(OpenError(Write("r1.json",
                            normalizer("{\"type\": \"Replace\", \"pattern\": "
                                       "{\"Regex\": \"[ab]+\"}, "
                                       "\"content\": \"\"}")))
                .find("\"[ab]+\" is not implemented"),
            std::string::npos);
  EXPECT_NE(
      OpenError(Write("r2.json", normalizer("{\"type\": \"Sequence\", "
                                            "\"normalizers\": [{\"type\": "
                                            "\"BertNormalizer\"}, {\"type\": "
                                            "\"BertNormalizer\"}]}")))
          .find("normalizer[1]: \"BertNormalizer\" appears twice"),
      std::string::npos);
  EXPECT_NE(OpenError(Write("c1.json", charsmap("!!!!"))).find("not base64"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("c2.json", charsmap("/////w=="))).find("trie size"),
            std::string::npos);
  Tok hostile;
  // Trie size 8: units 0xFFFFFFFF and 0x000001FF, then replacement "a".
  ASSERT_EQ(enc_tokenizer_open(
                Write("c3.json", charsmap("CAAAAP//////AQAAYQA=")).c_str(),
                &hostile.t),
            ENC_OK)
      << enc_last_error();
  EXPECT_EQ(Ids(hostile.t, "hello \xC3\xA9\xE2\x80\x8B"),
            Ids(hostile.t, "hello \xC3\xA9\xE2\x80\x8B"));
}

void ConcurrentEncodesAgreeOn(const std::string& path);

// A SentencePiece ModelProto written by hand, field by field.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    out.push_back(static_cast<char>((v & 0x7F) | (v > 0x7F ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
  return out;
}
std::string Field(uint32_t field, const std::string& bytes) {
  return Varint(field << 3 | 2) + Varint(bytes.size()) + bytes;
}
std::string VarintField(uint32_t field, uint64_t v) {
  return Varint(field << 3) + Varint(v);
}
std::string Piece(const std::string& text, float score, int type) {
  std::string bits(4, '\0');
  std::memcpy(&bits[0], &score, 4);  // little-endian, as x86
  return Field(
      1, Field(1, text) + Varint(2 << 3 | 5) + bits + VarintField(3, type));
}
std::string SmallSpm(int model_type = 1, int unk_id = 0) {
  return Piece("<unk>", 0, 2) + Piece("</s>", 0, 3) + Piece("\u2581", -2, 1) +
         Piece("\u2581ab", -3, 1) + Piece("a", -4, 1) + Piece("b", -4, 1) +
         Field(2, VarintField(3, model_type) + VarintField(40, unk_id)) +
         Field(3, Field(1, "identity"));
}

TEST(Tokenizer, SentencePieceModelFile) {
  Tok tok;
  ASSERT_EQ(
      enc_tokenizer_open(Write("small.model", SmallSpm()).c_str(), &tok.t),
      ENC_OK)
      << enc_last_error();
  // The dummy prefix, "▁ab" over "▁" + "a" + "b", "c" unknown; "</s>" in
  // the text is not the control piece.
  EXPECT_EQ(Ids(tok.t, "ab  ba c"), (std::vector<int32_t>{3, 2, 5, 4, 2, 0}));
  EXPECT_EQ(Ids(tok.t, "</s>")[1], 0);
  const int32_t ids[] = {3, 2, 5, 4, 0};
  char buf[32];
  size_t needed = 0;
  ASSERT_EQ(enc_tokenizer_decode(tok.t, ids, 5, 1, buf, sizeof buf, &needed),
            ENC_OK);
  EXPECT_STREQ(buf, "ab ba \u2047 ");
}

TEST(Tokenizer, SentencePieceScoresNearFloatMaxStayDefined) {
  // Path sums past float's range: the float store saturates (UBSan would
  // flag a cast), and the text still encodes.
  Tok tok;
  const std::string model = Piece("<unk>", 0, 2) + Piece("\u2581", -3e38f, 1) +
                            Piece("a", -3e38f, 1) + Piece("b", -3e38f, 1) +
                            Field(2, VarintField(3, 1)) +
                            Field(3, Field(1, "identity"));
  ASSERT_EQ(enc_tokenizer_open(Write("huge.model", model).c_str(), &tok.t),
            ENC_OK)
      << enc_last_error();
  EXPECT_EQ(Ids(tok.t, "ab ab").size(), 6u);
}

TEST(Tokenizer, BrokenSentencePieceFilesAreRefusedNamingWhat) {
  const std::string good = SmallSpm();
  EXPECT_NE(OpenError(Write("cut.model", good.substr(0, good.size() - 3)))
                .find("past the end"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("empty.model", "")).find("no pieces"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("group.model", good + "\x0b")).find("wire type 3"),
            std::string::npos);
  EXPECT_NE(
      OpenError(Write("varint.model", good + "\x08" + std::string(11, '\xff')))
          .find("varint"),
      std::string::npos);
  EXPECT_NE(OpenError(Write("bpe.model", SmallSpm(2)))
                .find("trainer_spec.model_type: BPE is not implemented"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("unk.model", SmallSpm(1, 9)))
                .find("trainer_spec.unk_id: 9 is not an id"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("nan.model", good + Piece("c", std::nanf(""), 1)))
                .find("pieces[6]: the score is not finite"),
            std::string::npos);
  // A user-defined piece scores length * max_score, as SentencePiece does;
  // past float's range that is refused, not stored as infinity.
  EXPECT_NE(OpenError(Write("user_inf.model", good + Piece("z", 3e38f, 1) +
                                                  Piece("<mask>", 0, 4)))
                .find("pieces[7]: a user-defined piece scores its length"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("twice.model", good + Piece("a", -1, 1)))
                .find("appears twice"),
            std::string::npos);
  EXPECT_NE(OpenError(Write("utf8.model", good + Piece("\xff", -1, 1)))
                .find("not UTF-8"),
            std::string::npos);
}

TEST(Tokenizer, ConcurrentEncodesAgree) {
  // WordPiece, BPE with its per-thread cache of words, and Unigram.
  for (const char* file :
       {"/bert-base-uncased/tokenizer.json", "/roberta-base/tokenizer.json",
        "/t5-small/tokenizer.json"}) {
    ConcurrentEncodesAgreeOn(kInputs + file);
  }
}

void ConcurrentEncodesAgreeOn(const std::string& path) {
  SCOPED_TRACE(path);
  Tok tok;
  ASSERT_EQ(enc_tokenizer_open(path.c_str(), &tok.t), ENC_OK);
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i) {
    texts.push_back("sentence number " + std::to_string(i) +
                    " with naïve café and 中文 text, repeated " +
                    std::string(i % 7, '!'));
  }
  std::vector<std::vector<int32_t>> want;
  for (const auto& t : texts) want.push_back(Ids(tok.t, t));
  std::vector<int> bad(2, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 5; ++round) {
        for (size_t i = 0; i < texts.size(); ++i) {
          if (Ids(tok.t, texts[i]) != want[i]) ++bad[k];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad, (std::vector<int>{0, 0}));
}

}  // namespace
