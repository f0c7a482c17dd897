// enc_norm (LayerNorm / RMSNorm) against float64, on every compiled Highway
// target.
#include "enc/kernels/norm.h"

#include <gtest/gtest.h>

#include "for_each_target.h"
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

using enc_test::ForEachTarget;

std::vector<double> RefRow(int kind, const float* x, int64_t d,
                           const float* gamma, const float* beta, double eps) {
  std::vector<double> s(x, x + d);
  std::vector<double> y(d);
  if (kind == ENC_NORM_RMS) {
    double ss = 0;
    for (double v : s) ss += v * v;
    const double rs = 1.0 / std::sqrt(ss / d + eps);
    for (int64_t i = 0; i < d; ++i) y[i] = s[i] * rs * gamma[i];
    return y;
  }
  double mean = 0;
  for (double v : s) mean += v;
  mean /= d;
  double var = 0;
  for (double v : s) var += (v - mean) * (v - mean);
  var /= d;
  const double rstd = 1.0 / std::sqrt(var + eps);
  for (int64_t i = 0; i < d; ++i) {
    y[i] = (s[i] - mean) * rstd * gamma[i] + (beta ? beta[i] : 0.0);
  }
  return y;
}

struct Case {
  int kind;
  int64_t rows, d;
  bool beta;
  double offset = 0.0;  // added to x: a large common offset
  double tol = 2e-5;
};

void RunCase(const Case& c, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t ld = c.d + 3;
  std::vector<float> x(c.rows * ld), gamma(c.d), beta(c.d);
  for (auto& v : x) v = static_cast<float>(c.offset + normal(rng));
  for (auto& v : gamma) v = 1.0f + 0.5f * normal(rng);
  for (auto& v : beta) v = normal(rng);
  const float eps = 1e-5f;
  const float* bp = c.beta && c.kind == ENC_NORM_LAYER ? beta.data() : nullptr;
  ForEachTarget([&] {
    std::vector<float> y(c.rows * ld, 7.0f);
    ASSERT_EQ(ENC_OK, enc_norm(c.kind, c.rows, c.d, x.data(), ld, gamma.data(),
                               bp, eps, y.data(), ld))
        << enc_last_error();
    for (int64_t row = 0; row < c.rows; ++row) {
      const std::vector<double> ref =
          RefRow(c.kind, &x[row * ld], c.d, gamma.data(), bp, eps);
      for (int64_t i = 0; i < ld; ++i) {
        const float got = y[row * ld + i];
        if (i >= c.d) {
          ASSERT_EQ(7.0f, got);  // the stride's padding is not written
          continue;
        }
        ASSERT_NEAR(got, ref[i], c.tol * std::max(1.0, std::abs(ref[i])))
            << "row " << row << " col " << i;
      }
    }
  });
}

TEST(Norm, LayerNormAndRmsNormMatchReference) {
  std::mt19937 rng(1);
  for (int kind : {ENC_NORM_LAYER, ENC_NORM_RMS}) {
    for (int64_t d : {1, 3, 17, 64, 768, 1029}) {
      for (bool beta : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << "kind " << kind << " d " << d << " beta " << beta);
        RunCase(Case{kind, 5, d, beta}, rng);
      }
    }
  }
}

TEST(Norm, LongRowsAndLargeOffsetsStayAccurate) {
  std::mt19937 rng(2);
  RunCase(Case{ENC_NORM_LAYER, 2, 65536, true}, rng);
  RunCase(Case{ENC_NORM_RMS, 2, 65536, false}, rng);
  // 1e4 + N(0,1): float spacing at 1e4 is ~1e-3, so the inputs themselves
  // carry that much noise; the kernel must not add cancellation on top.
  RunCase(Case{ENC_NORM_LAYER, 3, 768, true, 1e4, 1e-4}, rng);
  RunCase(Case{ENC_NORM_LAYER, 2, 65536, true, 1e4, 1e-4}, rng);
}

TEST(Norm, HugeRowsStayFiniteAndAccurate) {
  // Squares of values beyond ~1.8e19 overflow float: the kernel must not
  // return inf / NaN (or unnormalised values) where float64 is finite.
  std::mt19937 rng(3);
  for (double scale : {1e19, 1e30, 3e37}) {
    SCOPED_TRACE(testing::Message() << "scale " << scale);
    for (int kind : {ENC_NORM_LAYER, ENC_NORM_RMS}) {
      std::normal_distribution<float> normal(0.0f, 1.0f);
      const int64_t d = 67;
      std::vector<float> x(2 * d), gamma(d), beta(d);
      for (auto& v : x) v = static_cast<float>(scale * normal(rng));
      for (int64_t i = 0; i < d; ++i)
        x[d + i] = static_cast<float>(scale);  // + offset
      for (int64_t i = 0; i < d; i += 3) x[d + i] = static_cast<float>(-scale);
      for (auto& v : gamma) v = 1.0f + 0.5f * normal(rng);
      for (auto& v : beta) v = normal(rng);
      const float* bp = kind == ENC_NORM_LAYER ? beta.data() : nullptr;
      ForEachTarget([&] {
        std::vector<float> y(2 * d);
        ASSERT_EQ(ENC_OK, enc_norm(kind, 2, d, x.data(), d, gamma.data(), bp,
                                   1e-5f, y.data(), d));
        for (int64_t row = 0; row < 2; ++row) {
          const std::vector<double> ref =
              RefRow(kind, &x[row * d], d, gamma.data(), bp, 1e-5);
          for (int64_t i = 0; i < d; ++i) {
            ASSERT_NEAR(y[row * d + i], ref[i],
                        2e-5 * std::max(1.0, std::abs(ref[i])))
                << "kind " << kind << " row " << row << " col " << i;
          }
        }
      });
    }
  }
}

TEST(Norm, ConstantRowGivesBeta) {
  const int64_t d = 37;
  std::vector<float> x(d, 1234.5f), gamma(d, 2.0f), beta(d), y(d);
  for (int64_t i = 0; i < d; ++i) beta[i] = static_cast<float>(i);
  ForEachTarget([&] {
    // Zero variance at any magnitude, denormal and near FLT_MAX included.
    for (float c : {1234.5f, 0.0f, -2.5f, 1e-40f, 1e30f, -3e38f}) {
      std::fill(x.begin(), x.end(), c);
      ASSERT_EQ(ENC_OK, enc_layer_norm(1, d, x.data(), gamma.data(),
                                       beta.data(), 1e-12f, y.data()));
      for (int64_t i = 0; i < d; ++i)
        ASSERT_EQ(beta[i], y[i]) << "row of " << c;
    }
    std::vector<float> zero(d, 0.0f);
    ASSERT_EQ(ENC_OK,
              enc_rms_norm(1, d, zero.data(), gamma.data(), 1e-6f, y.data()));
    for (int64_t i = 0; i < d; ++i) ASSERT_EQ(0.0f, y[i]);
  });
}

TEST(Norm, InPlace) {
  // Post-LN in place: y == x, with the same stride.
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t rows = 4, d = 100;
  std::vector<float> x(rows * d), gamma(d, 1.0f), beta(d, 0.0f);
  for (auto& v : x) v = normal(rng);
  std::vector<float> y_ref(rows * d);
  ASSERT_EQ(ENC_OK, enc_layer_norm(rows, d, x.data(), gamma.data(), beta.data(),
                                   1e-5f, y_ref.data()));
  ASSERT_EQ(ENC_OK, enc_layer_norm(rows, d, x.data(), gamma.data(), beta.data(),
                                   1e-5f, x.data()));
  EXPECT_EQ(y_ref, x);
}

TEST(Norm, RejectsBadArguments) {
  std::vector<float> x(16, 1.0f), g(16, 1.0f), y(16, 3.0f);
  EXPECT_EQ(ENC_ERR_INPUT, enc_norm(2, 1, 16, x.data(), 16, g.data(), nullptr,
                                    1e-5f, y.data(), 16));
  EXPECT_STRNE("", enc_last_error());
  EXPECT_EQ(ENC_ERR_INPUT, enc_layer_norm(-1, 16, x.data(), g.data(), nullptr,
                                          1e-5f, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 0, x.data(), g.data(), nullptr, 1e-5f, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 16, nullptr, g.data(), nullptr, 1e-5f, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 16, x.data(), nullptr, nullptr, 1e-5f, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 16, x.data(), g.data(), nullptr, 1e-5f, nullptr));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 16, x.data(), g.data(), nullptr, 0.0f, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_layer_norm(1, 16, x.data(), g.data(), nullptr, NAN, y.data()));
  EXPECT_EQ(ENC_ERR_INPUT, enc_norm(ENC_NORM_LAYER, 2, 16, x.data(), 8,
                                    g.data(), nullptr, 1e-5f, y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT, enc_norm(ENC_NORM_LAYER, 2, 16, x.data(), 16,
                                    g.data(), nullptr, 1e-5f, y.data(), 15));
  EXPECT_EQ(ENC_ERR_INPUT, enc_norm(ENC_NORM_RMS, 1, 16, x.data(), 16, g.data(),
                                    g.data(), 1e-5f, y.data(), 16));
  for (float v : y) EXPECT_EQ(3.0f, v);
  EXPECT_EQ(ENC_OK, enc_layer_norm(0, 16, x.data(), g.data(), nullptr, 1e-5f,
                                   y.data()));
}

}  // namespace
