// enc_activation_rows, enc_add_rows and enc_mul_rows (what fusion leaves
// unfused, at -O0)
// against float64, on every compiled Highway target.
#include "enc/kernels/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "activation_reference.h"
#include "for_each_target.h"

namespace {

using enc_test::ForEachTarget;
using enc_test::kActivations;
using enc_test::RefAct;

TEST(Elementwise, EveryActivationMatchesFloat64) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  // Widths around every vector length, with a wider row stride whose padding
  // must stay untouched.
  for (int64_t d : {1, 3, 8, 15, 16, 17, 37, 64, 100}) {
    const int64_t rows = 5, ld = d + 3;
    std::vector<float> x(rows * ld);
    for (float& v : x) v = dist(rng);
    for (enc_activation act : kActivations) {
      SCOPED_TRACE(testing::Message() << "act " << act << " d " << d);
      ForEachTarget([&] {
        std::vector<float> y(rows * ld, 7.0f);
        ASSERT_EQ(ENC_OK,
                  enc_activation_rows(act, rows, d, x.data(), ld, y.data(), ld))
            << enc_last_error();
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = 0; i < ld; ++i) {
            const float got = y[r * ld + i];
            if (i >= d) {
              ASSERT_EQ(7.0f, got);
              continue;
            }
            const double want = RefAct(x[r * ld + i], act);
            ASSERT_NEAR(got, want, 2e-6 * std::max(1.0, std::abs(want)))
                << "x = " << x[r * ld + i];
          }
        }
      });
    }
  }
}

TEST(Elementwise, ActivationInPlace) {
  std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.5f, 2.0f};
  const std::vector<float> before = x;
  ASSERT_EQ(ENC_OK,
            enc_activation_rows(ENC_ACT_RELU, 1, 5, x.data(), 5, x.data(), 5));
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(x[i], std::max(0.0f, before[i]));
}

TEST(Elementwise, AddRows) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int64_t rows = 4, d = 19;
  std::vector<float> a(rows * d), b(rows * 24);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  ForEachTarget([&] {
    std::vector<float> y(rows * d);
    ASSERT_EQ(ENC_OK,
              enc_add_rows(rows, d, a.data(), d, b.data(), 24, y.data(), d));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < d; ++i)
        ASSERT_EQ(y[r * d + i], a[r * d + i] + b[r * 24 + i]);
    }
  });
}

// A gated FFN's product; y may be one of the operands (in place).
TEST(Elementwise, MulRows) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const int64_t rows = 5, d = 21;
  std::vector<float> a(rows * d), b(rows * 32);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  ForEachTarget([&] {
    std::vector<float> y(rows * d);
    ASSERT_EQ(ENC_OK,
              enc_mul_rows(rows, d, a.data(), d, b.data(), 32, y.data(), d));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < d; ++i)
        ASSERT_EQ(y[r * d + i], a[r * d + i] * b[r * 32 + i]);
    }
    std::vector<float> in_place = a;
    ASSERT_EQ(ENC_OK, enc_mul_rows(rows, d, in_place.data(), d, b.data(), 32,
                                   in_place.data(), d));
    EXPECT_EQ(in_place, y);
  });
}

TEST(Elementwise, RejectsBadArguments) {
  std::vector<float> x(16, 1.0f), y(16, 3.0f);
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_activation_rows(-1, 1, 16, x.data(), 16, y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_activation_rows(99, 1, 16, x.data(), 16, y.data(), 16));
  EXPECT_NE(std::string(enc_last_error()).find("unknown activation 99"),
            std::string::npos)
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, enc_activation_rows(ENC_ACT_RELU, -1, 16, x.data(),
                                               16, y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT, enc_activation_rows(ENC_ACT_RELU, 1, 16, nullptr, 16,
                                               y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT, enc_activation_rows(ENC_ACT_RELU, 1, 16, x.data(), 8,
                                               y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_add_rows(1, 16, x.data(), 16, nullptr, 16, y.data(), 16));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_mul_rows(1, 16, nullptr, 16, x.data(), 16, y.data(), 16));
  EXPECT_NE(std::string(enc_last_error()).find("enc_mul_rows: a is NULL"),
            std::string::npos)
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_mul_rows(1, 16, x.data(), 8, x.data(), 16, y.data(), 16));
  for (float v : y) EXPECT_EQ(3.0f, v);
}

}  // namespace
