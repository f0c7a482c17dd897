// The ColBERT head: one GEMM over the valid tokens into `out`, then the rows
// moved to their padded places, last first, and normalised.
#include "enc/kernels/colbert.h"

#include <algorithm>
#include <cmath>

#include "src/layout.h"
#include "src/status.h"

namespace {

// v /= max(||v||_2, 1e-12), the sum of squares in double (a row is short
// beside the GEMM that made it).
void NormalizeRow(float* v, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(v[i]) * double(v[i]);
  const double inv = 1.0 / std::max(std::sqrt(sum), 1e-12);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(v[i] * inv);
}

}  // namespace

extern "C" enc_status enc_colbert(int32_t batch, int32_t seq_len, int64_t d,
                                  const int32_t* lengths, const float* x,
                                  int64_t ld_x, const enc_packed_b* w,
                                  float* out) {
  using enc::Fail;
  if (w == nullptr || x == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_colbert: %s is NULL",
                w == nullptr   ? "w"
                : x == nullptr ? "x"
                               : "out");
  }
  if (batch < 0)
    return Fail(ENC_ERR_INPUT, "enc_colbert: batch (%d) < 0", batch);
  if (seq_len < 1) {
    return Fail(ENC_ERR_INPUT, "enc_colbert: seq_len (%d) < 1", seq_len);
  }
  if (d < 1 || enc_gemm_packed_k(w) != d || ld_x < d) {
    return Fail(ENC_ERR_INPUT,
                "enc_colbert: w is [%lld, %lld], x has d %lld and ld_x %lld",
                (long long)enc_gemm_packed_n(w),
                (long long)enc_gemm_packed_k(w), (long long)d, (long long)ld_x);
  }
  if (enc_status s =
          enc::CheckLengths("enc_colbert", batch, seq_len, lengths)) {
    return s;
  }
  const int64_t dim = enc_gemm_packed_n(w);
  int64_t rows = 0;
  for (int32_t b = 0; b < batch; ++b) rows += lengths ? lengths[b] : seq_len;
  if (enc_status s = enc_gemm(rows, x, ld_x, w, nullptr, ENC_ACT_NONE, nullptr,
                              0, out, dim)) {
    return s;
  }
  enc::UnpackRowsInPlace(batch, seq_len, lengths, dim, out,
                         [dim](float* row) { NormalizeRow(row, dim); });
  return ENC_OK;
}
