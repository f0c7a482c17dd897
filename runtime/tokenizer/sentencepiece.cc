// The protocol buffer wire format, as much of it as ModelProto needs:
// varints, 32- and 64-bit fixed fields and length-delimited fields, each
// length checked against the bytes left before it is followed.
#include "tokenizer/sentencepiece.h"

#include <cstring>

namespace enc {
namespace tok {
namespace {

// Field numbers of sentencepiece_model.proto.
constexpr uint32_t kModelPieces = 1, kModelTrainerSpec = 2,
                   kModelNormalizerSpec = 3;
constexpr uint32_t kPiecePiece = 1, kPieceScore = 2, kPieceType = 3;
constexpr uint32_t kTrainerModelType = 3, kTrainerByteFallback = 35,
                   kTrainerUnkId = 40, kTrainerPadId = 43;
constexpr uint32_t kNormalizerName = 1, kNormalizerCharsmap = 2,
                   kNormalizerDummyPrefix = 3, kNormalizerExtraSpaces = 4,
                   kNormalizerEscapeSpaces = 5;

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kBytes = 2,
  kFixed32 = 5
};

// One message's bytes [pos, end) of the whole buffer.
class Reader {
 public:
  Reader(const std::string& buf, size_t pos, size_t end, std::string* why)
      : buf_(buf), pos_(pos), end_(end), why_(why) {}

  bool AtEnd() const { return pos_ >= end_; }

  // The next field's number and wire type.
  bool Tag(uint32_t* field, uint32_t* wire) {
    uint64_t tag = 0;
    if (!Varint(&tag)) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *wire = static_cast<uint32_t>(tag & 7);
    if (*field == 0 || tag >> 32 != 0) return Error("a field number of 0");
    return true;
  }

  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= end_) return Error("a varint cut off");
      const auto b = static_cast<unsigned char>(buf_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return Error("a varint longer than 10 bytes");
  }

  // A length-delimited field: its bytes are [*begin, *begin + *size).
  bool Bytes(size_t* begin, size_t* size) {
    uint64_t n = 0;
    if (!Varint(&n)) return false;
    if (n > end_ - pos_) return Error("a length past the end of its message");
    *begin = pos_;
    *size = static_cast<size_t>(n);
    pos_ += *size;
    return true;
  }

  bool Float(float* out) {
    if (end_ - pos_ < 4) return Error("a 32-bit field cut off");
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) {
      bits = bits << 8 | static_cast<unsigned char>(buf_[pos_ + i]);
    }
    std::memcpy(out, &bits, sizeof bits);
    pos_ += 4;
    return true;
  }

  // Skips a field of a wire type this reader does not keep.
  bool Skip(uint32_t wire) {
    switch (wire) {
      case kVarint: {
        uint64_t v = 0;
        return Varint(&v);
      }
      case kFixed64:
        if (end_ - pos_ < 8) return Error("a 64-bit field cut off");
        pos_ += 8;
        return true;
      case kBytes: {
        size_t b = 0, n = 0;
        return Bytes(&b, &n);
      }
      case kFixed32:
        if (end_ - pos_ < 4) return Error("a 32-bit field cut off");
        pos_ += 4;
        return true;
      default:
        return Error("wire type " + std::to_string(wire) +
                     " (groups or "
                     "invalid) is not a ModelProto field");
    }
  }

  // Calls fn(field number, wire type) for each field to the end of the
  // message; false at a malformed tag or the first call that returns false.
  template <typename Fn>
  bool Fields(Fn fn) {
    while (!AtEnd()) {
      uint32_t field, wire;
      if (!Tag(&field, &wire) || !fn(field, wire)) return false;
    }
    return true;
  }

  // A length-delimited field `name` copied into *out.
  bool String(uint32_t wire, const char* name, std::string* out) {
    size_t b = 0, n = 0;
    if (!Expect(wire, kBytes, name) || !Bytes(&b, &n)) return false;
    out->assign(buf_, b, n);
    return true;
  }

  // A field of the expected wire type, or an error naming it.
  bool Expect(uint32_t wire, uint32_t want, const char* name) {
    if (wire == want) return true;
    return Error(std::string(name) + " has wire type " + std::to_string(wire));
  }

  bool Error(const std::string& what) {
    *why_ = what + " at byte " + std::to_string(pos_);
    return false;
  }

 private:
  const std::string& buf_;
  size_t pos_, end_;
  std::string* why_;
};

bool ParsePiece(const std::string& buf, size_t begin, size_t size,
                SpmPiece* out, std::string* why) {
  Reader r(buf, begin, begin + size, why);
  return r.Fields([&](uint32_t field, uint32_t wire) {
    if (field == kPiecePiece)
      return r.String(wire, "pieces.piece", &out->piece);
    if (field == kPieceScore) {
      return r.Expect(wire, kFixed32, "pieces.score") && r.Float(&out->score);
    }
    if (field != kPieceType) return r.Skip(wire);
    uint64_t v = 0;
    if (!r.Expect(wire, kVarint, "pieces.type") || !r.Varint(&v)) return false;
    if (v < SpmPiece::kNormal || v > SpmPiece::kByte) {
      return r.Error("piece type " + std::to_string(v));
    }
    out->type = static_cast<int>(v);
    return true;
  });
}

// An int32 field: negative values are ten-byte varints.
bool Int32(Reader* r, uint32_t wire, const char* name, int64_t* out) {
  uint64_t v = 0;
  if (!r->Expect(wire, kVarint, name) || !r->Varint(&v)) return false;
  *out = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
  return true;
}

bool Bool(Reader* r, uint32_t wire, const char* name, bool* out) {
  uint64_t v = 0;
  if (!r->Expect(wire, kVarint, name) || !r->Varint(&v)) return false;
  *out = v != 0;
  return true;
}

bool ParseTrainer(const std::string& buf, size_t begin, size_t size,
                  SpmModel* out, std::string* why) {
  Reader r(buf, begin, begin + size, why);
  return r.Fields([&](uint32_t field, uint32_t wire) {
    switch (field) {
      case kTrainerModelType: {
        int64_t v = 0;
        if (!Int32(&r, wire, "trainer_spec.model_type", &v)) return false;
        out->model_type = static_cast<int>(v);
        return true;
      }
      case kTrainerByteFallback:
        return Bool(&r, wire, "trainer_spec.byte_fallback",
                    &out->byte_fallback);
      case kTrainerUnkId:
        return Int32(&r, wire, "trainer_spec.unk_id", &out->unk_id);
      case kTrainerPadId:
        return Int32(&r, wire, "trainer_spec.pad_id", &out->pad_id);
      default:  // a field the tokenizer does not read
        return r.Skip(wire);
    }
  });
}

bool ParseNormalizer(const std::string& buf, size_t begin, size_t size,
                     SpmModel* out, std::string* why) {
  Reader r(buf, begin, begin + size, why);
  return r.Fields([&](uint32_t field, uint32_t wire) {
    switch (field) {
      case kNormalizerName:
        return r.String(wire, "normalizer_spec.name", &out->normalizer_name);
      case kNormalizerCharsmap:
        return r.String(wire, "normalizer_spec.precompiled_charsmap",
                        &out->precompiled_charsmap);
      case kNormalizerDummyPrefix:
        return Bool(&r, wire, "normalizer_spec.add_dummy_prefix",
                    &out->add_dummy_prefix);
      case kNormalizerExtraSpaces:
        return Bool(&r, wire, "normalizer_spec.remove_extra_whitespaces",
                    &out->remove_extra_whitespaces);
      case kNormalizerEscapeSpaces:
        return Bool(&r, wire, "normalizer_spec.escape_whitespaces",
                    &out->escape_whitespaces);
      default:  // a field the tokenizer does not read
        return r.Skip(wire);
    }
  });
}

}  // namespace

bool ParseSentencePiece(const std::string& bytes, SpmModel* out,
                        std::string* why) {
  Reader r(bytes, 0, bytes.size(), why);
  const bool ok = r.Fields([&](uint32_t field, uint32_t wire) {
    if (field != kModelPieces && field != kModelTrainerSpec &&
        field != kModelNormalizerSpec) {
      return r.Skip(wire);
    }
    size_t b = 0, n = 0;
    if (!r.Expect(wire, kBytes, "a ModelProto message") || !r.Bytes(&b, &n)) {
      return false;
    }
    if (field == kModelTrainerSpec) return ParseTrainer(bytes, b, n, out, why);
    if (field == kModelNormalizerSpec) {
      return ParseNormalizer(bytes, b, n, out, why);
    }
    out->pieces.emplace_back();
    return ParsePiece(bytes, b, n, &out->pieces.back(), why);
  });
  if (!ok) return false;
  if (out->pieces.empty()) {
    *why = "no pieces (not a SentencePiece model)";
    return false;
  }
  return true;
}

}  // namespace tok
}  // namespace enc
