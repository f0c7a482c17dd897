// SentencePiece's model file (`spiece.model`, `sentencepiece.bpe.model`):
// the protocol buffer ModelProto read with bounds checks, into what the
// tokenizer is built from (tokenizer/load.cc, docs/tokenizers.md). Only the
// fields encoding uses are kept; every other field is skipped by its wire
// type.
#ifndef ENC_RUNTIME_TOKENIZER_SENTENCEPIECE_H_
#define ENC_RUNTIME_TOKENIZER_SENTENCEPIECE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace enc {
namespace tok {

struct SpmPiece {
  // SentencePiece's ModelProto.SentencePiece.Type.
  enum Type { kNormal = 1, kUnknown, kControl, kUserDefined, kUnused, kByte };
  std::string piece;
  float score = 0;
  int type = kNormal;
};

struct SpmModel {
  // TrainerSpec.ModelType: 1 unigram, 2 BPE, 3 word, 4 char.
  int model_type = 1;
  bool byte_fallback = false;
  int64_t unk_id = 0, pad_id = -1;
  std::vector<SpmPiece> pieces;
  // NormalizerSpec.
  std::string normalizer_name;
  std::string precompiled_charsmap;
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

// Parses a serialized ModelProto; false with `why` (naming the field and
// byte offset) when the bytes are not one.
bool ParseSentencePiece(const std::string& bytes, SpmModel* out,
                        std::string* why);

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_SENTENCEPIECE_H_
