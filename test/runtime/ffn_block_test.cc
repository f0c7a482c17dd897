// enc_ffn_block against the unchunked sub-layer it replaces: the hidden
// projection of every row (enc_gemm[_normed] or enc_gemm_gated[_normed])
// and the output projection with its residual (enc_gemm), on every compiled
// Highway target, over several chunks.
#include "enc/kernels/ffn_block.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/norm.h"
#include "enc/kernels/norm_gemm.h"
#include "enc/runtime.h"
#include "for_each_target.h"

namespace {

using enc_test::ForEachTarget;

struct PackedDeleter {
  void operator()(enc_packed_b* p) const { enc_gemm_packed_free(p); }
};
struct GatedDeleter {
  void operator()(enc_packed_gated* p) const { enc_gemm_gated_free(p); }
};

struct Layer {
  int m, d, d_ff;
  bool gated, norm, bias;
  std::vector<float> x, w1, wu, w2, b1, bu, b2, gamma, beta;
  std::unique_ptr<enc_packed_b, PackedDeleter> p1, p2;
  std::unique_ptr<enc_packed_gated, GatedDeleter> pg;

  Layer(int m_, int d_, int d_ff_, bool gated_, bool norm_, bool bias_)
      : m(m_), d(d_), d_ff(d_ff_), gated(gated_), norm(norm_), bias(bias_) {
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, size_t n, float s) {
      v.resize(n);
      for (float& f : v) f = s * normal(rng);
    };
    fill(x, static_cast<size_t>(m) * d, 1.0f);
    fill(w1, static_cast<size_t>(d_ff) * d, 0.3f);
    fill(wu, static_cast<size_t>(d_ff) * d, 0.3f);
    fill(w2, static_cast<size_t>(d) * d_ff, 0.2f);
    fill(b1, d_ff, 0.1f);
    fill(bu, d_ff, 0.1f);
    fill(b2, d, 0.1f);
    fill(gamma, d, 1.0f);
    fill(beta, d, 0.1f);
    enc_packed_b* p = nullptr;
    EXPECT_EQ(enc_gemm_pack(w2.data(), d, d_ff, &p), ENC_OK);
    p2.reset(p);
    if (gated) {
      enc_packed_gated* g = nullptr;
      EXPECT_EQ(enc_gemm_pack_gated(w1.data(), wu.data(), d_ff, d, &g), ENC_OK);
      pg.reset(g);
    } else {
      EXPECT_EQ(enc_gemm_pack(w1.data(), d_ff, d, &p), ENC_OK);
      p1.reset(p);
    }
  }
  const float* G() const { return norm ? gamma.data() : nullptr; }
  const float* B1() const { return bias ? b1.data() : nullptr; }
  const float* Bu() const { return bias && gated ? bu.data() : nullptr; }
  const float* B2() const { return bias ? b2.data() : nullptr; }

  std::vector<float> Reference(enc_activation act) const {
    std::vector<float> h(static_cast<size_t>(m) * d_ff);
    enc_status s;
    if (gated) {
      s = norm ? enc_gemm_gated_normed(ENC_NORM_LAYER, G(), beta.data(), 1e-5f,
                                       m, x.data(), d, pg.get(), B1(), Bu(),
                                       act, h.data(), d_ff)
               : enc_gemm_gated(m, x.data(), d, pg.get(), B1(), Bu(), act,
                                h.data(), d_ff);
    } else {
      s = norm ? enc_gemm_normed(ENC_NORM_LAYER, G(), beta.data(), 1e-5f, m,
                                 x.data(), d, p1.get(), B1(), act, nullptr, 0,
                                 h.data(), d_ff)
               : enc_gemm(m, x.data(), d, p1.get(), B1(), act, nullptr, 0,
                          h.data(), d_ff);
    }
    EXPECT_EQ(s, ENC_OK);
    std::vector<float> y(x);
    EXPECT_EQ(enc_gemm(m, h.data(), d_ff, p2.get(), B2(), ENC_ACT_NONE,
                       y.data(), d, y.data(), d),
              ENC_OK);
    return y;
  }
  enc_status Block(enc_activation act, float* y, int64_t ldy) const {
    return enc_ffn_block(ENC_NORM_LAYER, G(), norm ? beta.data() : nullptr,
                         1e-5f, m, x.data(), d, p1.get(), pg.get(), B1(), Bu(),
                         act, p2.get(), B2(), y, ldy);
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i])))) {
      if (++bad <= 5) ADD_FAILURE() << i << ": " << got[i] << " vs " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u);
}

// Plain and gated, with and without the norm and biases, in place and into
// another buffer; 1,300 rows are three chunks.
TEST(FfnBlock, MatchesTheUnchunkedLayer) {
  ForEachTarget([] {
    for (bool gated : {false, true}) {
      for (bool norm_and_bias : {false, true}) {
        SCOPED_TRACE(std::string(gated ? "gated" : "plain") +
                     (norm_and_bias ? " normed, biased" : ""));
        Layer l(1300, 24, 40, gated, norm_and_bias, norm_and_bias);
        const enc_activation act = gated ? ENC_ACT_SILU : ENC_ACT_GELU;
        const std::vector<float> want = l.Reference(act);
        std::vector<float> y(static_cast<size_t>(l.m) * 30, 5.0f);
        ASSERT_EQ(l.Block(act, y.data(), 30), ENC_OK) << enc_last_error();
        std::vector<float> rows;
        for (int r = 0; r < l.m; ++r) {
          rows.insert(rows.end(), y.begin() + r * 30, y.begin() + r * 30 + 24);
          ASSERT_EQ(y[r * 30 + 24], 5.0f) << "row " << r << " past d_model";
        }
        ExpectNear(rows, want);
        ASSERT_EQ(l.Block(act, l.x.data(), l.d), ENC_OK) << enc_last_error();
        ExpectNear(l.x, want);
      }
    }
  });
}

TEST(FfnBlock, RefusesBadArguments) {
  Layer l(10, 8, 16, false, true, true);
  std::vector<float> y(80, 3.0f);
  const std::vector<float> y0 = y;
  auto refused = [&](enc_status s, const char* what) {
    EXPECT_EQ(s, ENC_ERR_INPUT);
    EXPECT_NE(std::string(enc_last_error()).find(what), std::string::npos)
        << enc_last_error();
    EXPECT_EQ(y, y0);
  };
  // Both hidden weights, none, a swapped w2, a bad norm, an overlap.
  Layer g(10, 8, 16, true, false, false);
  refused(enc_ffn_block(0, nullptr, nullptr, 0, 10, l.x.data(), 8, l.p1.get(),
                        g.pg.get(), nullptr, nullptr, ENC_ACT_GELU, l.p2.get(),
                        nullptr, y.data(), 8),
          "exactly one");
  refused(enc_ffn_block(0, nullptr, nullptr, 0, 10, l.x.data(), 8, nullptr,
                        nullptr, nullptr, nullptr, ENC_ACT_GELU, l.p2.get(),
                        nullptr, y.data(), 8),
          "exactly one");
  refused(enc_ffn_block(0, nullptr, nullptr, 0, 10, l.x.data(), 8, l.p1.get(),
                        nullptr, nullptr, nullptr, ENC_ACT_GELU, l.p1.get(),
                        nullptr, y.data(), 8),
          "w2");
  refused(enc_ffn_block(9, l.G(), nullptr, 1e-5f, 10, l.x.data(), 8, l.p1.get(),
                        nullptr, nullptr, nullptr, ENC_ACT_GELU, l.p2.get(),
                        nullptr, y.data(), 8),
          "norm_kind");
  std::vector<float> x = l.x;
  refused(enc_ffn_block(0, nullptr, nullptr, 0, 9, x.data() + 8, 8, l.p1.get(),
                        nullptr, nullptr, nullptr, ENC_ACT_GELU, l.p2.get(),
                        nullptr, x.data(), 8),
          "overlaps");
  EXPECT_EQ(x, l.x);
}

}  // namespace
