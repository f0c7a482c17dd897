// enc_classifier (pooling, dense + activation, output projection, scores)
// against float64, and its argument checks.
#include "enc/kernels/classifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "activation_reference.h"
#include "enc/kernels/pool.h"

namespace {

struct Packed {
  enc_packed_b* p = nullptr;
  Packed(const std::vector<float>& w, int64_t n, int64_t k) {
    EXPECT_EQ(ENC_OK, enc_gemm_pack(w.data(), n, k, &p)) << enc_last_error();
  }
  ~Packed() { enc_gemm_packed_free(p); }
};

TEST(Classifier, MatchesReference) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int batch = 3, seq = 5;
  const int64_t d = 24, ld_x = 29, labels = 4, ld_out = 6;
  const std::vector<int32_t> lengths = {5, 2, 0};
  std::vector<float> x(batch * seq * ld_x), wd(d * d), bd(d), wo(labels * d),
      bo(labels);
  for (auto* v : {&x, &wd, &bd, &wo, &bo})
    for (float& f : *v) f = normal(rng) * 0.3f;
  Packed dense(wd, d, d), out_w(wo, labels, d);
  for (int32_t mode : {ENC_POOL_CLS, ENC_POOL_MEAN, ENC_POOL_MAX}) {
    for (bool with_dense : {true, false}) {
      for (int32_t scores :
           {ENC_SCORES_NONE, ENC_SCORES_SIGMOID, ENC_SCORES_SOFTMAX}) {
        SCOPED_TRACE(testing::Message() << "mode " << mode << " dense "
                                        << with_dense << " scores " << scores);
        std::vector<float> out(batch * ld_out, 9.0f);
        ASSERT_EQ(
            ENC_OK,
            enc_classifier(mode, batch, seq, d, lengths.data(), x.data(), ld_x,
                           with_dense ? dense.p : nullptr, bd.data(),
                           ENC_ACT_TANH, ENC_NORM_LAYER, nullptr, nullptr, 0.0f,
                           out_w.p, bo.data(), scores, out.data(), ld_out))
            << enc_last_error();
        int64_t first = 0;
        for (int b = 0; b < batch; ++b) {
          const int n = lengths[b];
          std::vector<double> p(d, 0.0), h(d), logit(labels);
          for (int64_t c = 0; c < d && n > 0; ++c) {
            const float* col = x.data() + first * ld_x + c;
            if (mode == ENC_POOL_CLS) p[c] = col[0];
            if (mode == ENC_POOL_MEAN) {
              for (int i = 0; i < n; ++i) p[c] += col[i * ld_x];
              p[c] /= n;
            }
            if (mode == ENC_POOL_MAX) {
              p[c] = col[0];
              for (int i = 1; i < n; ++i)
                p[c] = std::max<double>(p[c], col[i * ld_x]);
            }
          }
          first += n;
          for (int64_t r = 0; r < d; ++r) {
            double s = bd[r];
            for (int64_t c = 0; c < d; ++c) s += double(wd[r * d + c]) * p[c];
            h[r] = with_dense ? enc_test::RefAct(s, ENC_ACT_TANH) : p[r];
          }
          double max = -INFINITY, sum = 0;
          for (int64_t l = 0; l < labels; ++l) {
            double s = bo[l];
            for (int64_t c = 0; c < d; ++c) s += double(wo[l * d + c]) * h[c];
            logit[l] = s;
            max = std::max(max, s);
          }
          for (double v : logit) sum += std::exp(v - max);
          for (int64_t l = 0; l < ld_out; ++l) {
            const float got = out[b * ld_out + l];
            if (l >= labels) {
              ASSERT_EQ(9.0f, got);
              continue;
            }
            double want = logit[l];
            if (scores == ENC_SCORES_SIGMOID) want = 1 / (1 + std::exp(-want));
            if (scores == ENC_SCORES_SOFTMAX) want = std::exp(want - max) / sum;
            ASSERT_NEAR(got, want, 1e-5 * std::max(1.0, std::abs(want)))
                << "row " << b << " label " << l;
          }
        }
      }
    }
  }
}

TEST(Classifier, RejectsBadArguments) {
  std::vector<float> x(4 * 8, 1.0f), w(3 * 8, 0.5f), out(8, 7.0f);
  Packed out_w(w, 3, 8), square(std::vector<float>(64, 0.1f), 8, 8);
  auto call = [&](int32_t mode, int64_t d, const enc_packed_b* dense,
                  const enc_packed_b* o, int32_t scores, int64_t ld_out) {
    return enc_classifier(mode, 1, 4, d, nullptr, x.data(), 8, dense, nullptr,
                          ENC_ACT_TANH, ENC_NORM_LAYER, nullptr, nullptr, 0.0f,
                          o, nullptr, scores, out.data(), ld_out);
  };
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_NONE, 8, nullptr, out_w.p, 0, 3));
  EXPECT_NE(std::string(enc_last_error()).find("pooling none"),
            std::string::npos);
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_CLS, 8, nullptr, out_w.p, 3, 3));
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_CLS, 8, nullptr, nullptr, 0, 3));
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_CLS, 7, nullptr, out_w.p, 0, 3));
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_CLS, 8, out_w.p, out_w.p, 0, 3));
  EXPECT_EQ(ENC_ERR_INPUT, call(ENC_POOL_CLS, 8, square.p, out_w.p, 0, 2));
  EXPECT_NE(std::string(enc_last_error()).find("ld_out"), std::string::npos);
  for (float v : out) EXPECT_EQ(7.0f, v);
  EXPECT_EQ(ENC_OK, call(ENC_POOL_CLS, 8, square.p, out_w.p, 0, 3));
}

}  // namespace
