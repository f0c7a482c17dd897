// libFuzzer target for compiled models' input validation (docs/c-abi.md):
// NAME_forward of the two models of fuzz_toy.enc on enc_input fields decoded
// from the fuzz bytes, against an independent statement of which inputs are
// valid.
//
// Buffers always hold what batch and seq_len claim (the C ABI cannot know
// the caller's sizes), so the values are fuzzed, never the ABI contract:
// when the call would be valid but the claimed size is huge, batch is
// folded down; when batch or seq_len is invalid, 1-element buffers are
// passed, which a correct check never reads past.
//
// Encoding (missing bytes read as 0):
//   flags: 0x01 tokens, 0x02 token_types, 0x04 lengths, 0x20 embeddings
//          given (else NULL); 0x08 out NULL; 0x10 model NULL;
//          0x40 batch and seq_len are raw little-endian int32s, else one
//          byte each holding value + 2 (so -2..253);
//          0x80 fuzz_emb (embeddings in, mean pooling), else fuzz_toy
//   then lengths[batch], tokens[batch*seq_len], token_types[batch*seq_len],
//   each present array one byte per value: < 0xE0 an in-range value,
//   0xE0..0xEF an edge value (see Value), 0xF0..0xFF a raw int32 follows;
//   then embeddings, one byte per float: (byte - 128) / 32.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "enc/runtime.h"
#include "fuzz_toy.h"

namespace {

constexpr int kDModel = 8, kMaxLen = 16, kVocab = 32, kTypeVocab = 2;
constexpr int64_t kMaxElems = 4096;       // batch * seq_len run in full
constexpr uint32_t kCanary = 0x7fc0dead;  // a NaN no kernel produces

static_assert(kDModel == fuzz_toy_D_MODEL && kMaxLen == fuzz_toy_MAX_LEN &&
                  kDModel == fuzz_emb_D_MODEL && kMaxLen == fuzz_emb_MAX_LEN,
              "fuzz_toy.enc and this file disagree");

fuzz_toy* g_toy = nullptr;
fuzz_emb* g_emb = nullptr;

[[noreturn]] void Violation(const char* what, int status) {
  std::fprintf(stderr, "fuzz_runtime_input: %s (status %d, message '%s')\n",
               what, status, enc_last_error());
  __builtin_trap();
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint8_t U8() { return p_ < end_ ? *p_++ : 0; }
  int32_t I32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{U8()} << (8 * i);
    return static_cast<int32_t>(v);
  }
  // A value meant to lie in [0, limit): mostly in range, else an edge case.
  int32_t Value(int32_t limit) {
    const uint8_t b = U8();
    if (b < 0xE0) return limit > 0 ? b % limit : b;
    if (b >= 0xF0) return I32();
    const int32_t edges[16] = {
        -1, limit,         limit + 1,     INT32_MIN, INT32_MAX, -limit,
        0,  limit - 1,     255,           256,       65535,     65536,
        -2, INT32_MIN + 1, INT32_MAX - 1, 1};
    return edges[b - 0xE0];
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

bool AllIn(const std::vector<int32_t>& v, int32_t lo, int32_t hi) {
  for (int32_t x : v) {
    if (x < lo || x > hi) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* env = std::getenv("ENC_FUZZ_WEIGHTS");
  const char* path = env ? env : ENC_FUZZ_WEIGHTS;
  enc_set_num_threads(1);  // one fuzzing process per core
  enc_status s = fuzz_toy_load(path, &g_toy);
  if (s == ENC_OK) s = fuzz_emb_load(path, &g_emb);
  if (s != ENC_OK) {
    std::fprintf(stderr, "fuzz_runtime_input: cannot load %s: %s (%d)\n", path,
                 enc_last_error(), s);
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const uint8_t flags = r.U8();
  enc_input in{};
  if (flags & 0x40) {
    in.batch = r.I32();
    in.seq_len = r.I32();
  } else {
    in.batch = int32_t{r.U8()} - 2;
    in.seq_len = int32_t{r.U8()} - 2;
  }
  const bool dims_valid =
      in.batch >= 1 && in.seq_len >= 1 && in.seq_len <= kMaxLen;
  if (dims_valid && int64_t{in.batch} * in.seq_len > kMaxElems) {
    in.batch =
        1 + (in.batch - 1) % static_cast<int32_t>(kMaxElems / in.seq_len);
  }
  const bool sane = in.batch >= 1 && in.seq_len >= 1 &&
                    int64_t{in.batch} * in.seq_len <= kMaxElems;
  const size_t rows = sane ? static_cast<size_t>(in.batch) : 1;
  const size_t n = sane ? rows * static_cast<size_t>(in.seq_len) : 1;

  std::vector<int32_t> lengths(rows, 0), tokens(n, 0), types(n, 0);
  std::vector<float> embeddings(sane ? n * kDModel : 1, 0.0f);
  if (sane) {
    if (flags & 0x04) {
      for (auto& x : lengths) x = r.Value(in.seq_len + 1);
    }
    if (flags & 0x01) {
      for (auto& x : tokens) x = r.Value(kVocab);
    }
    if (flags & 0x02) {
      for (auto& x : types) x = r.Value(kTypeVocab);
    }
    if (flags & 0x20) {
      for (auto& x : embeddings) x = (int{r.U8()} - 128) / 32.0f;
    }
  }
  in.lengths = (flags & 0x04) ? lengths.data() : nullptr;
  in.tokens = (flags & 0x01) ? tokens.data() : nullptr;
  in.token_types = (flags & 0x02) ? types.data() : nullptr;
  in.embeddings = (flags & 0x20) ? embeddings.data() : nullptr;

  // The output, then 16 floats that must never be written.
  const bool emb = flags & 0x80;
  const size_t out_n = sane ? (emb ? rows : n) * kDModel : 0;
  std::vector<uint32_t> out(out_n + 16, kCanary);
  float* out_ptr =
      (flags & 0x08) ? nullptr : reinterpret_cast<float*>(out.data());
  const bool null_model = flags & 0x10;

  // docs/c-abi.md#errors, restated: what must succeed. fuzz_emb ignores tokens
  // and, having no token types, must refuse them.
  const bool ids_ok =
      emb ? in.embeddings != nullptr && in.token_types == nullptr
          : in.tokens != nullptr && AllIn(tokens, 0, kVocab - 1) &&
                (!in.token_types || AllIn(types, 0, kTypeVocab - 1));
  const bool valid = !null_model && out_ptr != nullptr && dims_valid &&
                     ids_ok && (!in.lengths || AllIn(lengths, 0, in.seq_len));

  const enc_status s =
      emb ? fuzz_emb_forward(null_model ? nullptr : g_emb, &in, out_ptr)
          : fuzz_toy_forward(null_model ? nullptr : g_toy, &in, out_ptr);
  if (s != ENC_OK && s != ENC_ERR_INPUT) Violation("unexpected status", s);
  if (valid != (s == ENC_OK)) {
    Violation(valid ? "valid input refused" : "invalid input accepted", s);
  }
  for (size_t i = out_n; i < out.size(); ++i) {
    if (out[i] != kCanary) Violation("write past the output", s);
  }
  if (s == ENC_ERR_INPUT) {
    if (enc_last_error()[0] == '\0') Violation("no error message", s);
    for (size_t i = 0; i < out_n; ++i) {
      if (out[i] != kCanary) Violation("output written on ENC_ERR_INPUT", s);
    }
    return 0;
  }
  const float* y = reinterpret_cast<const float*>(out.data());
  if (emb) {  // mean pooling: finite, and 0 for an empty sequence
    for (int32_t b = 0; b < in.batch; ++b) {
      const bool empty = in.lengths && lengths[b] == 0;
      for (int k = 0; k < kDModel; ++k) {
        const float v = y[size_t(b) * kDModel + k];
        if (empty ? v != 0.0f : !std::isfinite(v)) {
          Violation(
              empty ? "empty sequence not pooled to 0" : "non-finite output",
              s);
        }
      }
    }
    return 0;
  }
  // pooling none: rows at or past len[b] are 0, the others finite.
  for (int32_t b = 0; b < in.batch; ++b) {
    const int32_t len = in.lengths ? lengths[b] : in.seq_len;
    for (int32_t i = 0; i < in.seq_len; ++i) {
      for (int k = 0; k < kDModel; ++k) {
        const float v = y[(size_t(b) * in.seq_len + i) * kDModel + k];
        if (i >= len ? v != 0.0f : !std::isfinite(v)) {
          Violation(i >= len ? "padding row not zeroed" : "non-finite output",
                    s);
        }
      }
    }
  }
  return 0;
}
