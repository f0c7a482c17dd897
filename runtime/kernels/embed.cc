// Embeddings: argument and id checks, per-target dispatch.
#include "enc/kernels/embed.h"

#include <vector>

#include "src/layout.h"
#include "src/status.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/embed.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/embed-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
void Embed(const EmbedArgs& a) { EmbedBatch(a); }
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/dispatch.h"

namespace enc {
ENC_EXPORT(Embed);
static void RunEmbed(const EmbedArgs& a) { ENC_DYNAMIC_DISPATCH(Embed)(a); }

static enc_status CheckCommon(const char* fn, int32_t batch, int32_t seq_len,
                              const int32_t* lengths, const float* pos_table,
                              int64_t pos_rows, int64_t d, const float* out,
                              int64_t ld_out) {
  if (batch < 0) return Fail(ENC_ERR_INPUT, "%s: batch (%d) < 0", fn, batch);
  if (seq_len < 1)
    return Fail(ENC_ERR_INPUT, "%s: seq_len (%d) < 1", fn, seq_len);
  if (d < 1) return Fail(ENC_ERR_INPUT, "%s: d (%lld) < 1", fn, (long long)d);
  if (out == nullptr) return Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  if (ld_out < d) {
    return Fail(ENC_ERR_INPUT, "%s: ld_out (%lld) < d (%lld)", fn,
                (long long)ld_out, (long long)d);
  }
  if (pos_table != nullptr && pos_rows < seq_len) {
    return Fail(ENC_ERR_INPUT,
                "%s: the position table has %lld rows, fewer than seq_len (%d)",
                fn, (long long)pos_rows, seq_len);
  }
  return CheckLengths(fn, batch, seq_len, lengths);
}

// CheckCommon and the float input's own checks (enc_embed_floats and its
// sinusoidal variant).
static enc_status CheckFloats(const char* fn, int32_t batch, int32_t seq_len,
                              const float* in, int64_t ld_in,
                              const int32_t* lengths, const float* pos_table,
                              int64_t pos_rows, int64_t d, const float* out,
                              int64_t ld_out) {
  if (enc_status s = CheckCommon(fn, batch, seq_len, lengths, pos_table,
                                 pos_rows, d, out, ld_out)) {
    return s;
  }
  if (in == nullptr) return Fail(ENC_ERR_INPUT, "%s: in is NULL", fn);
  if (ld_in < d) {
    return Fail(ENC_ERR_INPUT, "%s: ld_in (%lld) < d (%lld)", fn,
                (long long)ld_in, (long long)d);
  }
  if (in == out && ld_in != ld_out) {
    return Fail(ENC_ERR_INPUT, "%s: in-place needs ld_in == ld_out", fn);
  }
  return ENC_OK;
}

// Every value of `values` [batch, seq_len] within each sequence's length is
// in 0..limit - 1; the first that is not is named (`what`, row, position).
static enc_status CheckInRange(const char* fn, const char* what,
                               const int32_t* values, int32_t limit,
                               int32_t batch, int32_t seq_len,
                               const int32_t* lengths) {
  for (int32_t b = 0; b < batch; ++b) {
    const int32_t len = lengths != nullptr ? lengths[b] : seq_len;
    const int32_t* row = values + static_cast<int64_t>(b) * seq_len;
    for (int32_t i = 0; i < len; ++i) {
      if (row[i] < 0 || row[i] >= limit) {
        return Fail(ENC_ERR_INPUT,
                    "%s: %s %d at batch row %d, position %d is outside 0..%d",
                    fn, what, row[i], b, i, limit - 1);
      }
    }
  }
  return ENC_OK;
}
}  // namespace enc

extern "C" enc_status enc_embed_tokens(
    int32_t batch, int32_t seq_len, const int32_t* ids, const int32_t* types,
    const int32_t* lengths, const float* tok_table, int32_t vocab, float scale,
    const float* type_table, int32_t type_vocab, const float* pos_table,
    int64_t pos_rows, int64_t d, float* out, int64_t ld_out) {
  using enc::Fail;
  const char* fn = "enc_embed_tokens";
  if (enc_status s = enc::CheckCommon(fn, batch, seq_len, lengths, pos_table,
                                      pos_rows, d, out, ld_out)) {
    return s;
  }
  if (ids == nullptr) return Fail(ENC_ERR_INPUT, "%s: ids is NULL", fn);
  if (tok_table == nullptr)
    return Fail(ENC_ERR_INPUT, "%s: tok_table is NULL", fn);
  if (vocab < 1) return Fail(ENC_ERR_INPUT, "%s: vocab (%d) < 1", fn, vocab);
  if (type_table != nullptr && type_vocab < 1) {
    return Fail(ENC_ERR_INPUT, "%s: type_vocab (%d) < 1", fn, type_vocab);
  }
  // Check everything before writing anything.
  if (enc_status s = enc::CheckInRange(fn, "token id", ids, vocab, batch,
                                       seq_len, lengths)) {
    return s;
  }
  if (type_table != nullptr && types != nullptr) {
    if (enc_status s = enc::CheckInRange(fn, "token type", types, type_vocab,
                                         batch, seq_len, lengths)) {
      return s;
    }
  }
  if (batch == 0) return ENC_OK;
  enc::RunEmbed({batch, seq_len, ids, types, lengths, tok_table, scale,
                 type_table, /*in=*/nullptr, /*ld_in=*/0, pos_table, d, out,
                 ld_out});
  return ENC_OK;
}

extern "C" enc_status enc_embed_floats(int32_t batch, int32_t seq_len,
                                       const float* in, int64_t ld_in,
                                       const int32_t* lengths,
                                       const float* pos_table, int64_t pos_rows,
                                       int64_t d, float* out, int64_t ld_out) {
  using enc::Fail;
  const char* fn = "enc_embed_floats";
  if (enc_status s = enc::CheckFloats(fn, batch, seq_len, in, ld_in, lengths,
                                      pos_table, pos_rows, d, out, ld_out)) {
    return s;
  }
  if (batch == 0) return ENC_OK;
  enc::RunEmbed({batch, seq_len, /*ids=*/nullptr, /*types=*/nullptr, lengths,
                 /*tok_table=*/nullptr, /*scale=*/1.0f, /*type_table=*/nullptr,
                 in, ld_in, pos_table, d, out, ld_out});
  return ENC_OK;
}

extern "C" enc_status enc_embed_floats_sinusoidal(
    int32_t batch, int32_t seq_len, const float* in, int64_t ld_in,
    const int32_t* lengths, const float* pos_table, int64_t pos_rows, int64_t d,
    float* out, int64_t ld_out) {
  using enc::Fail;
  const char* fn = "enc_embed_floats_sinusoidal";
  if (pos_table == nullptr || pos_rows < 1) {
    return Fail(ENC_ERR_INPUT, "%s: no table rows (%lld)", fn,
                (long long)pos_rows);
  }
  if (seq_len <= pos_rows) {
    return enc_embed_floats(batch, seq_len, in, ld_in, lengths, pos_table,
                            pos_rows, d, out, ld_out);
  }
  if (enc_status s = enc::CheckFloats(fn, batch, seq_len, in, ld_in, lengths,
                                      nullptr, 0, d, out, ld_out)) {
    return s;
  }
  // Rows in order, each read before it is written (in may equal out). A row
  // past the table is computed per sequence: d sines for d floats of input,
  // and only for sequences longer than the table.
  std::vector<float> computed(static_cast<size_t>(d));
  std::vector<double> divisor(static_cast<size_t>(d));
  for (int64_t c = 0; c < d; ++c) divisor[c] = enc_sinusoid_divisor(c, d);
  int64_t row = 0;
  for (int32_t b = 0; b < batch; ++b) {
    const int64_t len = lengths ? lengths[b] : seq_len;
    const float* x = in + static_cast<int64_t>(b) * seq_len * ld_in;
    for (int64_t i = 0; i < len; ++i, ++row) {
      const float* pe = pos_table + i * d;
      if (i >= pos_rows) {
        for (int64_t c = 0; c < d; ++c) {
          computed[c] = enc_sinusoid_at(i, c, divisor[c]);
        }
        pe = computed.data();
      }
      const float* xi = x + i * ld_in;
      float* yi = out + row * ld_out;
      for (int64_t c = 0; c < d; ++c) yi[c] = xi[c] + pe[c];
    }
  }
  return ENC_OK;
}
#endif  // HWY_ONCE
