// enc_embed_tokens / enc_embed_floats against float64, on every target.
#include "enc/kernels/embed.h"

#include <gtest/gtest.h>

#include "for_each_target.h"
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using enc_test::ForEachTarget;

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

TEST(Embed, TokensMatchReference) {
  std::mt19937 rng(5);
  for (int64_t d : {1, 3, 17, 64, 100}) {
    for (int seq : {1, 5, 129}) {
      for (int variant = 0; variant < 8; ++variant) {
        const bool types_on = variant & 1, pos_on = variant & 2,
                   lengths_on = variant & 4;
        SCOPED_TRACE(testing::Message()
                     << "d " << d << " seq " << seq << " variant " << variant);
        const int batch = 3, vocab = 50, type_vocab = 3;
        const int64_t ld = d + 2, pos_rows = seq + 4;
        const std::vector<float> tok = Random(vocab * d, rng),
                                 type = Random(type_vocab * d, rng),
                                 pos = Random(pos_rows * d, rng);
        std::vector<int32_t> ids(batch * seq), types(batch * seq);
        for (auto& x : ids)
          x = std::uniform_int_distribution<int>(0, vocab - 1)(rng);
        for (auto& x : types)
          x = std::uniform_int_distribution<int>(0, type_vocab - 1)(rng);
        const std::vector<int32_t> lengths = {seq, 0, seq / 2};
        const int32_t* len = lengths_on ? lengths.data() : nullptr;
        if (lengths_on)
          ids[seq + 1 < batch * seq ? seq : 0] = -5;  // padding: not checked
        const float scale = 1.7f;
        ForEachTarget([&] {
          std::vector<float> out(batch * seq * ld, 9.0f);
          ASSERT_EQ(ENC_OK,
                    enc_embed_tokens(batch, seq, ids.data(),
                                     types_on ? types.data() : nullptr, len,
                                     tok.data(), vocab, scale, type.data(),
                                     type_vocab, pos_on ? pos.data() : nullptr,
                                     pos_rows, d, out.data(), ld))
              << enc_last_error();
          // Packed layout: valid positions only, in order; rows past them
          // and columns past d untouched.
          int64_t packed = 0;
          for (int b = 0; b < batch; ++b) {
            const int valid = len ? len[b] : seq;
            for (int i = 0; i < valid; ++i, ++packed) {
              const int64_t row = b * seq + i;
              for (int64_t c = 0; c < ld; ++c) {
                const float got = out[packed * ld + c];
                if (c >= d) {
                  ASSERT_EQ(9.0f, got);
                  continue;
                }
                const double want =
                    static_cast<double>(scale) * tok[ids[row] * d + c] +
                    type[(types_on ? types[row] : 0) * d + c] +
                    (pos_on ? pos[i * d + c] : 0.0);
                ASSERT_NEAR(got, want, 1e-5 * std::max(1.0, std::abs(want)))
                    << "b " << b << " i " << i << " c " << c;
              }
            }
          }
          for (int64_t k = packed * ld; k < batch * seq * ld; ++k)
            ASSERT_EQ(9.0f, out[k]);
        });
      }
    }
  }
}

TEST(Embed, FloatsPlusPositions) {
  std::mt19937 rng(6);
  const int batch = 3, seq = 7;
  const int64_t d = 19, ld = 24;
  const std::vector<float> in = Random(batch * seq * ld, rng),
                           pos = Random(seq * d, rng);
  ForEachTarget([&] {
    std::vector<float> out(batch * seq * ld, 0.0f);
    ASSERT_EQ(ENC_OK, enc_embed_floats(batch, seq, in.data(), ld, nullptr,
                                       pos.data(), seq, d, out.data(), ld));
    for (int64_t row = 0; row < batch * seq; ++row) {
      for (int64_t c = 0; c < d; ++c) {
        ASSERT_EQ(in[row * ld + c] + pos[(row % seq) * d + c],
                  out[row * ld + c]);
      }
    }
    // Packing in place: sequence 1 is empty, sequence 2 moves up to row 3.
    const int32_t len[3] = {3, 0, 5};
    std::vector<float> inplace = in;
    ASSERT_EQ(ENC_OK, enc_embed_floats(batch, seq, inplace.data(), ld, len,
                                       nullptr, 0, d, inplace.data(), ld));
    for (int i = 0; i < 5; ++i) {
      for (int64_t c = 0; c < d; ++c) {
        ASSERT_EQ(in[(2 * seq + i) * ld + c], inplace[(3 + i) * ld + c]) << i;
      }
    }
    for (int64_t k = 0; k < 3 * ld; ++k) ASSERT_EQ(in[k], inplace[k]);
  });
}

// A sinusoidal table cut to its first rows: the rows past it, computed by
// enc_embed_floats_sinusoidal, are bit for bit those of the whole table
// (double-precision angles, rounded once), out of place and in place, with
// ragged lengths; within the table it is enc_embed_floats itself.
TEST(Embed, SinusoidalRowsPastTheTable) {
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const int batch = 3, seq = 23;
  const int64_t d = 10, head = 7;
  const std::vector<int32_t> lengths = {23, 0, 9};
  std::vector<float> table(seq * d);
  for (int64_t p = 0; p < seq; ++p)
    for (int64_t c = 0; c < d; ++c) {
      const double angle = double(p) / std::pow(10000.0, double(c / 2 * 2) / d);
      table[p * d + c] = float(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
      ASSERT_EQ(table[p * d + c], enc_sinusoid(p, c, d)) << p << " " << c;
    }
  std::vector<float> x(batch * seq * d);
  for (auto& v : x) v = normal(rng);
  for (int seq_len : {5, seq}) {
    SCOPED_TRACE(seq_len);
    std::vector<float> want(batch * seq * d, -1.0f), got = want, inplace = x;
    std::vector<int32_t> len(lengths);
    for (auto& l : len) l = std::min(l, seq_len);
    ASSERT_EQ(ENC_OK, enc_embed_floats(batch, seq_len, x.data(), d, len.data(),
                                       table.data(), seq, d, want.data(), d));
    ASSERT_EQ(ENC_OK, enc_embed_floats_sinusoidal(batch, seq_len, x.data(), d,
                                                  len.data(), table.data(),
                                                  head, d, got.data(), d))
        << enc_last_error();
    ASSERT_EQ(ENC_OK, enc_embed_floats_sinusoidal(
                          batch, seq_len, inplace.data(), d, len.data(),
                          table.data(), head, d, inplace.data(), d))
        << enc_last_error();
    int64_t rows = 0;
    for (int32_t l : len) rows += l;
    for (int64_t k = 0; k < rows * d; ++k) {
      ASSERT_EQ(want[k], got[k]) << k;
      ASSERT_EQ(want[k], inplace[k]) << k;
    }
  }
  std::vector<float> out(batch * seq * d);
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_embed_floats_sinusoidal(batch, seq, x.data(), d, nullptr,
                                        nullptr, 0, d, out.data(), d));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_embed_floats_sinusoidal(batch, seq, x.data(), d - 1, nullptr,
                                        table.data(), head, d, out.data(), d));
}

TEST(Embed, RejectsBadIdsWritingNothing) {
  const int batch = 2, seq = 3, vocab = 4, type_vocab = 2;
  const int64_t d = 5;
  std::vector<float> tok(vocab * d, 1.0f), type(type_vocab * d, 1.0f),
      out(batch * seq * d, 7.0f);
  std::vector<int32_t> ids = {0, 1, 2, 3, 0, 1}, types = {0, 1, 0, 1, 0, 1};
  auto call = [&](const int32_t* len) {
    return enc_embed_tokens(batch, seq, ids.data(), types.data(), len,
                            tok.data(), vocab, 1.0f, type.data(), type_vocab,
                            nullptr, 0, d, out.data(), d);
  };
  ids[4] = 4;
  EXPECT_EQ(ENC_ERR_INPUT, call(nullptr));
  std::string msg = enc_last_error();
  EXPECT_NE(std::string::npos, msg.find("batch row 1")) << msg;
  EXPECT_NE(std::string::npos, msg.find("position 1")) << msg;
  EXPECT_NE(std::string::npos, msg.find("4")) << msg;
  ids[4] = -1;
  EXPECT_EQ(ENC_ERR_INPUT, call(nullptr));
  ids[4] = 0;
  types[5] = 2;
  EXPECT_EQ(ENC_ERR_INPUT, call(nullptr));
  msg = enc_last_error();
  EXPECT_NE(std::string::npos, msg.find("type")) << msg;
  EXPECT_NE(std::string::npos, msg.find("position 2")) << msg;
  // Beyond the valid length nothing is checked.
  const int32_t len[2] = {3, 2};
  EXPECT_EQ(ENC_OK, call(len)) << enc_last_error();
  std::fill(out.begin(), out.end(), 7.0f);
  const int32_t bad_len[2] = {3, 4};
  EXPECT_EQ(ENC_ERR_INPUT, call(bad_len));
  types[5] = 0;
  EXPECT_EQ(
      ENC_ERR_INPUT,
      enc_embed_tokens(-1, seq, ids.data(), nullptr, nullptr, tok.data(), vocab,
                       1.0f, nullptr, 0, nullptr, 0, d, out.data(), d));
  EXPECT_EQ(
      ENC_ERR_INPUT,
      enc_embed_tokens(batch, seq, nullptr, nullptr, nullptr, tok.data(), vocab,
                       1.0f, nullptr, 0, nullptr, 0, d, out.data(), d));
  EXPECT_EQ(
      ENC_ERR_INPUT,
      enc_embed_tokens(batch, seq, ids.data(), nullptr, nullptr, nullptr, vocab,
                       1.0f, nullptr, 0, nullptr, 0, d, out.data(), d));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_embed_tokens(batch, seq, ids.data(), nullptr, nullptr,
                             tok.data(), vocab, 1.0f, nullptr, 0, nullptr, 0, d,
                             out.data(), d - 1));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_embed_tokens(batch, seq, ids.data(), nullptr, nullptr,
                             tok.data(), vocab, 1.0f, nullptr, 0, tok.data(),
                             seq - 1, d, out.data(), d));
  EXPECT_EQ(ENC_ERR_INPUT, enc_embed_floats(batch, seq, nullptr, d, nullptr,
                                            nullptr, 0, d, out.data(), d));
  EXPECT_EQ(ENC_ERR_INPUT, enc_embed_floats(batch, 0, tok.data(), d, nullptr,
                                            nullptr, 0, d, out.data(), d));
  EXPECT_EQ(ENC_ERR_INPUT, enc_embed_floats(batch, seq, tok.data(), d, bad_len,
                                            nullptr, 0, d, out.data(), d));
  for (float v : out) ASSERT_EQ(7.0f, v) << "a failing call wrote its output";
}

}  // namespace
