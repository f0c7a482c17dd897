// enc_pool (none / cls / mean / max / last, with and without normalize)
// against float64, on every target; rows wider than d (ld_x) are cut.
#include "enc/kernels/pool.h"

#include <gtest/gtest.h>

#include "for_each_target.h"
#include <hwy/targets.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using enc_test::ForEachTarget;

TEST(Pool, AllModesMatchReference) {
  std::mt19937 rng(8);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t d : {1, 3, 17, 64, 200}) {
    for (int seq : {1, 5, 129}) {
      for (int mode : {ENC_POOL_NONE, ENC_POOL_CLS, ENC_POOL_MEAN, ENC_POOL_MAX,
                       ENC_POOL_LAST}) {
        for (int normalize : {0, 1}) {
          for (bool with_lengths : {false, true}) {
            SCOPED_TRACE(testing::Message()
                         << "d " << d << " seq " << seq << " mode " << mode
                         << " normalize " << normalize);
            const int batch = 4;
            const int64_t ld_x = d + 5, ld_out = d + 3;
            std::vector<float> x(batch * seq * ld_x);
            for (auto& v : x) v = normal(rng);
            const std::vector<int32_t> lengths = {seq, 0, 1, (seq + 1) / 2};
            const int32_t* len = with_lengths ? lengths.data() : nullptr;
            const int out_rows = mode == ENC_POOL_NONE ? batch * seq : batch;
            // x is in the packed layout: sequence b starts at row first[b].
            std::vector<int64_t> first(batch, 0);
            for (int b = 1; b < batch; ++b)
              first[b] = first[b - 1] + (len ? len[b - 1] : seq);
            ForEachTarget([&] {
              std::vector<float> out(out_rows * ld_out, 9.0f);
              ASSERT_EQ(ENC_OK, enc_pool(mode, normalize, batch, seq, d, len,
                                         x.data(), ld_x, out.data(), ld_out))
                  << enc_last_error();
              for (int r = 0; r < out_rows; ++r) {
                std::vector<double> want(d, 0.0);
                for (int64_t c = 0; c < d; ++c) {
                  if (mode == ENC_POOL_NONE) {
                    const int b = r / seq, i = r % seq;
                    if (!len || i < len[b])
                      want[c] = x[(first[b] + i) * ld_x + c];
                  } else {
                    const int b = r, n = len ? len[b] : seq;
                    if (n > 0 && mode == ENC_POOL_CLS)
                      want[c] = x[first[b] * ld_x + c];
                    if (n > 0 && mode == ENC_POOL_MEAN) {
                      for (int i = 0; i < n; ++i)
                        want[c] += x[(first[b] + i) * ld_x + c];
                      want[c] /= n;
                    }
                    if (n > 0 && mode == ENC_POOL_MAX) {
                      want[c] = x[first[b] * ld_x + c];
                      for (int i = 1; i < n; ++i)
                        want[c] = std::max<double>(
                            want[c], x[(first[b] + i) * ld_x + c]);
                    }
                    if (n > 0 && mode == ENC_POOL_LAST)
                      want[c] = x[(first[b] + n - 1) * ld_x + c];
                  }
                }
                if (normalize) {
                  double norm = 0;
                  for (double v : want) norm += v * v;
                  norm = std::max(std::sqrt(norm), 1e-12);
                  for (double& v : want) v /= norm;
                }
                for (int64_t c = 0; c < ld_out; ++c) {
                  const float got = out[r * ld_out + c];
                  if (c >= d) {
                    ASSERT_EQ(9.0f, got);
                    continue;
                  }
                  ASSERT_NEAR(got, want[c],
                              1e-5 * std::max(1.0, std::abs(want[c])))
                      << "row " << r << " col " << c;
                }
              }
            });
          }
        }
      }
    }
  }
}

// none with out == x (a forward's hidden states kept in the caller's out)
// unpacks in place to exactly what it writes into a separate out, ragged
// lengths, empty sequences and normalize included, on every target.
TEST(Pool, NoneUnpacksInPlace) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int batch = 5, seq = 7;
  for (int64_t d : {1, 19, 64}) {
    for (int normalize : {0, 1}) {
      for (const std::vector<int32_t>& lengths :
           {std::vector<int32_t>{7, 7, 7, 7, 7},
            {3, 0, 7, 1, 6},
            {0, 0, 2, 0, 0},
            {0, 0, 0, 0, 0}}) {
        SCOPED_TRACE(testing::Message()
                     << "d " << d << " normalize " << normalize << " len "
                     << lengths[0] << "," << lengths[1] << "," << lengths[2]);
        const int64_t ld = d + 2, rows = int64_t{batch} * seq;
        std::vector<float> packed(rows * ld);
        for (auto& v : packed) v = normal(rng);
        ForEachTarget([&] {
          std::vector<float> want(rows * ld, 5.0f), buf = packed;
          ASSERT_EQ(ENC_OK, enc_pool(ENC_POOL_NONE, normalize, batch, seq, d,
                                     lengths.data(), packed.data(), ld,
                                     want.data(), ld))
              << enc_last_error();
          ASSERT_EQ(ENC_OK,
                    enc_pool(ENC_POOL_NONE, normalize, batch, seq, d,
                             lengths.data(), buf.data(), ld, buf.data(), ld))
              << enc_last_error();
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < d; ++c)
              ASSERT_EQ(want[r * ld + c], buf[r * ld + c])
                  << "row " << r << " col " << c;
        });
      }
    }
  }
}

TEST(Pool, RejectsBadArguments) {
  std::vector<float> x(12, 1.0f), out(12, 7.0f);
  const int32_t bad[1] = {4};
  for (int32_t mode : {ENC_POOL_LAST + 1, -1}) {
    EXPECT_EQ(ENC_ERR_INPUT,
              enc_pool(mode, 0, 1, 3, 4, nullptr, x.data(), 4, out.data(), 4));
    EXPECT_NE(std::string(enc_last_error()).find("unknown pooling mode"),
              std::string::npos)
        << enc_last_error();
  }
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, -1, 3, 4, nullptr,
                                    x.data(), 4, out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 0, 4, nullptr,
                                    x.data(), 4, out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 3, 0, nullptr,
                                    x.data(), 4, out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 3, 4, bad, x.data(), 4,
                                    out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 3, 4, nullptr, nullptr,
                                    4, out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 3, 4, nullptr,
                                    x.data(), 3, out.data(), 4));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_MEAN, 0, 1, 3, 4, nullptr,
                                    x.data(), 4, nullptr, 4));
  // Only none pooling with equal strides unpacks in place.
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_CLS, 0, 1, 3, 4, nullptr, x.data(),
                                    4, x.data(), 4));
  EXPECT_NE(std::string(enc_last_error()).find("out is x"), std::string::npos)
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_NONE, 0, 1, 2, 4, nullptr,
                                    x.data(), 4, x.data(), 5));
  for (float v : x) EXPECT_EQ(1.0f, v);
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_NONE, 0, 1, 3, 4, nullptr,
                                    x.data(), 4, out.data(), 2));
  EXPECT_EQ(ENC_ERR_INPUT, enc_pool(ENC_POOL_CLS, 2, 1, 3, 4, nullptr, x.data(),
                                    4, out.data(), 4));
  EXPECT_NE(std::string(enc_last_error()).find("normalize (2)"),
            std::string::npos)
      << enc_last_error();
  for (float v : out) EXPECT_EQ(7.0f, v);
}

// normalize keeps its meaning where a float sum of squares would not: rows
// whose squares overflow or underflow fp32 still come out as unit vectors,
// and a zero row stays zero.
TEST(Pool, NormalizeExtremeRows) {
  const int64_t d = 37;
  for (float scale : {1e-25f, 1e25f, 0.0f}) {
    SCOPED_TRACE(testing::Message() << "scale " << scale);
    std::vector<float> x(d);
    for (int64_t c = 0; c < d; ++c)
      x[c] = scale * static_cast<float>(c % 5 - 2);
    double norm = 0;
    for (float v : x) norm += double(v) * double(v);
    norm = std::max(std::sqrt(norm), 1e-12);
    ForEachTarget([&] {
      std::vector<float> out(d, 9.0f);
      ASSERT_EQ(ENC_OK, enc_pool(ENC_POOL_NONE, 1, 1, 1, d, nullptr, x.data(),
                                 d, out.data(), d))
          << enc_last_error();
      for (int64_t c = 0; c < d; ++c) {
        ASSERT_TRUE(std::isfinite(out[c])) << c;
        ASSERT_NEAR(out[c], x[c] / norm, 1e-6) << c;
      }
    });
  }
}

}  // namespace
