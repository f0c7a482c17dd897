// enc_colbert (projection, in-place unpacking, normalisation) against
// float64, with empty and full sequences, and its argument checks.
#include "enc/kernels/colbert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

TEST(Colbert, MatchesReference) {
  std::mt19937 rng(4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int batch = 4, seq = 6;
  const int64_t d = 20, ld_x = 23, dim = 7;
  for (bool with_lengths : {true, false}) {
    SCOPED_TRACE(testing::Message() << "lengths " << with_lengths);
    const std::vector<int32_t> lengths = {6, 0, 2, 5};
    const int32_t* len = with_lengths ? lengths.data() : nullptr;
    std::vector<float> x(batch * seq * ld_x), w(dim * d);
    for (float& v : x) v = normal(rng);
    for (float& v : w) v = normal(rng) * 0.3f;
    enc_packed_b* p = nullptr;
    ASSERT_EQ(ENC_OK, enc_gemm_pack(w.data(), dim, d, &p)) << enc_last_error();
    std::vector<float> out(batch * seq * dim, 9.0f);
    ASSERT_EQ(ENC_OK,
              enc_colbert(batch, seq, d, len, x.data(), ld_x, p, out.data()))
        << enc_last_error();
    enc_gemm_packed_free(p);
    int64_t first = 0;
    for (int b = 0; b < batch; ++b) {
      const int n = len ? len[b] : seq;
      for (int i = 0; i < seq; ++i) {
        std::vector<double> v(dim, 0.0);
        double norm = 0;
        for (int64_t r = 0; r < dim && i < n; ++r) {
          for (int64_t c = 0; c < d; ++c)
            v[r] += double(w[r * d + c]) * x[(first + i) * ld_x + c];
          norm += v[r] * v[r];
        }
        norm = std::max(std::sqrt(norm), 1e-12);
        for (int64_t r = 0; r < dim; ++r)
          ASSERT_NEAR(out[(b * seq + i) * dim + r], v[r] / norm, 2e-6)
              << "sequence " << b << " token " << i << " value " << r;
      }
      first += n;
    }
  }
}

TEST(Colbert, RejectsBadArguments) {
  std::vector<float> x(3 * 8, 1.0f), w(4 * 8, 0.5f), out(3 * 4, 7.0f);
  enc_packed_b* p = nullptr;
  ASSERT_EQ(ENC_OK, enc_gemm_pack(w.data(), 4, 8, &p));
  const int32_t bad[1] = {4};
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_colbert(1, 3, 8, nullptr, x.data(), 8, nullptr, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_colbert(1, 3, 7, nullptr, x.data(), 8, p, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_colbert(1, 3, 8, nullptr, x.data(), 6, p, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_colbert(1, 0, 8, nullptr, x.data(), 8, p, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_colbert(1, 3, 8, bad, x.data(), 8, p, out.data()));
  EXPECT_NE(std::string(enc_last_error()).find("enc_colbert"),
            std::string::npos);
  for (float v : out) EXPECT_EQ(7.0f, v);
  EXPECT_EQ(ENC_OK, enc_colbert(1, 3, 8, nullptr, x.data(), 8, p, out.data()));
  enc_gemm_packed_free(p);
}

}  // namespace
