// enc_mlm and enc_splade (the decoder, the in-place unpacking, SPLADE's
// running maximum over row chunks) against float64, with empty and full
// sequences and a vocabulary wide enough that enc_splade's scratch holds
// fewer rows than a sequence; enc_sparse_rows' top-k, threshold, order and
// capacity; and the argument checks.
#include "enc/kernels/mlm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case {
  int batch, seq;
  int64_t d, ld_x, vocab;
  std::vector<int32_t> lengths;
  std::vector<float> x, w, bias;
};

Case MakeCase(int64_t vocab, std::vector<int32_t> lengths, int seq) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Case c{static_cast<int>(lengths.size()),
         seq,
         12,
         15,
         vocab,
         lengths,
         {},
         {},
         {}};
  c.x.resize(static_cast<size_t>(c.batch) * seq * c.ld_x);
  c.w.resize(static_cast<size_t>(vocab * c.d));
  c.bias.resize(static_cast<size_t>(vocab));
  for (float& v : c.x) v = normal(rng);
  for (float& v : c.w) v = normal(rng) * 0.3f;
  for (float& v : c.bias) v = normal(rng) * 0.5f;
  return c;
}

// W x_i + bias for packed row r, in double.
double Logit(const Case& c, int64_t r, int64_t v) {
  double s = c.bias[v];
  for (int64_t k = 0; k < c.d; ++k)
    s += double(c.w[v * c.d + k]) * c.x[r * c.ld_x + k];
  return s;
}

TEST(Mlm, MatchesReference) {
  Case c = MakeCase(37, {5, 0, 2, 4}, 5);
  enc_packed_b* p = nullptr;
  ASSERT_EQ(ENC_OK, enc_gemm_pack(c.w.data(), c.vocab, c.d, &p));
  std::vector<float> out(static_cast<size_t>(c.batch) * c.seq * c.vocab, 9.f);
  ASSERT_EQ(ENC_OK, enc_mlm(c.batch, c.seq, c.d, c.lengths.data(), c.x.data(),
                            c.ld_x, p, c.bias.data(), out.data()))
      << enc_last_error();
  enc_gemm_packed_free(p);
  int64_t first = 0;
  for (int b = 0; b < c.batch; ++b) {
    for (int i = 0; i < c.seq; ++i) {
      for (int64_t v = 0; v < c.vocab; ++v) {
        const double want = i < c.lengths[b] ? Logit(c, first + i, v) : 0.0;
        ASSERT_NEAR(out[(b * c.seq + i) * c.vocab + v], want, 1e-4)
            << "sequence " << b << " token " << i << " id " << v;
      }
    }
    first += c.lengths[b];
  }
}

TEST(Splade, MatchesReferenceAcrossScratchChunks) {
  // 8 Mi floats of scratch / 400000 ids = 20 rows a chunk: the 45 rows
  // below take three chunks, and sequence 0 spans two of them.
  for (int64_t vocab : {int64_t{53}, int64_t{400000}}) {
    SCOPED_TRACE(testing::Message() << "vocab " << vocab);
    Case c = MakeCase(vocab, {30, 0, 1, 14}, 30);
    enc_packed_b* p = nullptr;
    ASSERT_EQ(ENC_OK, enc_gemm_pack(c.w.data(), c.vocab, c.d, &p));
    std::vector<float> out(static_cast<size_t>(c.batch * c.vocab), 9.f);
    ASSERT_EQ(ENC_OK,
              enc_splade(c.batch, c.seq, c.d, c.lengths.data(), c.x.data(),
                         c.ld_x, p, c.bias.data(), out.data()))
        << enc_last_error();
    enc_gemm_packed_free(p);
    // Every id of a small vocabulary; a sample of a large one.
    const int64_t step = vocab > 1000 ? 997 : 1;
    int64_t first = 0;
    for (int b = 0; b < c.batch; ++b) {
      for (int64_t v = 0; v < c.vocab; v += step) {
        double want = 0.0;
        for (int i = 0; i < c.lengths[b]; ++i)
          want =
              std::max(want, std::log1p(std::max(0.0, Logit(c, first + i, v))));
        ASSERT_NEAR(out[b * c.vocab + v], want, 1e-4)
            << "sequence " << b << " id " << v;
      }
      first += c.lengths[b];
    }
  }
}

TEST(Splade, RejectsBadArguments) {
  Case c = MakeCase(10, {3}, 3);
  enc_packed_b* p = nullptr;
  ASSERT_EQ(ENC_OK, enc_gemm_pack(c.w.data(), c.vocab, c.d, &p));
  std::vector<float> out(static_cast<size_t>(3 * c.vocab), 7.0f);
  const int32_t bad[1] = {4};
  EXPECT_EQ(ENC_ERR_INPUT, enc_splade(1, 3, c.d, nullptr, c.x.data(), c.ld_x,
                                      nullptr, nullptr, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT, enc_splade(1, 3, c.d - 1, nullptr, c.x.data(),
                                      c.ld_x, p, nullptr, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT, enc_splade(1, 3, c.d, bad, c.x.data(), c.ld_x, p,
                                      nullptr, out.data()));
  EXPECT_EQ(ENC_ERR_INPUT, enc_mlm(1, 0, c.d, nullptr, c.x.data(), c.ld_x, p,
                                   nullptr, out.data()));
  EXPECT_NE(std::string(enc_last_error()).find("enc_mlm"), std::string::npos);
  for (float v : out) EXPECT_EQ(7.0f, v);
  enc_gemm_packed_free(p);
}

TEST(SparseRows, TopKThresholdOrderAndCapacity) {
  const std::vector<float> dense = {0.0f, 0.5f, 2.0f, 0.5f, -1.0f, 3.0f,  //
                                    0.0f, 0.0f, 0.0f, 0.0f, 0.0f,  0.0f,  //
                                    1.0f, 0.2f, 0.0f, 0.0f, 4.0f,  0.1f};
  int64_t offsets[4], needed = -1;
  // Asking for the count only.
  EXPECT_EQ(ENC_ERR_INPUT, enc_sparse_rows(dense.data(), 3, 6, 0, 0.0f, offsets,
                                           nullptr, nullptr, 0, &needed));
  EXPECT_EQ(8, needed);
  std::vector<int32_t> idx(8);
  std::vector<float> val(8);
  ASSERT_EQ(ENC_OK, enc_sparse_rows(dense.data(), 3, 6, 0, 0.0f, offsets,
                                    idx.data(), val.data(), 8, &needed));
  EXPECT_EQ((std::vector<int64_t>{0, 4, 4, 8}),
            std::vector<int64_t>(offsets, offsets + 4));
  // Heaviest first; the two 0.5s in id order.
  EXPECT_EQ((std::vector<int32_t>{5, 2, 1, 3, 4, 0, 1, 5}), idx);
  EXPECT_EQ(
      (std::vector<float>{3.0f, 2.0f, 0.5f, 0.5f, 4.0f, 1.0f, 0.2f, 0.1f}),
      val);
  ASSERT_EQ(ENC_OK, enc_sparse_rows(dense.data(), 3, 6, 2, 0.15f, offsets,
                                    idx.data(), val.data(), 8, nullptr));
  EXPECT_EQ((std::vector<int64_t>{0, 2, 2, 4}),
            std::vector<int64_t>(offsets, offsets + 4));
  EXPECT_EQ((std::vector<int32_t>{5, 2, 4, 0}),
            std::vector<int32_t>(idx.begin(), idx.begin() + 4));
  EXPECT_EQ(ENC_ERR_INPUT,
            enc_sparse_rows(dense.data(), 3, 6, -1, 0.0f, offsets, idx.data(),
                            val.data(), 8, nullptr));
  EXPECT_EQ(ENC_ERR_INPUT, enc_sparse_rows(dense.data(), 3, 6, 0, NAN, offsets,
                                           idx.data(), val.data(), 8, nullptr));
}

}  // namespace
