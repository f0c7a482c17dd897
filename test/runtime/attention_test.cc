// enc_attention against a float64 reference, on every compiled Highway target.
#include "enc/kernels/attention.h"

#include <gtest/gtest.h>

#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "for_each_target.h"
#include <hwy/targets.h>

#include "kernels/attention-inl.h"  // ExpNonPositive, at the static target

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using enc_test::ForEachTarget;

enum Bias { kNoBias, kAlibi, kRelative };

struct Case {
  int heads, d_k, seq, batch;
  int rope;  // enc_rope_style
  Bias bias;
  float q_scale = 1.0f;  // to push scores far from 0
  bool full = false;     // lengths == NULL (every sequence full)
  int window = 0;        // local attention: |i - j| <= window / 2
};

struct AttnSetup {
  Case c;
  int max_len = 0;
  std::vector<float> qkv = {};  // [batch*seq, 3*d_model]
  std::vector<int32_t> lengths = {};
  std::vector<float> cos = {}, sin = {}, slopes = {}, rel_table = {};
  std::vector<int32_t> buckets = {};
  int rel_buckets = 0;
  enc_attention_params p{};
};

void Build(AttnSetup& s, std::mt19937& rng) {
  const Case& c = s.c;
  const int d_model = c.heads * c.d_k;
  s.max_len = c.seq + 3;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  s.qkv.resize(static_cast<size_t>(c.batch) * c.seq * 3 * d_model);
  for (size_t i = 0; i < s.qkv.size(); ++i) {
    s.qkv[i] = normal(rng) * ((i / d_model) % 3 == 0 ? c.q_scale : 1.0f);
  }
  // Mixed lengths: full, 0, 1, random.
  for (int b = 0; b < c.batch; ++b) {
    int len = c.seq;
    if (b % 4 == 1) len = 0;
    if (b % 4 == 2) len = 1;
    if (b % 4 == 3) len = std::uniform_int_distribution<int>(0, c.seq)(rng);
    s.lengths.push_back(c.full ? c.seq : len);
  }
  s.p.heads = c.heads;
  s.p.d_k = c.d_k;
  s.p.max_len = s.max_len;
  s.p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.d_k)));
  s.p.window = c.window;
  s.p.rope_style = c.rope;
  if (c.rope != ENC_ROPE_NONE) {
    const int half = c.d_k / 2;
    for (int pos = 0; pos < s.max_len; ++pos) {
      for (int k = 0; k < half; ++k) {
        const double freq = std::pow(10000.0, -2.0 * k / c.d_k);
        s.cos.push_back(static_cast<float>(std::cos(pos * freq)));
        s.sin.push_back(static_cast<float>(std::sin(pos * freq)));
      }
    }
    s.p.rope_cos = s.cos.data();
    s.p.rope_sin = s.sin.data();
  }
  if (c.bias == kAlibi) {
    for (int h = 0; h < c.heads; ++h)
      s.slopes.push_back(std::pow(0.5f, h + 1) * 4);
    s.p.alibi_slopes = s.slopes.data();
  } else if (c.bias == kRelative) {
    s.rel_buckets = 8;
    std::uniform_int_distribution<int> bucket(0, s.rel_buckets - 1);
    for (int t = 0; t < 2 * s.max_len - 1; ++t)
      s.buckets.push_back(bucket(rng));
    for (int t = 0; t < s.rel_buckets * c.heads; ++t)
      s.rel_table.push_back(normal(rng));
    s.p.rel_bucket = s.buckets.data();
    s.p.rel_table = s.rel_table.data();
    s.p.rel_buckets = s.rel_buckets;
  }
}

// Float64 evaluation of docs/numerics.md#attention for one head.
std::vector<double> Reference(const AttnSetup& s) {
  const Case& c = s.c;
  const int d_model = c.heads * c.d_k, ld = 3 * d_model;
  std::vector<double> out(static_cast<size_t>(c.batch) * c.seq * d_model, 0.0);
  auto rotate = [&](const float* x, int pos, std::vector<double>& r) {
    r.assign(x, x + c.d_k);
    if (c.rope == ENC_ROPE_NONE) return;
    const int half = c.d_k / 2;
    for (int k = 0; k < half; ++k) {
      const double cs = s.cos[pos * half + k], sn = s.sin[pos * half + k];
      const int ia = c.rope == ENC_ROPE_HALVES ? k : 2 * k;
      const int ib = c.rope == ENC_ROPE_HALVES ? k + half : 2 * k + 1;
      const double a = x[ia], b = x[ib];
      r[ia] = a * cs - b * sn;
      r[ib] = a * sn + b * cs;
    }
  };
  for (int b = 0; b < c.batch; ++b) {
    const int len = s.lengths[b];
    for (int h = 0; h < c.heads; ++h) {
      std::vector<std::vector<double>> K(len);
      for (int j = 0; j < len; ++j) {
        rotate(&s.qkv[(static_cast<size_t>(b) * c.seq + j) * ld + d_model +
                      h * c.d_k],
               j, K[j]);
      }
      for (int i = 0; i < len; ++i) {
        std::vector<double> q;
        rotate(&s.qkv[(static_cast<size_t>(b) * c.seq + i) * ld + h * c.d_k], i,
               q);
        std::vector<double> score(len);
        double m = -INFINITY;
        for (int j = 0; j < len; ++j) {
          if (c.window > 0 && std::abs(i - j) > c.window / 2) {
            score[j] = -INFINITY;  // outside the window: weight 0
            continue;
          }
          double dot = 0;
          for (int t = 0; t < c.d_k; ++t) dot += q[t] * K[j][t];
          dot /= std::sqrt(static_cast<double>(c.d_k));
          if (c.bias == kAlibi)
            dot += -static_cast<double>(s.slopes[h]) * std::abs(i - j);
          if (c.bias == kRelative) {
            dot += s.rel_table[s.buckets[j - i + s.max_len - 1] * c.heads + h];
          }
          score[j] = dot;
          m = std::max(m, dot);
        }
        double sum = 0;
        for (double& x : score) sum += (x = std::exp(x - m));
        for (int t = 0; t < c.d_k; ++t) {
          double acc = 0;
          for (int j = 0; j < len; ++j) {
            acc += score[j] * s.qkv[(static_cast<size_t>(b) * c.seq + j) * ld +
                                    2 * d_model + h * c.d_k + t];
          }
          out[(static_cast<size_t>(b) * c.seq + i) * d_model + h * c.d_k + t] =
              acc / sum;
        }
      }
    }
  }
  return out;
}

// The kernel works on the packed layout (enc/kernels/layout.h): valid rows
// only, sequence after sequence. packed_of[b * seq + i] is the packed row of
// position i of sequence b, or -1 for padding.
std::vector<int64_t> PackedRows(const AttnSetup& s) {
  std::vector<int64_t> packed_of;
  int64_t next = 0;
  for (int b = 0; b < s.c.batch; ++b) {
    for (int i = 0; i < s.c.seq; ++i)
      packed_of.push_back(i < s.lengths[b] ? next++ : -1);
  }
  return packed_of;
}

std::vector<float> PackQkv(const AttnSetup& s,
                           const std::vector<int64_t>& packed_of) {
  const int64_t ld = 3 * s.c.heads * s.c.d_k;
  std::vector<float> packed(s.qkv.size(),
                            NAN);  // rows past the valid ones: NaN
  for (size_t r = 0; r < packed_of.size(); ++r) {
    if (packed_of[r] < 0) continue;
    std::copy(s.qkv.begin() + r * ld, s.qkv.begin() + (r + 1) * ld,
              packed.begin() + packed_of[r] * ld);
  }
  return packed;
}

void RunCase(const Case& c, std::mt19937& rng) {
  AttnSetup s{c};
  Build(s, rng);
  const int d_model = c.heads * c.d_k;
  const std::vector<double> ref = Reference(s);
  const int64_t ld_out = d_model + 5;  // a stride wider than the row
  const std::vector<int64_t> packed_of = PackedRows(s);
  const std::vector<float> packed_qkv = PackQkv(s, packed_of);
  ForEachTarget([&] {
    std::vector<float> out(static_cast<size_t>(c.batch) * c.seq * ld_out, 7.0f);
    const float* qkv = packed_qkv.data();
    ASSERT_EQ(ENC_OK, enc_attention(&s.p, c.batch, c.seq,
                                    c.full ? nullptr : s.lengths.data(), qkv,
                                    qkv + d_model, qkv + 2 * d_model,
                                    3 * d_model, out.data(), ld_out))
        << enc_last_error();
    double worst = 0;
    int64_t valid = 0;
    for (int r = 0; r < c.batch * c.seq; ++r) {
      if (packed_of[r] < 0) continue;
      ++valid;
      for (int t = 0; t < ld_out; ++t) {
        const float got = out[static_cast<size_t>(packed_of[r]) * ld_out + t];
        if (t >= d_model) {
          ASSERT_EQ(got, 7.0f) << "padding column written, row " << r;
          continue;
        }
        const double want = ref[static_cast<size_t>(r) * d_model + t];
        ASSERT_TRUE(std::isfinite(got)) << "row " << r << " col " << t;
        const double err = std::abs(got - want) / std::max(1.0, std::abs(want));
        worst = std::max(worst, err);
        ASSERT_LE(err, 2e-5) << "row " << r << " col " << t << " got " << got
                             << " want " << want;
      }
    }
    // Rows past the valid ones are not written.
    for (size_t k = valid * ld_out; k < out.size(); ++k)
      ASSERT_EQ(out[k], 7.0f) << k;
    // In place over the queries (out == q, as the compiler plans a fused
    // QKV buffer): the same bits, and the keys and values untouched.
    std::vector<float> in_place = packed_qkv;
    float* q = in_place.data();
    ASSERT_EQ(ENC_OK,
              enc_attention(&s.p, c.batch, c.seq,
                            c.full ? nullptr : s.lengths.data(), q, q + d_model,
                            q + 2 * d_model, 3 * d_model, q, 3 * d_model))
        << enc_last_error();
    for (int64_t r = 0; r < valid; ++r) {
      for (int t = 0; t < 3 * d_model; ++t) {
        const float got = in_place[r * 3 * d_model + t];
        const float want =
            t < d_model ? out[r * ld_out + t] : packed_qkv[r * 3 * d_model + t];
        ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
            << "in place: row " << r << " col " << t;
      }
    }
  });
}

std::string Name(const Case& c) {
  return "heads " + std::to_string(c.heads) + " d_k " + std::to_string(c.d_k) +
         " seq " + std::to_string(c.seq) + " rope " + std::to_string(c.rope) +
         " bias " + std::to_string(c.bias) + " window " +
         std::to_string(c.window);
}

TEST(Attention, MatchesReferenceAcrossShapesRopeAndBias) {
  std::mt19937 rng(42);
  for (int d_k : {1, 3, 17, 64}) {
    for (int seq : {1, 5, 129}) {
      for (int rope : {ENC_ROPE_NONE, ENC_ROPE_HALVES, ENC_ROPE_INTERLEAVED}) {
        if (rope != ENC_ROPE_NONE && d_k % 2 != 0) continue;
        for (Bias bias : {kNoBias, kAlibi, kRelative}) {
          const Case c{d_k == 64 ? 2 : 3, d_k, seq, 4, rope, bias};
          SCOPED_TRACE(Name(c));
          RunCase(c, rng);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  // Odd d_k with RoPE needs an even d_k: exercise 2 and 18 too.
  for (int d_k : {2, 18}) {
    for (int rope : {ENC_ROPE_HALVES, ENC_ROPE_INTERLEAVED}) {
      const Case c{2, d_k, 33, 3, rope, kRelative};
      SCOPED_TRACE(Name(c));
      RunCase(c, rng);
    }
  }
}

// Around the per-target blocks: 6 query rows, key blocks of 16 (AVX2) and 64
// (AVX-512) keys, value panels of 16 and 64 columns with a one-vector rest.
TEST(Attention, BlockEdges) {
  std::mt19937 rng(7);
  for (int d_k : {8, 16, 24, 80}) {
    for (int seq : {6, 7, 16, 17, 63, 64, 65, 130}) {
      for (Bias bias : {kNoBias, kAlibi}) {
        const Case c{2, d_k, seq, 2, ENC_ROPE_NONE, bias, 1.0f, true};
        SCOPED_TRACE(Name(c));
        RunCase(c, rng);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Local attention: windows narrower and wider than the sequence, odd and
// even (window / 2 rounds down), of 1 (each query sees itself only), across
// the per-target blocks, with every bias and RoPE.
TEST(Attention, LocalWindowMatchesReference) {
  std::mt19937 rng(11);
  for (int window : {1, 2, 3, 8, 17, 64, 129, 400}) {
    for (int seq : {1, 5, 70, 200}) {
      for (Bias bias : {kNoBias, kAlibi, kRelative}) {
        for (int d_k : {8, 64}) {
          Case c{2, d_k, seq, 4, ENC_ROPE_HALVES, bias};
          c.window = window;
          SCOPED_TRACE(Name(c));
          RunCase(c, rng);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(Attention, SoftmaxExpIsAccurate) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  std::vector<float> xs;
  for (int i = 0; i <= 2000000; ++i) xs.push_back(-87.3f * i / 2000000.0f);
  for (float x : {0.0f, -0.0f, -1e-30f, -1e-7f, -0.3465f, -0.3466f, -87.29f})
    xs.push_back(x);
  for (float x : {-87.4f, -100.0f, -1e30f, -INFINITY}) xs.push_back(x);
  while (xs.size() % N) xs.push_back(0.0f);
  std::vector<float> ys(xs.size());
  for (size_t i = 0; i < xs.size(); i += N) {
    hn::StoreU(enc::HWY_NAMESPACE::ExpNonPositive(d, hn::LoadU(d, &xs[i])), d,
               &ys[i]);
  }
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp(static_cast<double>(xs[i]));
    if (xs[i] < -87.3f) {
      ASSERT_EQ(0.0f, ys[i]) << xs[i];
      continue;
    }
    const double rel = std::abs(ys[i] - want) / want;
    worst = std::max(worst, rel);
    ASSERT_LE(rel, 3e-7) << "exp(" << xs[i] << ") = " << ys[i] << ", want "
                         << want;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", worst);
  RecordProperty("worst_relative_error", text);
}

TEST(Attention, LargeScoresStayFinite) {
  std::mt19937 rng(7);
  Case c{2, 16, 40, 3, ENC_ROPE_NONE, kAlibi};
  c.q_scale = 30.0f;  // scores in the hundreds: exp would overflow unshifted
  RunCase(c, rng);
}

TEST(Attention, LongSequence) {
  std::mt19937 rng(9);
  RunCase(Case{2, 64, 300, 2, ENC_ROPE_HALVES, kNoBias}, rng);
}

TEST(Attention, NullLengthsMeanFull) {
  std::mt19937 rng(10);
  Case c{3, 17, 33, 2, ENC_ROPE_NONE, kRelative};
  c.full = true;
  RunCase(c, rng);
}

TEST(Attention, ConcurrentCallsFromSeveralThreads) {
  // Scratch is per thread: concurrent calls (as concurrent forward calls on
  // one model make) must not interfere.
  std::mt19937 rng(11);
  AttnSetup s{Case{4, 32, 97, 3, ENC_ROPE_INTERLEAVED, kAlibi}};
  Build(s, rng);
  const int d_model = 4 * 32;
  const std::vector<double> ref = Reference(s);
  const std::vector<int64_t> packed_of = PackedRows(s);
  const std::vector<float> packed_qkv = PackQkv(s, packed_of);
  std::vector<std::vector<float>> outs(4, std::vector<float>(3 * 97 * d_model));
  std::vector<std::thread> threads;
  std::vector<enc_status> status(4, ENC_ERR_IO);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5 && status[t] != ENC_ERR_INPUT; ++rep) {
        const float* qkv = packed_qkv.data();
        status[t] = enc_attention(&s.p, 3, 97, s.lengths.data(), qkv,
                                  qkv + d_model, qkv + 2 * d_model, 3 * d_model,
                                  outs[t].data(), d_model);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_EQ(ENC_OK, status[t]);
    for (size_t i = 0; i < ref.size(); ++i) {
      const int64_t r = packed_of[i / d_model];
      if (r < 0) continue;
      const float got = outs[t][r * d_model + i % d_model];
      ASSERT_NEAR(got, ref[i], 2e-5 * std::max(1.0, std::abs(ref[i])))
          << t << " " << i;
    }
  }
}

// Long sequences run head by head, every thread packing a share of the
// head's keys into shared panels and then scoring a share of its query rows
// (attention.cc). The same bits as one task per (sequence, head), with the
// probabilities, in place over q, for every bias, RoPE and window, with a
// batch that mixes both ways, on 1 to 3 threads.
TEST(Attention, HeadByHeadMatchesOneTaskPerHead) {
  std::mt19937 rng(21);
  const Case cases[] = {
      {3, 64, 140, 4, ENC_ROPE_HALVES, kNoBias},
      {2, 17, 77, 4, ENC_ROPE_NONE, kRelative},
      {2, 24, 131, 3, ENC_ROPE_INTERLEAVED, kAlibi, 1.0f, false, 20},
  };
  const int threads_before = enc_threads_count();
  for (const Case& c : cases) {
    SCOPED_TRACE(Name(c));
    AttnSetup s{c};
    Build(s, rng);
    const int d_model = c.heads * c.d_k;
    const std::vector<float> qkv = PackQkv(s, PackedRows(s));
    const size_t S = static_cast<size_t>(c.seq);
    // out over q; the probabilities of every (sequence, head), NaN first so
    // that an entry left unwritten shows.
    auto run = [&](int64_t split_from, std::vector<float>* out,
                   std::vector<float>* probs) {
      enc::SetAttentionSplitFromForTest(split_from);
      *out = qkv;
      probs->assign(static_cast<size_t>(c.batch) * c.heads * S * S, NAN);
      enc_attention_params p = s.p;
      p.probs = probs->data();
      float* q = out->data();
      const enc_status st =
          enc_attention(&p, c.batch, c.seq, s.lengths.data(), q, q + d_model,
                        q + 2 * d_model, 3 * d_model, q, 3 * d_model);
      enc::SetAttentionSplitFromForTest(0);
      ASSERT_EQ(ENC_OK, st) << enc_last_error();
    };
    for (int threads : {1, 2, 3}) {
      enc_set_num_threads(threads);
      ForEachTarget([&] {
        std::vector<float> out_tasks, probs_tasks;
        run(1 << 30, &out_tasks, &probs_tasks);  // never head by head
        for (int64_t split_from : {1, 40}) {
          SCOPED_TRACE("threads " + std::to_string(threads) + " split from " +
                       std::to_string(split_from));
          std::vector<float> out, probs;
          run(split_from, &out, &probs);
          ASSERT_EQ(0, std::memcmp(out.data(), out_tasks.data(),
                                   out.size() * sizeof(float)));
          for (size_t i = 0; i < probs.size(); ++i) {
            ASSERT_FALSE(std::isnan(probs[i])) << "probs[" << i << "] unset";
            ASSERT_EQ(0, std::memcmp(&probs[i], &probs_tasks[i], sizeof(float)))
                << "probs[" << i << "]";
          }
        }
      });
    }
  }
  enc_set_num_threads(threads_before);
}

// The online softmax visits the keys a tile at a time (kAttentionTileKeys;
// a test sets one key block, 16 or 64 keys): its running maximum grows from
// tile to tile (ALiBi, large scores), a local window starts and ends inside
// tiles, rows see no key in their first tiles. The outputs match the float64
// reference; the probabilities match the one-tile softmax's (checked against
// float64 in test/python/test_attention.py) and each valid row sums to 1.
TEST(Attention, TilesOfKeysMatchReference) {
  std::mt19937 rng(31);
  Case cases[] = {
      {2, 16, 200, 3, ENC_ROPE_HALVES, kNoBias},
      {2, 8, 150, 2, ENC_ROPE_NONE, kAlibi, 4.0f},
      {2, 24, 170, 2, ENC_ROPE_INTERLEAVED, kRelative},
      {3, 17, 133, 2, ENC_ROPE_NONE, kAlibi, 1.0f, false, 90},
      {2, 64, 210, 2, ENC_ROPE_HALVES, kRelative, 1.0f, false, 33},
      {2, 8, 96, 2, ENC_ROPE_NONE, kNoBias, 30.0f},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Name(c) + " q_scale " + std::to_string(c.q_scale));
    enc::SetAttentionTileKeysForTest(1);  // one key block per tile
    RunCase(c, rng);
    enc::SetAttentionTileKeysForTest(0);
    if (HasFatalFailure()) return;
    AttnSetup s{c};
    Build(s, rng);
    const int d_model = c.heads * c.d_k;
    const std::vector<float> qkv = PackQkv(s, PackedRows(s));
    const size_t S = static_cast<size_t>(c.seq);
    auto probs_with_tile = [&](int64_t tile_keys) {
      enc::SetAttentionTileKeysForTest(tile_keys);
      std::vector<float> out(qkv.size()),
          probs(static_cast<size_t>(c.batch) * c.heads * S * S, NAN);
      enc_attention_params p = s.p;
      p.probs = probs.data();
      const enc_status st =
          enc_attention(&p, c.batch, c.seq, s.lengths.data(), qkv.data(),
                        qkv.data() + d_model, qkv.data() + 2 * d_model,
                        3 * d_model, out.data(), d_model);
      enc::SetAttentionTileKeysForTest(0);
      EXPECT_EQ(ENC_OK, st) << enc_last_error();
      return probs;
    };
    ForEachTarget([&] {
      const std::vector<float> tiled = probs_with_tile(1);
      const std::vector<float> whole = probs_with_tile(1 << 20);
      for (int b = 0; b < c.batch; ++b) {
        for (int h = 0; h < c.heads; ++h) {
          for (int i = 0; i < s.lengths[b]; ++i) {
            const size_t row =
                ((static_cast<size_t>(b) * c.heads + h) * S + i) * S;
            double sum = 0;
            for (size_t j = 0; j < S; ++j) {
              const float got = tiled[row + j], want = whole[row + j];
              ASSERT_NEAR(got, want, 1e-6 + 1e-5 * std::abs(want))
                  << "b " << b << " h " << h << " i " << i << " j " << j;
              sum += got;
            }
            ASSERT_NEAR(sum, 1.0, 1e-5)
                << "b " << b << " h " << h << " i " << i;
          }
        }
      }
    });
    if (HasFatalFailure()) return;
  }
}

// Past one tile of the default size: 1,100 keys are three tiles of 512, a
// window of 700 spans two or three of them.
TEST(Attention, LongerThanOneTile) {
  std::mt19937 rng(32);
  RunCase(Case{2, 16, 1100, 1, ENC_ROPE_HALVES, kAlibi}, rng);
  if (HasFatalFailure()) return;
  RunCase(Case{2, 16, 1100, 1, ENC_ROPE_NONE, kRelative, 1.0f, false, 700},
          rng);
}

TEST(Attention, ZeroLengthsHaveNoRows) {
  enc_attention_params p{};
  p.heads = 2;
  p.d_k = 4;
  p.max_len = 8;
  p.scale = 0.5f;
  std::vector<float> qkv(3 * 8 * 3 * 8, NAN);  // never read for len 0
  std::vector<float> out(3 * 8 * 8, 5.0f);
  const int32_t lengths[3] = {0, 0, 0};
  ForEachTarget([&] {
    ASSERT_EQ(ENC_OK,
              enc_attention(&p, 3, 8, lengths, qkv.data(), qkv.data() + 8,
                            qkv.data() + 16, 24, out.data(), 8));
    for (float x : out) ASSERT_EQ(x, 5.0f);  // no rows: nothing written
  });
}

TEST(Attention, RejectsBadArguments) {
  enc_attention_params p{};
  p.heads = 2;
  p.d_k = 4;
  p.max_len = 8;
  p.scale = 0.5f;
  std::vector<float> qkv(8 * 24, 1.0f), out(8 * 8, 3.0f);
  const float* q = qkv.data();
  auto call = [&](const enc_attention_params* pp, int batch, int seq,
                  const int32_t* len, int64_t ld_in, int64_t ld_out, float* o) {
    return enc_attention(pp, batch, seq, len, q, q + 8, q + 16, ld_in, o,
                         ld_out);
  };
  EXPECT_EQ(ENC_OK, call(&p, 1, 8, nullptr, 24, 8, out.data()));
  std::fill(out.begin(), out.end(), 3.0f);
  auto expect_input_error = [&](enc_status s, const char* what) {
    EXPECT_EQ(ENC_ERR_INPUT, s) << what;
    EXPECT_STRNE("", enc_last_error()) << what;
  };
  expect_input_error(call(nullptr, 1, 8, nullptr, 24, 8, out.data()),
                     "null params");
  expect_input_error(call(&p, -1, 8, nullptr, 24, 8, out.data()), "batch");
  expect_input_error(call(&p, 1, 0, nullptr, 24, 8, out.data()), "seq 0");
  expect_input_error(call(&p, 1, 9, nullptr, 24, 8, out.data()),
                     "seq > max_len");
  expect_input_error(call(&p, 1, 8, nullptr, 7, 8, out.data()), "ld_in");
  expect_input_error(call(&p, 1, 8, nullptr, 24, 7, out.data()), "ld_out");
  expect_input_error(call(&p, 1, 8, nullptr, 24, 8, nullptr), "null out");
  expect_input_error(
      enc_attention(&p, 1, 8, nullptr, nullptr, q, q, 24, out.data(), 8),
      "null q");
  // out over q, k or v: only out == q (same stride, k and v other columns).
  float* qm = qkv.data();
  expect_input_error(call(&p, 1, 8, nullptr, 24, 24, qm + 8), "out over k");
  expect_input_error(call(&p, 1, 8, nullptr, 24, 24, qm + 4), "out across q");
  expect_input_error(call(&p, 1, 8, nullptr, 24, 8, qm), "out q, ld differs");
  expect_input_error(
      enc_attention(&p, 1, 8, nullptr, qm, qm + 4, qm + 16, 24, qm, 24),
      "out is q, k overlaps q's columns");
  EXPECT_EQ(ENC_OK,
            enc_attention(&p, 1, 8, nullptr, qm, qm + 8, qm + 16, 24, qm, 24))
      << enc_last_error();
  std::fill(qkv.begin(), qkv.end(), 1.0f);
  const int32_t bad_len[1] = {9}, neg_len[1] = {-1};
  expect_input_error(call(&p, 1, 8, bad_len, 24, 8, out.data()), "len > seq");
  expect_input_error(call(&p, 1, 8, neg_len, 24, 8, out.data()), "len < 0");
  enc_attention_params bad = p;
  bad.heads = 0;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()), "heads");
  bad = p;
  bad.d_k = -4;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()), "d_k");
  bad = p;
  bad.rope_style = 3;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()),
                     "rope style");
  bad = p;
  bad.window = -2;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()),
                     "window < 0");
  bad = p;
  bad.rope_style = ENC_ROPE_HALVES;  // tables missing
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()),
                     "rope tables");
  std::vector<float> table(8 * 2, 0.0f);
  bad.rope_cos = bad.rope_sin = table.data();
  bad.d_k = 3;
  bad.heads = 2;
  expect_input_error(
      enc_attention(&bad, 1, 8, nullptr, q, q, q, 24, out.data(), 8),
      "odd d_k with rope");
  bad = p;
  std::vector<int32_t> buckets(15, 0);
  buckets[14] = 4;
  std::vector<float> rel(4 * 2, 0.0f);
  bad.rel_bucket = buckets.data();
  bad.rel_table = rel.data();
  bad.rel_buckets = 4;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()),
                     "bucket range");
  bad.rel_table = nullptr;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()), "rel table");
  bad = p;
  bad.scale = NAN;
  expect_input_error(call(&bad, 1, 8, nullptr, 24, 8, out.data()), "scale");
  for (float x : out) ASSERT_EQ(x, 3.0f) << "a failing call wrote its output";
}

}  // namespace
