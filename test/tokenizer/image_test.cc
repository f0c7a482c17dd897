// The compiled tokenizer image (docs/tokenizers.md#compiled-in): it
// encodes as the file does, is the same bytes every time it is written,
// and a truncated, damaged or hostile image is an error naming it, never a
// crash (the sanitizer build runs this file too).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "enc/tokenizer.h"
#include "tokenizer/image.h"
#include "tokenizer/tables.h"
#include "tokenizer/tokenizer.h"

namespace {

const std::string kInputs = ENC_TOKENIZER_INPUTS;
constexpr size_t kHeaderBytes = 32;  // magic, version, 0, size, checksum

struct Tok {
  enc_tokenizer* t = nullptr;
  ~Tok() { enc_tokenizer_free(t); }
};

std::string Image(const enc_tokenizer* tok) {
  size_t size = 0;
  EXPECT_EQ(enc_tokenizer_save_image(tok, nullptr, 0, &size), ENC_OK);
  std::string image(size, '\0');
  EXPECT_EQ(enc_tokenizer_save_image(tok, image.data(), size, &size), ENC_OK)
      << enc_last_error();
  return image;
}

// Everything an encoding and its decode hold, as one string to compare.
std::string Dump(const enc_tokenizer* tok, const std::string& text,
                 const std::string* pair) {
  enc_encoding* e = nullptr;
  if (enc_tokenizer_encode(tok, text.data(), text.size(),
                           pair ? pair->data() : nullptr,
                           pair ? pair->size() : 0, 1, &e) != ENC_OK) {
    return std::string("error: ") + enc_last_error();
  }
  const int32_t n = enc_encoding_length(e);
  std::string out;
  std::vector<int32_t> ids(enc_encoding_ids(e), enc_encoding_ids(e) + n);
  for (int32_t i = 0; i < n; ++i) {
    out +=
        std::to_string(ids[i]) + "/" +
        std::to_string(enc_encoding_type_ids(e)[i]) + "/" +
        std::to_string(enc_encoding_offsets(e)[2 * i]) + "-" +
        std::to_string(enc_encoding_offsets(e)[2 * i + 1]) + "/" +
        std::string(enc_encoding_token(e, i), enc_encoding_token_length(e, i)) +
        " ";
  }
  enc_encoding_free(e);
  std::vector<char> text_out(1 << 14);
  size_t len = 0;
  if (enc_tokenizer_decode(tok, ids.data(), n, 1, text_out.data(),
                           text_out.size(), &len) == ENC_OK) {
    out += "| " + std::string(text_out.data(), len);
  }
  return out;
}

const char* kTexts[] = {
    "Hello, world! Don't stop.",
    "naïve café Straße ÅNGSTRÖM",
    "中文文本 and 日本語のテキスト",
    "  spaces\tand\nnewlines  ",
    "emoji 🙂🚀 and symbols ∑∫",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "<mask> [MASK] <s> </s> [CLS]",
    "",
};

const char* kFiles[] = {
    "/bert-base-uncased/tokenizer.json", "/bert-base-cased/vocab.txt",
    "/roberta-base/tokenizer.json",      "/t5-small/tokenizer.json",
    "/all-mpnet-base-v2/tokenizer.json",
};

TEST(TokenizerImage, EncodesAsTheFileDoes) {
  for (const char* file : kFiles) {
    SCOPED_TRACE(file);
    Tok from_file, from_image;
    ASSERT_EQ(enc_tokenizer_open((kInputs + file).c_str(), &from_file.t),
              ENC_OK)
        << enc_last_error();
    const std::string image = Image(from_file.t);
    ASSERT_GT(image.size(), kHeaderBytes);
    EXPECT_EQ(image.compare(0, 6, "ENCTOK"), 0);
    ASSERT_EQ(enc_tokenizer_open_memory(image.data(), image.size(), "x.json",
                                        &from_image.t),
              ENC_OK)
        << enc_last_error();
    EXPECT_EQ(enc_tokenizer_vocab_size(from_image.t),
              enc_tokenizer_vocab_size(from_file.t));
    for (const char* text : kTexts) {
      const std::string pair = "and a second text";
      EXPECT_EQ(Dump(from_image.t, text, nullptr),
                Dump(from_file.t, text, nullptr));
      EXPECT_EQ(Dump(from_image.t, text, &pair),
                Dump(from_file.t, text, &pair));
    }
    for (int32_t id : {0, 1, 100, 5000}) {
      const char* a = enc_tokenizer_id_to_token(from_file.t, id);
      const char* b = enc_tokenizer_id_to_token(from_image.t, id);
      ASSERT_EQ(a == nullptr, b == nullptr);
      if (a != nullptr) {
        EXPECT_STREQ(a, b);
        EXPECT_EQ(enc_tokenizer_token_to_id(from_image.t, b, std::strlen(b)),
                  enc_tokenizer_token_to_id(from_file.t, a, std::strlen(a)));
      }
    }
    // The image of the image is the image: nothing is lost or reordered,
    // and writing it twice gives the same bytes (reproducible objects).
    EXPECT_EQ(Image(from_image.t), image);
    EXPECT_EQ(Image(from_file.t), image);
  }
}

// The file loaders end with the checks an image is read under
// (enc::tok::CheckTokenizer), so a file opens exactly when its image would:
// what they built passes, and the same tokenizer with a field out of range
// is refused, naming the file and the field.
TEST(TokenizerImage, FileLoadersHoldTheImageInvariants) {
  for (const char* file : kFiles) {
    SCOPED_TRACE(file);
    Tok tok;
    ASSERT_EQ(enc_tokenizer_open((kInputs + file).c_str(), &tok.t), ENC_OK)
        << enc_last_error();
    EXPECT_EQ(enc::tok::CheckTokenizer(file, tok.t), ENC_OK)
        << enc_last_error();
    tok.t->truncation.max_length = -1;
    ASSERT_EQ(enc::tok::CheckTokenizer(file, tok.t), ENC_ERR_FORMAT);
    const std::string error = enc_last_error();
    EXPECT_NE(error.find(file), std::string::npos) << error;
    EXPECT_NE(error.find("the truncation is out of range"), std::string::npos)
        << error;
  }
}

TEST(TokenizerImage, SmallCapacityIsRefused) {
  Tok tok;
  ASSERT_EQ(
      enc_tokenizer_open(
          (kInputs + "/bert-base-uncased/tokenizer.json").c_str(), &tok.t),
      ENC_OK);
  size_t size = 0;
  char buf[16];
  EXPECT_EQ(enc_tokenizer_save_image(tok.t, buf, sizeof buf, &size),
            ENC_ERR_INPUT);
  EXPECT_NE(std::strstr(enc_last_error(), "capacity is 16"), nullptr)
      << enc_last_error();
  EXPECT_EQ(enc_tokenizer_save_image(nullptr, nullptr, 0, &size),
            ENC_ERR_INPUT);
}

// Opens `image`; on success encodes the texts (which must not crash).
enc_status OpenAndUse(const std::string& image) {
  Tok tok;
  const enc_status s =
      enc_tokenizer_open_memory(image.data(), image.size(), "img", &tok.t);
  if (s != ENC_OK) {
    EXPECT_EQ(s, ENC_ERR_FORMAT);
    EXPECT_NE(std::strstr(enc_last_error(), "img: tokenizer image: "), nullptr)
        << enc_last_error();
    return s;
  }
  for (const char* text : kTexts) Dump(tok.t, text, nullptr);
  return s;
}

void SetChecksum(std::string* image) {
  const uint64_t sum = enc::tok::HashBytes(image->data() + kHeaderBytes,
                                           image->size() - kHeaderBytes);
  std::memcpy(&(*image)[24], &sum, 8);
}

TEST(TokenizerImage, DamagedImagesAreRefused) {
  for (const char* file :
       {"/bert-base-uncased/tokenizer.json", "/roberta-base/tokenizer.json",
        "/t5-small/tokenizer.json"}) {
    SCOPED_TRACE(file);
    Tok tok;
    ASSERT_EQ(enc_tokenizer_open((kInputs + file).c_str(), &tok.t), ENC_OK);
    const std::string image = Image(tok.t);
    // Truncated anywhere: the header's size no longer matches.
    for (size_t n : {size_t{8}, kHeaderBytes - 1, kHeaderBytes,
                     image.size() / 2, image.size() - 1}) {
      EXPECT_EQ(OpenAndUse(image.substr(0, n)), ENC_ERR_FORMAT) << n;
    }
    // One flipped bit in the body: the checksum catches it.
    std::string flipped = image;
    flipped[image.size() / 3] ^= 0x10;
    EXPECT_EQ(OpenAndUse(flipped), ENC_ERR_FORMAT);
    EXPECT_NE(std::strstr(enc_last_error(), "checksum"), nullptr);
    // Another version is refused naming both.
    std::string version = image;
    version[8] = 9;
    EXPECT_EQ(OpenAndUse(version), ENC_ERR_FORMAT);
    EXPECT_NE(std::strstr(enc_last_error(), "version 9"), nullptr)
        << enc_last_error();
  }
}

TEST(TokenizerImage, HostileImagesNeverCrash) {
  // Bytes changed with the checksum made to match, as a hostile image
  // would: each is refused, or opens and encodes without reading out of
  // bounds (the sanitizer build checks the latter).
  for (const char* file :
       {"/bert-base-uncased/tokenizer.json", "/t5-small/tokenizer.json"}) {
    SCOPED_TRACE(file);
    Tok tok;
    ASSERT_EQ(enc_tokenizer_open((kInputs + file).c_str(), &tok.t), ENC_OK);
    const std::string image = Image(tok.t);
    int refused = 0, opened = 0;
    uint64_t state = 0x12345678;
    for (int trial = 0; trial < 300; ++trial) {
      std::string hostile = image;
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      // Early positions are the small fields and table lengths; the rest
      // spread over the whole body.
      const size_t span = trial % 2 == 0 ? 4096 : hostile.size() - kHeaderBytes;
      const size_t at = kHeaderBytes + (state >> 33) % span;
      const char values[] = {'\0', '\x01', '\x7f', '\x80', '\xff'};
      hostile[at] = values[(state >> 20) % 5];
      SetChecksum(&hostile);
      (OpenAndUse(hostile) == ENC_OK ? opened : refused) += 1;
    }
    EXPECT_GT(refused, 0);  // the checks do refuse hostile tables
    RecordProperty(std::string("opened_") + (file[1] == 'b' ? "bert" : "t5"),
                   opened);
  }
}

}  // namespace
