// The masked-LM decoder (enc_mlm), SPLADE's fused max over it (enc_splade)
// and the sparse form of term weights (enc_sparse_rows).
#include "enc/kernels/mlm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "src/layout.h"
#include "src/status.h"
#include "src/threads.h"

namespace {

using enc::Fail;

// The checks enc_mlm and enc_splade share; *rows is sum(len), *vocab w's
// outputs.
enc_status CheckDecoder(const char* what, int32_t batch, int32_t seq_len,
                        int64_t d, const int32_t* lengths, const float* x,
                        int64_t ld_x, const enc_packed_b* w, const float* out,
                        int64_t* rows, int64_t* vocab) {
  if (w == nullptr || x == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", what,
                w == nullptr   ? "w"
                : x == nullptr ? "x"
                               : "out");
  }
  if (batch < 0) return Fail(ENC_ERR_INPUT, "%s: batch (%d) < 0", what, batch);
  if (seq_len < 1) {
    return Fail(ENC_ERR_INPUT, "%s: seq_len (%d) < 1", what, seq_len);
  }
  if (d < 1 || enc_gemm_packed_k(w) != d || ld_x < d) {
    return Fail(ENC_ERR_INPUT,
                "%s: w is [%lld, %lld], x has d %lld and ld_x %lld", what,
                (long long)enc_gemm_packed_n(w),
                (long long)enc_gemm_packed_k(w), (long long)d, (long long)ld_x);
  }
  if (enc_status s = enc::CheckLengths(what, batch, seq_len, lengths)) return s;
  *rows = 0;
  for (int32_t b = 0; b < batch; ++b) *rows += lengths ? lengths[b] : seq_len;
  *vocab = enc_gemm_packed_n(w);
  return ENC_OK;
}

// Column blocks of this many floats are one task of the max reduction.
constexpr int64_t kColumnBlock = 2048;
// enc_splade's scratch: a row chunk of products, at most this many floats.
constexpr int64_t kScratchFloats = int64_t{8} << 20;  // 32 MiB

// out[c] = max(out[c], rows r0..r1 of s[., c]) for the columns of [c0, c1).
void MaxRows(const float* s, int64_t lds, int64_t r0, int64_t r1, int64_t c0,
             int64_t c1, float* out) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = s + r * lds;
    for (int64_t c = c0; c < c1; ++c) out[c] = std::max(out[c], row[c]);
  }
}

}  // namespace

extern "C" enc_status enc_mlm(int32_t batch, int32_t seq_len, int64_t d,
                              const int32_t* lengths, const float* x,
                              int64_t ld_x, const enc_packed_b* w,
                              const float* bias, float* out) {
  int64_t rows = 0, vocab = 0;
  if (enc_status s = CheckDecoder("enc_mlm", batch, seq_len, d, lengths, x,
                                  ld_x, w, out, &rows, &vocab)) {
    return s;
  }
  if (enc_status s = enc_gemm(rows, x, ld_x, w, bias, ENC_ACT_NONE, nullptr, 0,
                              out, vocab)) {
    return s;
  }
  enc::UnpackRowsInPlace(batch, seq_len, lengths, vocab, out, [](float*) {});
  return ENC_OK;
}

extern "C" enc_status enc_splade(int32_t batch, int32_t seq_len, int64_t d,
                                 const int32_t* lengths, const float* x,
                                 int64_t ld_x, const enc_packed_b* w,
                                 const float* bias, float* out) {
  int64_t rows = 0, vocab = 0;
  if (enc_status s = CheckDecoder("enc_splade", batch, seq_len, d, lengths, x,
                                  ld_x, w, out, &rows, &vocab)) {
    return s;
  }
  std::fill(out, out + static_cast<int64_t>(batch) * vocab,
            -std::numeric_limits<float>::infinity());
  const int64_t chunk =
      std::max<int64_t>(1, std::min(rows, kScratchFloats / vocab));
  std::unique_ptr<float[]> scratch;
  if (rows > 0) {
    scratch.reset(new (std::nothrow) float[static_cast<size_t>(chunk * vocab)]);
    if (!scratch) return Fail(ENC_ERR_NOMEM, "enc_splade: out of memory");
  }
  // Sequence b holds packed rows [starts[b], starts[b + 1]).
  std::vector<int64_t> starts(static_cast<size_t>(batch) + 1, 0);
  for (int32_t b = 0; b < batch; ++b)
    starts[b + 1] = starts[b] + (lengths ? lengths[b] : seq_len);
  for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
    const int64_t n = std::min(chunk, rows - r0);
    if (enc_status s =
            enc_gemm(n, x + r0 * ld_x, ld_x, w, nullptr, ENC_ACT_NONE, nullptr,
                     0, scratch.get(), vocab)) {
      return s;
    }
    const float* s = scratch.get();
    enc::ParallelFor((vocab + kColumnBlock - 1) / kColumnBlock, 1,
                     [&](int64_t begin, int64_t end) {
                       const int64_t c0 = begin * kColumnBlock;
                       const int64_t c1 = std::min(vocab, end * kColumnBlock);
                       for (int32_t b = 0; b < batch; ++b) {
                         const int64_t lo = std::max(starts[b], r0);
                         const int64_t hi = std::min(starts[b + 1], r0 + n);
                         if (lo < hi) {
                           MaxRows(s, vocab, lo - r0, hi - r0, c0, c1,
                                   out + static_cast<int64_t>(b) * vocab);
                         }
                       }
                     });
  }
  for (int32_t b = 0; b < batch; ++b) {
    float* row = out + static_cast<int64_t>(b) * vocab;
    if (starts[b + 1] == starts[b]) {
      std::fill(row, row + vocab, 0.0f);
      continue;
    }
    for (int64_t c = 0; c < vocab; ++c) {
      const float v = row[c] + (bias ? bias[c] : 0.0f);
      row[c] = v > 0.0f ? std::log1p(v) : 0.0f;
    }
  }
  return ENC_OK;
}

extern "C" enc_status enc_sparse_rows(const float* dense, int64_t rows,
                                      int64_t cols, int32_t top_k,
                                      float threshold, int64_t* offsets,
                                      int32_t* indices, float* values,
                                      int64_t capacity, int64_t* needed) {
  if ((dense == nullptr && rows > 0) || offsets == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_sparse_rows: %s is NULL",
                offsets == nullptr ? "offsets" : "dense");
  }
  if (rows < 0 || cols < 0 || cols > std::numeric_limits<int32_t>::max() ||
      top_k < 0 || capacity < 0 || std::isnan(threshold)) {
    return Fail(ENC_ERR_INPUT,
                "enc_sparse_rows: rows %lld, cols %lld, top_k %d, capacity "
                "%lld, threshold %g: each must be >= 0 (cols < 2^31, "
                "threshold a number)",
                (long long)rows, (long long)cols, top_k, (long long)capacity,
                threshold);
  }
  // First the count of each row, then the entries: one pass each.
  std::vector<int32_t> order;
  offsets[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = dense + r * cols;
    int64_t n = 0;
    for (int64_t c = 0; c < cols; ++c) n += row[c] > threshold;
    if (top_k > 0) n = std::min<int64_t>(n, top_k);
    offsets[r + 1] = offsets[r] + n;
  }
  if (needed != nullptr) *needed = offsets[rows];
  if (offsets[rows] > capacity ||
      (offsets[rows] > 0 && (indices == nullptr || values == nullptr))) {
    return Fail(ENC_ERR_INPUT,
                "enc_sparse_rows: %lld entries do not fit in capacity %lld",
                (long long)offsets[rows], (long long)capacity);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = dense + r * cols;
    order.clear();
    for (int64_t c = 0; c < cols; ++c)
      if (row[c] > threshold) order.push_back(static_cast<int32_t>(c));
    const int64_t n = offsets[r + 1] - offsets[r];
    auto heavier = [row](int32_t a, int32_t b) {
      return row[a] > row[b] || (row[a] == row[b] && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + n, order.end(), heavier);
    for (int64_t i = 0; i < n; ++i) {
      indices[offsets[r] + i] = order[static_cast<size_t>(i)];
      values[offsets[r] + i] = row[order[static_cast<size_t>(i)]];
    }
  }
  return ENC_OK;
}
