// enc_attention_block against the unchunked sub-layer it replaces: the query
// projection of every row (enc_gemm_normed or enc_gemm), enc_attention and
// the output projection with its residual (enc_gemm), on every compiled
// Highway target, with chunks that split sequences and long sequences that
// run head by head.
#include "enc/kernels/attention_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/norm.h"
#include "enc/kernels/norm_gemm.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "for_each_target.h"
#include "kernels/attention_args.h"  // SetAttentionSplitFromForTest

namespace {

using enc_test::ForEachTarget;

struct PackedDeleter {
  void operator()(enc_packed_b* p) const { enc_gemm_packed_free(p); }
};
using Packed = std::unique_ptr<enc_packed_b, PackedDeleter>;

Packed Pack(const std::vector<float>& w, int64_t n, int64_t k,
            enc_precision precision = ENC_PRECISION_FP32) {
  enc_packed_b* p = nullptr;
  const float* part = w.data();
  EXPECT_EQ(enc_gemm_pack_parts_as(precision, 1, &part, &n, k, &p), ENC_OK);
  return Packed(p);
}

struct Case {
  int heads, d_k, d_model, seq;
  std::vector<int32_t> lengths;
  int window = 0;
  bool rope = true;
  bool norm = true;
  bool bias = true;
  bool alibi = false;
  enc_precision precision = ENC_PRECISION_FP32;  // of wq, wkv and wo
};

struct Layer {
  Case c;
  int batch, rows, d;
  std::vector<float> x, wq, bq, wkv, bkv, wo, bo, gamma, beta, cos, sin, slopes;
  Packed pq, pkv, po;
  enc_attention_params p{};

  explicit Layer(const Case& cs) : c(cs) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, size_t n, float s) {
      v.resize(n);
      for (float& f : v) f = s * normal(rng);
    };
    batch = static_cast<int>(c.lengths.size());
    rows = std::accumulate(c.lengths.begin(), c.lengths.end(), 0);
    d = c.heads * c.d_k;
    fill(x, static_cast<size_t>(rows) * c.d_model, 1.0f);
    fill(wq, static_cast<size_t>(d) * c.d_model, 0.3f);
    fill(bq, d, 0.1f);
    fill(wo, static_cast<size_t>(c.d_model) * d, 0.3f);
    fill(bo, c.d_model, 0.1f);
    fill(wkv, static_cast<size_t>(2 * d) * c.d_model, 0.3f);
    fill(bkv, 2 * d, 0.1f);
    fill(gamma, c.d_model, 1.0f);
    fill(beta, c.d_model, 0.1f);
    pq = Pack(wq, d, c.d_model, c.precision);
    pkv = Pack(wkv, 2 * d, c.d_model, c.precision);
    po = Pack(wo, c.d_model, d, c.precision);
    const int max_len = c.seq + 1;
    p.heads = c.heads;
    p.d_k = c.d_k;
    p.max_len = max_len;
    p.scale = 1.0f / std::sqrt(static_cast<float>(c.d_k));
    p.window = c.window;
    if (c.rope) {
      const int half = c.d_k / 2;
      cos.resize(static_cast<size_t>(max_len) * half);
      sin.resize(cos.size());
      for (int pos = 0; pos < max_len; ++pos) {
        for (int i = 0; i < half; ++i) {
          const double a = pos * std::pow(10000.0, -2.0 * i / c.d_k);
          cos[pos * half + i] = static_cast<float>(std::cos(a));
          sin[pos * half + i] = static_cast<float>(std::sin(a));
        }
      }
      p.rope_style = ENC_ROPE_HALVES;
      p.rope_cos = cos.data();
      p.rope_sin = sin.data();
    }
    if (c.alibi) {
      for (int h = 0; h < c.heads; ++h) slopes.push_back(std::pow(0.5f, h + 1));
      p.alibi_slopes = slopes.data();
    }
  }
  const float* Gamma() const { return c.norm ? gamma.data() : nullptr; }
  const float* Beta() const { return c.norm ? beta.data() : nullptr; }
  const float* Bq() const { return c.bias ? bq.data() : nullptr; }
  const float* Bkv() const { return c.bias ? bkv.data() : nullptr; }
  const float* Bo() const { return c.bias ? bo.data() : nullptr; }

  // x (normed) W^T + b into out [rows, ld].
  void Project(const enc_packed_b* w, const float* b, float* out,
               int64_t ld) const {
    enc_status s = c.norm
                       ? enc_gemm_normed(ENC_NORM_LAYER, Gamma(), Beta(), 1e-5f,
                                         rows, x.data(), c.d_model, w, b,
                                         ENC_ACT_NONE, nullptr, 0, out, ld)
                       : enc_gemm(rows, x.data(), c.d_model, w, b, ENC_ACT_NONE,
                                  nullptr, 0, out, ld);
    EXPECT_EQ(s, ENC_OK) << enc_last_error();
  }

  // The sub-layer unchunked: all queries, keys and values, all outputs,
  // then the projection.
  std::vector<float> Reference(float* probs) const {
    std::vector<float> qkv(static_cast<size_t>(rows) * 3 * d);
    Project(pq.get(), Bq(), qkv.data(), 3 * d);
    Project(pkv.get(), Bkv(), qkv.data() + d, 3 * d);
    enc_attention_params pp = p;
    pp.probs = probs;
    std::vector<float> o(static_cast<size_t>(rows) * d);
    EXPECT_EQ(
        enc_attention(&pp, batch, c.seq, c.lengths.data(), qkv.data(),
                      qkv.data() + d, qkv.data() + 2 * d, 3 * d, o.data(), d),
        ENC_OK);
    std::vector<float> y(x);
    EXPECT_EQ(enc_gemm(rows, o.data(), d, po.get(), Bo(), ENC_ACT_NONE,
                       y.data(), c.d_model, y.data(), c.d_model),
              ENC_OK);
    return y;
  }

  enc_status Block(float* y, int64_t ldy, float* probs) const {
    enc_attention_params pp = p;
    pp.probs = probs;
    return enc_attention_block(&pp, batch, c.seq, c.lengths.data(),
                               ENC_NORM_LAYER, Gamma(), Beta(), 1e-5f, x.data(),
                               c.d_model, pq.get(), Bq(), pkv.get(), Bkv(),
                               po.get(), Bo(), y, ldy);
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol) {
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= tol * (1.0f + std::fabs(want[i])))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << want[i];
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

// In place (y == x) and into another buffer, against the reference.
void RunCase(const Case& c, bool with_probs) {
  Layer l(c);
  ASSERT_GT(l.rows, ENC_ATTENTION_BLOCK_CHUNK_ROWS) << "one chunk only";
  const size_t probs_size =
      with_probs ? static_cast<size_t>(l.batch) * c.heads * c.seq * c.seq : 0;
  std::vector<float> probs_ref(probs_size, -1.0f), probs(probs_size, -2.0f);
  const std::vector<float> want =
      l.Reference(with_probs ? probs_ref.data() : nullptr);

  std::vector<float> x_saved = l.x;
  ASSERT_EQ(l.Block(l.x.data(), c.d_model, with_probs ? probs.data() : nullptr),
            ENC_OK)
      << enc_last_error();
  ExpectNear(l.x, want, 1e-5f);
  if (with_probs) ExpectNear(probs, probs_ref, 1e-6f);

  l.x = x_saved;
  std::vector<float> y(static_cast<size_t>(l.rows) * (c.d_model + 3), 9.0f);
  ASSERT_EQ(l.Block(y.data(), c.d_model + 3, nullptr), ENC_OK)
      << enc_last_error();
  std::vector<float> y_rows;
  for (int r = 0; r < l.rows; ++r) {
    y_rows.insert(y_rows.end(), y.begin() + r * (c.d_model + 3),
                  y.begin() + r * (c.d_model + 3) + c.d_model);
    EXPECT_EQ(y[r * (c.d_model + 3) + c.d_model], 9.0f) << "row " << r;
  }
  ExpectNear(y_rows, want, 1e-5f);
  EXPECT_EQ(l.x, x_saved) << "x written when y is another buffer";
}

// Sequences of mixed lengths (one empty) whose rows span two chunks, the
// chunk boundary inside a sequence; global and local, with probabilities.
TEST(AttentionBlock, ChunksSplitSequences) {
  const int threads = enc_threads_count();
  for (int t : {1, 2}) {
    enc_set_num_threads(t);
    ForEachTarget([&] {
      RunCase({4, 8, 24, 400, {400, 0, 1, 399, 350}}, /*with_probs=*/true);
      RunCase({4, 8, 24, 400, {400, 0, 1, 399, 350}, /*window=*/64}, true);
    });
  }
  enc_set_num_threads(threads);
}

// A long sequence (three chunks) head by head over the pool, global and
// local, with ALiBi, without a norm or biases.
TEST(AttentionBlock, LongSequenceHeadByHead) {
  const int threads = enc_threads_count();
  enc_set_num_threads(2);
  enc::SetAttentionSplitFromForTest(256);
  ForEachTarget([&] {
    Case c{2, 16, 32, 2500, {2500}};
    RunCase(c, false);
    c.window = 128;
    c.norm = false;
    c.bias = false;
    RunCase(c, false);
    c.rope = false;
    c.alibi = true;
    c.lengths = {1200, 1300};
    c.seq = 1300;
    RunCase(c, false);
  });
  enc::SetAttentionSplitFromForTest(0);
  enc_set_num_threads(threads);
}

// Long inputs go a head group at a time: groups of one head and uneven
// groups (3 + 1), global and local, with RoPE or ALiBi, with and without
// a norm and biases, the probabilities written per group; each against the
// reference of all heads at once.
TEST(AttentionBlock, HeadGroups) {
  const int threads = enc_threads_count();
  for (int t : {1, 2}) {
    enc_set_num_threads(t);
    enc::SetAttentionSplitFromForTest(t == 2 ? 256 : 0);
    for (int64_t group : {1, 3}) {
      enc::SetAttentionBlockHeadsPerGroupForTest(group);
      ForEachTarget([&] {
        RunCase({4, 8, 24, 400, {400, 0, 1, 399, 350}}, /*with_probs=*/true);
        Case c{4, 16, 40, 1100, {1100, 300}, /*window=*/64};
        c.norm = false;
        c.bias = false;
        RunCase(c, true);
        c.window = 0;
        c.rope = false;
        c.alibi = true;
        c.norm = true;
        RunCase(c, false);
        // The views of whole panels in the other formats.
        for (enc_precision pr : {ENC_PRECISION_INT8, ENC_PRECISION_BF16}) {
          c.precision = pr;
          RunCase(c, false);
        }
      });
    }
  }
  enc::SetAttentionBlockHeadsPerGroupForTest(0);
  enc::SetAttentionSplitFromForTest(0);
  enc_set_num_threads(threads);
}

// The group rule: every head while the keys and values of every row fit in
// 32 MiB; past that, whole panels' worth of heads within 8 MiB, at least
// one panel's worth.
TEST(AttentionBlock, HeadsPerGroupRule) {
  using enc::AttentionBlockHeadsPerGroup;
  // BERT-base (12 heads of 64): 5,461 rows take 32 MiB.
  EXPECT_EQ(AttentionBlockHeadsPerGroup(512, 12, 64, 48), 12);
  EXPECT_EQ(AttentionBlockHeadsPerGroup(5461, 12, 64, 48), 12);
  // 8,192 rows: 4 MiB a head, so 2 fit in 8 MiB; 3 heads fill 4 panels of
  // 48 (AVX3) or 8 of 24 (AVX2).
  EXPECT_EQ(AttentionBlockHeadsPerGroup(8192, 12, 64, 48), 3);
  EXPECT_EQ(AttentionBlockHeadsPerGroup(8192, 12, 64, 24), 3);
  // Panels of 16 hold a head of 64 whole: as many heads as fit, 2.
  EXPECT_EQ(AttentionBlockHeadsPerGroup(8192, 12, 64, 16), 2);
  // Short rows of many heads: whole steps of 3 within 8 MiB.
  EXPECT_EQ(AttentionBlockHeadsPerGroup(2048, 48, 64, 48), 6);
  // Never more than the heads there are.
  EXPECT_EQ(AttentionBlockHeadsPerGroup(1 << 20, 2, 64, 48), 2);
  // A test's override wins, capped by the heads.
  enc::SetAttentionBlockHeadsPerGroupForTest(5);
  EXPECT_EQ(AttentionBlockHeadsPerGroup(512, 4, 64, 48), 4);
  enc::SetAttentionBlockHeadsPerGroupForTest(0);
}

// Bad arguments: ENC_ERR_INPUT naming the problem, and y not written.
TEST(AttentionBlock, RefusesBadArguments) {
  Layer l({2, 4, 8, 16, {16, 5}});
  std::vector<float> y(static_cast<size_t>(l.rows) * 8, 7.0f);
  auto untouched = [&] {
    EXPECT_TRUE(
        std::all_of(y.begin(), y.end(), [](float f) { return f == 7.0f; }));
  };
  enc_attention_params p = l.p;
  auto call = [&](const enc_packed_b* wq, const enc_packed_b* wkv,
                  const enc_packed_b* wo, int32_t norm_kind,
                  const int32_t* lengths, float* out) {
    return enc_attention_block(&p, l.batch, 16, lengths, norm_kind, l.Gamma(),
                               l.Beta(), 1e-5f, l.x.data(), 8, wq, l.Bq(), wkv,
                               l.Bkv(), wo, l.Bo(), out, 8);
  };
  const int32_t* lengths = l.c.lengths.data();
  auto names = [](const char* what) {
    EXPECT_NE(std::string(enc_last_error()).find(what), std::string::npos)
        << enc_last_error();
  };
  // wq and wo swapped: [8, 8] both here, so use a wrong-sized one.
  std::vector<float> w16(16 * 8, 0.0f);
  Packed wide = Pack(w16, 16, 8);
  EXPECT_EQ(call(wide.get(), l.pkv.get(), l.po.get(), ENC_NORM_LAYER, lengths,
                 y.data()),
            ENC_ERR_INPUT);
  names("wq");
  untouched();
  // wkv with the queries' shape.
  EXPECT_EQ(call(l.pq.get(), l.pq.get(), l.po.get(), ENC_NORM_LAYER, lengths,
                 y.data()),
            ENC_ERR_INPUT);
  names("wkv");
  untouched();
  EXPECT_EQ(call(l.pq.get(), l.pkv.get(), l.po.get(), 7, lengths, y.data()),
            ENC_ERR_INPUT);
  names("norm_kind");
  untouched();
  EXPECT_EQ(
      call(l.pq.get(), nullptr, l.po.get(), ENC_NORM_LAYER, lengths, y.data()),
      ENC_ERR_INPUT);
  names("wkv is NULL");
  untouched();
  // y over x's rows, one row in.
  std::vector<float> x_saved = l.x;
  EXPECT_EQ(enc_attention_block(&p, l.batch, 16, lengths, ENC_NORM_LAYER,
                                l.Gamma(), l.Beta(), 1e-5f, l.x.data(), 8,
                                l.pq.get(), l.Bq(), l.pkv.get(), l.Bkv(),
                                l.po.get(), l.Bo(), l.x.data() + 8, 8),
            ENC_ERR_INPUT);
  names("overlaps");
  EXPECT_EQ(l.x, x_saved);
  // A length over seq_len.
  std::vector<int32_t> bad = {17, 5};
  EXPECT_EQ(call(l.pq.get(), l.pkv.get(), l.po.get(), ENC_NORM_LAYER,
                 bad.data(), y.data()),
            ENC_ERR_INPUT);
  untouched();
}

}  // namespace
