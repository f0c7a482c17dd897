// The classification head: pooling, the dense layer and the output
// projection through the runtime's own kernels, then the scores.
#include "enc/kernels/classifier.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

#include "enc/kernels/norm.h"
#include "enc/kernels/pool.h"
#include "src/status.h"

namespace {

void Sigmoid(float* row, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    row[i] = static_cast<float>(1.0 / (1.0 + std::exp(-double(row[i]))));
  }
}

// In double: a row of labels is short, and max-subtraction keeps it finite.
void Softmax(float* row, int64_t n) {
  double max = row[0];
  for (int64_t i = 1; i < n; ++i) max = std::max(max, double(row[i]));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(double(row[i]) - max);
  for (int64_t i = 0; i < n; ++i) {
    row[i] = static_cast<float>(std::exp(double(row[i]) - max) / sum);
  }
}

}  // namespace

extern "C" enc_status enc_classifier(
    int32_t mode, int32_t batch, int32_t seq_len, int64_t d,
    const int32_t* lengths, const float* x, int64_t ld_x,
    const enc_packed_b* dense, const float* dense_bias, enc_activation act,
    int32_t norm_kind, const float* norm_gamma, const float* norm_beta,
    float eps, const enc_packed_b* out_w, const float* out_bias, int32_t scores,
    float* out, int64_t ld_out) {
  using enc::Fail;
  if (mode == ENC_POOL_NONE) {
    return Fail(ENC_ERR_INPUT,
                "enc_classifier: pooling none gives no vector to classify");
  }
  if (scores < ENC_SCORES_NONE || scores > ENC_SCORES_SOFTMAX) {
    return Fail(ENC_ERR_INPUT, "enc_classifier: unknown scores %d", scores);
  }
  if (out_w == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_classifier: %s is NULL",
                out_w == nullptr ? "out_w" : "out");
  }
  if (d < 1) {
    return Fail(ENC_ERR_INPUT, "enc_classifier: d (%lld) < 1", (long long)d);
  }
  const int64_t labels = enc_gemm_packed_n(out_w);
  if (enc_gemm_packed_k(out_w) != d ||
      (dense &&
       (enc_gemm_packed_n(dense) != d || enc_gemm_packed_k(dense) != d))) {
    return Fail(ENC_ERR_INPUT,
                "enc_classifier: the packed weights are not [d, d] and "
                "[labels, d] with d = %lld",
                (long long)d);
  }
  if (ld_out < labels) {
    return Fail(ENC_ERR_INPUT, "enc_classifier: ld_out (%lld) < labels (%lld)",
                (long long)ld_out, (long long)labels);
  }
  if (batch < 0) {
    return Fail(ENC_ERR_INPUT, "enc_classifier: batch (%d) < 0", batch);
  }
  if (batch == 0) return ENC_OK;
  // [batch, d] twice: small beside the encoder's arena, so not planned in it.
  std::vector<float> pooled, hidden;
  try {
    pooled.resize(static_cast<size_t>(batch) * d);
    if (dense) hidden.resize(pooled.size());
  } catch (const std::bad_alloc&) {
    return Fail(ENC_ERR_NOMEM, "enc_classifier: out of memory");
  }
  if (enc_status s = enc_pool(mode, 0, batch, seq_len, d, lengths, x, ld_x,
                              pooled.data(), d)) {
    return s;
  }
  const float* h = pooled.data();
  if (dense) {
    if (enc_status s = enc_gemm(batch, pooled.data(), d, dense, dense_bias, act,
                                nullptr, 0, hidden.data(), d)) {
      return s;
    }
    h = hidden.data();
    if (norm_gamma != nullptr) {
      if (enc_status s = enc_norm(norm_kind, batch, d, hidden.data(), d,
                                  norm_gamma, norm_beta, eps, hidden.data(), d))
        return s;
    }
  }
  if (enc_status s = enc_gemm(batch, h, d, out_w, out_bias, ENC_ACT_NONE,
                              nullptr, 0, out, ld_out)) {
    return s;
  }
  for (int32_t b = 0; b < batch; ++b) {
    float* row = out + static_cast<int64_t>(b) * ld_out;
    switch (static_cast<enc_scores>(scores)) {
      case ENC_SCORES_NONE:
        break;
      case ENC_SCORES_SIGMOID:
        Sigmoid(row, labels);
        break;
      case ENC_SCORES_SOFTMAX:
        Softmax(row, labels);
        break;
    }
  }
  return ENC_OK;
}

extern "C" enc_status enc_dense_head(int32_t mode, int32_t normalize,
                                     int32_t batch, int32_t seq_len, int64_t d,
                                     const int32_t* lengths, const float* x,
                                     int64_t ld_x, const enc_packed_b* w,
                                     const float* bias, enc_activation act,
                                     float* out, int64_t ld_out) {
  using enc::Fail;
  if (mode == ENC_POOL_NONE) {
    return Fail(ENC_ERR_INPUT,
                "enc_dense_head: pooling none gives no vector to project");
  }
  if (w == nullptr || out == nullptr) {
    return Fail(ENC_ERR_INPUT, "enc_dense_head: %s is NULL",
                w == nullptr ? "w" : "out");
  }
  const int64_t dim = enc_gemm_packed_n(w);
  if (d < 1 || enc_gemm_packed_k(w) != d || ld_out < dim) {
    return Fail(ENC_ERR_INPUT,
                "enc_dense_head: w is [%lld, %lld], d is %lld, ld_out %lld",
                (long long)dim, (long long)enc_gemm_packed_k(w), (long long)d,
                (long long)ld_out);
  }
  if (batch < 0) {
    return Fail(ENC_ERR_INPUT, "enc_dense_head: batch (%d) < 0", batch);
  }
  if (batch == 0) return ENC_OK;
  std::vector<float> pooled;
  try {
    pooled.resize(static_cast<size_t>(batch) * d);
  } catch (const std::bad_alloc&) {
    return Fail(ENC_ERR_NOMEM, "enc_dense_head: out of memory");
  }
  if (enc_status s = enc_pool(mode, 0, batch, seq_len, d, lengths, x, ld_x,
                              pooled.data(), d)) {
    return s;
  }
  if (enc_status s = enc_gemm(batch, pooled.data(), d, w, bias, act, nullptr, 0,
                              out, ld_out)) {
    return s;
  }
  for (int32_t b = 0; normalize && b < batch; ++b) {
    float* row = out + static_cast<int64_t>(b) * ld_out;
    double sum = 0;
    for (int64_t i = 0; i < dim; ++i) sum += double(row[i]) * double(row[i]);
    const double inv = 1.0 / std::max(std::sqrt(sum), 1e-12);
    for (int64_t i = 0; i < dim; ++i) row[i] = static_cast<float>(row[i] * inv);
  }
  return ENC_OK;
}
