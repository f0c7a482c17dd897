// enc_gemm, enc_gemm_gated and their packing against a float64 reference, on
// every Highway target compiled into the runtime.
#include "enc/kernels/gemm.h"
#include "activation_reference.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "enc/kernels/threads.h"
#include "kernels/gemm.h"  // the packed layout, for PackedLayout
#include "src/dispatch.h"

namespace {

using enc_test::ActName;
using enc_test::RefAct;

std::vector<float> Random(size_t count, std::mt19937& rng, float scale = 1) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

struct PackedDeleter {
  void operator()(enc_packed_b* p) const { enc_gemm_packed_free(p); }
};
using Packed = std::unique_ptr<enc_packed_b, PackedDeleter>;

Packed Pack(const std::vector<float>& w, int64_t n, int64_t k) {
  enc_packed_b* p = nullptr;
  EXPECT_EQ(enc_gemm_pack(w.data(), n, k, &p), ENC_OK) << enc_last_error();
  return Packed(p);
}

// Runs one shape with every epilogue and checks each element against the
// float64 reference, within a tolerance relative to sum |x||w|.
void CheckShape(int64_t m, int64_t n, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t ldx = k + 3, ldy = n + 5, ldr = n + 2;
  const std::vector<float> x = Random(m * ldx, rng);
  const std::vector<float> w = Random(n * k, rng);
  const std::vector<float> bias = Random(n, rng);
  const std::vector<float> res = Random(m * ldr, rng);
  Packed packed = Pack(w, n, k);
  ASSERT_TRUE(packed);
  EXPECT_EQ(enc_gemm_packed_n(packed.get()), n);
  EXPECT_EQ(enc_gemm_packed_k(packed.get()), k);

  std::vector<double> dot(m * n), mag(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, a = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = double(x[i * ldx + l]) * w[j * k + l];
        s += p;
        a += std::fabs(p);
      }
      dot[i * n + j] = s;
      mag[i * n + j] = a;
    }
  }
  for (int use_bias = 0; use_bias < 2; ++use_bias) {
    for (int a = 0; a <= ENC_ACT_SILU; ++a) {
      for (int use_res = 0; use_res < 2; ++use_res) {
        const auto act = static_cast<enc_activation>(a);
        std::vector<float> y(m * ldy, 12345.0f);
        ASSERT_EQ(enc_gemm(m, x.data(), ldx, packed.get(),
                           use_bias ? bias.data() : nullptr, act,
                           use_res ? res.data() : nullptr, ldr, y.data(), ldy),
                  ENC_OK)
            << enc_last_error();
        int bad = 0;
        for (int64_t i = 0; i < m && bad < 5; ++i) {
          for (int64_t j = 0; j < ldy; ++j) {
            const float got = y[i * ldy + j];
            if (j >= n) {  // the padding between rows is untouched
              if (got != 12345.0f) ++bad;
              EXPECT_EQ(got, 12345.0f) << "row " << i << " col " << j;
              continue;
            }
            const double pre = dot[i * n + j] + (use_bias ? bias[j] : 0.0);
            double want = RefAct(pre, act);
            if (use_res) want += res[i * ldr + j];
            const double tol =
                2e-6 * (mag[i * n + j] + 1.0) + 1e-6 * std::fabs(want);
            if (!(std::fabs(got - want) <= tol)) {
              ++bad;
              ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                            << " bias=" << use_bias << " act=" << ActName(act)
                            << " res=" << use_res << " at (" << i << ", " << j
                            << "): got " << got << " want " << want;
            }
          }
        }
      }
    }
  }
}

class GemmTargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { enc::SetSupportedTargetsForTest(GetParam()); }
  void TearDown() override { enc::SetSupportedTargetsForTest(0); }
};

TEST_P(GemmTargetTest, ShapesAndEpilogues) {
  const int64_t shapes[][3] = {
      {1, 1, 1},
      {3, 17, 64},
      {17, 64, 3},
      {64, 3, 17},
      {769, 17, 3},
      {3, 769, 17},
      {17, 3, 769},
      {64, 64, 64},
      {1, 769, 64},
      {769, 64, 1},
      {64, 769, 769},
      {17, 48, 257},
      {9, 96, 512},
      {130, 100, 300},
      // Around the tiles (AVX2/SSE4 6 x 16 / 6 x 8, AVX-512 8 x 48): M, N
      // one below, at and one above a tile; K = 1 and 2.
      {5, 15, 1},
      {6, 16, 1},
      {7, 17, 2},
      {8, 48, 5},
      {9, 49, 3},
      {13, 95, 33},
      {12, 32, 7},
      {25, 47, 1},
      // Several K blocks (K above any L1-derived kc), with partial panels.
      {1, 1, 2500},
      {2, 1, 2500},
      {50, 100, 2500}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << "shape " << s[0] << "x" << s[1] << "x" << s[2]);
    CheckShape(s[0], s[1], s[2], seed++);
  }
}

// With k = 1 and w = 1 the product is exact, so this measures the activation
// itself: relative error within 2e-6 over [-12, 12] (~3e-7 with FMA).
TEST_P(GemmTargetTest, ActivationAccuracy) {
  const int64_t m = 4801;
  std::vector<float> x(m);
  for (int64_t i = 0; i < m; ++i) x[i] = -12.0f + 24.0f * i / (m - 1);
  x[m / 2] = 0.0f;
  const std::vector<float> w = {1.0f};
  Packed packed = Pack(w, 1, 1);
  for (int a = ENC_ACT_RELU; a <= ENC_ACT_SILU; ++a) {
    const auto act = static_cast<enc_activation>(a);
    std::vector<float> y(m);
    ASSERT_EQ(enc_gemm(m, x.data(), 1, packed.get(), nullptr, act, nullptr, 0,
                       y.data(), 1),
              ENC_OK);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i) {
      const double want = RefAct(x[i], act);
      const double err =
          std::fabs(y[i] - want) / std::max(std::fabs(want), 1e-30);
      if (std::fabs(want) > 1e-30) worst = std::max(worst, err);
      // Far tails underflow towards zero: an absolute bound there.
      EXPECT_LE(std::fabs(y[i] - want), 2e-6 * std::fabs(want) + 1e-12)
          << ActName(act) << "(" << x[i] << ")";
    }
    RecordProperty(std::string("max_rel_err_") + ActName(act),
                   std::to_string(worst));
  }
}

// Y = X W^T + bias + Y: the residual is read before any partial sum lands in
// Y, also across several K blocks and in a partial last panel.
void CheckResidualInPlace(int64_t m, int64_t n, int64_t k, int64_t ld) {
  std::mt19937 rng(7);
  const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng),
                           bias = Random(n, rng);
  std::vector<float> y = Random(m * ld, rng);
  const std::vector<float> y0 = y;
  Packed packed = Pack(w, n, k);
  ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), bias.data(), ENC_ACT_NONE,
                     y.data(), ld, y.data(), ld),
            ENC_OK)
      << enc_last_error();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = y0[i * ld + j] + bias[j], mag = 1;
      for (int64_t l = 0; l < k; ++l) {
        want += double(x[i * k + l]) * w[j * k + l];
        mag += std::fabs(double(x[i * k + l]) * w[j * k + l]);
      }
      ASSERT_NEAR(y[i * ld + j], want, 2e-6 * mag) << i << ", " << j;
    }
    for (int64_t j = n; j < ld; ++j) {
      ASSERT_EQ(y[i * ld + j], y0[i * ld + j]) << "padding " << i << ", " << j;
    }
  }
}

TEST_P(GemmTargetTest, ResidualInPlace) {
  CheckResidualInPlace(37, 100, 70, 104);
  CheckResidualInPlace(37, 100, 2500, 101);
  CheckResidualInPlace(1, 1, 1, 1);
}

// The packing of each target: its own panel width, and the layout of
// kernels/gemm.h (W column j of panel p at step kk, zeros past n).
TEST_P(GemmTargetTest, PackedLayout) {
  std::mt19937 rng(13);
  const int64_t shapes[][2] = {{1, 1}, {17, 5}, {100, 33}, {48, 2}};
  for (const auto& nk : shapes) {
    const int64_t n = nk[0], k = nk[1];
    const std::vector<float> w = Random(n * k, rng);
    Packed packed = Pack(w, n, k);
    ASSERT_TRUE(packed);
    const enc_packed_b& p = *packed;
    EXPECT_EQ(p.layout.target, GetParam());
    const int64_t width = p.layout.panel;
    ASSERT_GE(width, 1);
    ASSERT_LE(width, enc::kMaxGemmPanel);
    EXPECT_EQ(p.panels, (n + width - 1) / width);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data) % 64, 0u);
    for (int64_t panel = 0; panel < p.panels; ++panel) {
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int64_t j = 0; j < width; ++j) {
          const int64_t col = panel * width + j;
          const float want = col < n ? w[col * k + kk] : 0.0f;
          ASSERT_EQ(p.data[panel * k * width + kk * width + j], want)
              << "n " << n << " k " << k << " panel " << panel << " step " << kk
              << " column " << j;
        }
      }
    }
  }
}

// A split over two threads (panels, or row blocks when panels are few)
// computes every element the way one thread does: the same bits.
TEST_P(GemmTargetTest, SameBitsAtOneAndTwoThreads) {
  const int64_t shapes[][3] = {{128, 20, 64}, {200, 300, 40}, {13, 1000, 2500}};
  std::mt19937 rng(17);
  const int before = enc_threads_count();
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng),
                             bias = Random(n, rng);
    Packed packed = Pack(w, n, k);
    std::vector<float> y1(m * n), y2(m * n);
    enc_set_num_threads(1);
    ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), bias.data(), ENC_ACT_GELU,
                       nullptr, 0, y1.data(), n),
              ENC_OK);
    enc_set_num_threads(2);
    ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), bias.data(), ENC_ACT_GELU,
                       nullptr, 0, y2.data(), n),
              ENC_OK);
    EXPECT_EQ(y1, y2) << m << "x" << n << "x" << k;
  }
  enc_set_num_threads(before);
}

std::string TargetParamName(const ::testing::TestParamInfo<int64_t>& info) {
  return hwy::TargetName(info.param);
}

INSTANTIATE_TEST_SUITE_P(
    AllTargets, GemmTargetTest,
    ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()), TargetParamName);

// Several user threads run GEMMs at once (the pool serves one, the others run
// inline); every result is right.
TEST(GemmTest, ConcurrentCallers) {
  const int64_t m = 96, n = 144, k = 200;
  std::mt19937 rng(3);
  const std::vector<float> w = Random(n * k, rng);
  Packed packed = Pack(w, n, k);
  std::vector<std::vector<float>> xs;
  for (int t = 0; t < 4; ++t) xs.push_back(Random(m * k, rng));
  std::vector<std::vector<float>> want(4, std::vector<float>(m * n));
  for (int t = 0; t < 4; ++t) {
    ASSERT_EQ(enc_gemm(m, xs[t].data(), k, packed.get(), nullptr, ENC_ACT_NONE,
                       nullptr, 0, want[t].data(), n),
              ENC_OK);
  }
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> y(m * n);
      for (int rep = 0; rep < 50; ++rep) {
        if (enc_gemm(m, xs[t].data(), k, packed.get(), nullptr, ENC_ACT_NONE,
                     nullptr, 0, y.data(), n) != ENC_OK ||
            y != want[t]) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// A GEMM inside a parallel loop (as a kernel that splits heads might do) runs
// inline on its thread and still gets every element right.
TEST(GemmTest, InsideParallelFor) {
  const int64_t m = 40, n = 96, k = 64, parts = 6;
  std::mt19937 rng(11);
  const std::vector<float> w = Random(n * k, rng);
  const std::vector<float> x = Random(parts * m * k, rng);
  Packed packed = Pack(w, n, k);
  std::vector<float> want(parts * m * n), got(parts * m * n);
  ASSERT_EQ(enc_gemm(parts * m, x.data(), k, packed.get(), nullptr,
                     ENC_ACT_RELU, nullptr, 0, want.data(), n),
            ENC_OK);
  struct Ctx {
    const float* x;
    const enc_packed_b* w;
    float* y;
    int64_t m, n, k;
    std::atomic<int> failures{0};
  } ctx{x.data(), packed.get(), got.data(), m, n, k};
  enc_parallel_for(
      parts, 1,
      [](void* p, int64_t begin, int64_t end) {
        auto* c = static_cast<Ctx*>(p);
        for (int64_t i = begin; i < end; ++i) {
          if (enc_gemm(c->m, c->x + i * c->m * c->k, c->k, c->w, nullptr,
                       ENC_ACT_RELU, nullptr, 0, c->y + i * c->m * c->n,
                       c->n) != ENC_OK) {
            c->failures++;
          }
        }
      },
      &ctx);
  EXPECT_EQ(ctx.failures.load(), 0);
  EXPECT_EQ(got, want);
}

TEST(GemmTest, SameResultAtOneAndTwoThreads) {
  const int64_t m = 130, n = 200, k = 300;
  std::mt19937 rng(5);
  const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng);
  Packed packed = Pack(w, n, k);
  std::vector<float> y1(m * n), y2(m * n);
  const int before = enc_threads_count();
  enc_set_num_threads(1);
  ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), nullptr, ENC_ACT_GELU,
                     nullptr, 0, y1.data(), n),
            ENC_OK);
  enc_set_num_threads(2);
  ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), nullptr, ENC_ACT_GELU,
                     nullptr, 0, y2.data(), n),
            ENC_OK);
  enc_set_num_threads(before);
  EXPECT_EQ(y1, y2);
}

// --- validation ------------------------------------------------------------

class GemmValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(9);
    w_ = Random(n_ * k_, rng);
    x_ = Random(m_ * k_, rng);
    y_.assign(m_ * n_, 0.0f);
    res_.assign(m_ * n_, 0.0f);
    packed_ = Pack(w_, n_, k_);
  }
  void ExpectInputError(enc_status status, const char* needle) {
    EXPECT_EQ(status, ENC_ERR_INPUT);
    EXPECT_NE(std::string(enc_last_error()).find(needle), std::string::npos)
        << "message: " << enc_last_error();
  }
  const int64_t m_ = 4, n_ = 5, k_ = 6;
  std::vector<float> w_, x_, y_, res_;
  Packed packed_;
};

TEST_F(GemmValidationTest, Pack) {
  enc_packed_b* p = reinterpret_cast<enc_packed_b*>(&p);
  ExpectInputError(enc_gemm_pack(nullptr, 2, 2, &p), "w is NULL");
  EXPECT_EQ(p, nullptr);
  ExpectInputError(enc_gemm_pack(w_.data(), 2, 2, nullptr), "out is NULL");
  ExpectInputError(enc_gemm_pack(w_.data(), 0, 2, &p), "empty");
  ExpectInputError(enc_gemm_pack(w_.data(), 2, 0, &p), "empty");
  ExpectInputError(enc_gemm_pack(w_.data(), -1, 2, &p), "empty");
  EXPECT_EQ(p, nullptr);
  enc_gemm_packed_free(nullptr);  // a no-op
}

TEST_F(GemmValidationTest, PackPartsEqualsPackOfConcatenation) {
  // A fused Q|K|V packed from its three tensors is the packing of their row
  // concatenation, whatever the part boundaries are relative to the panels.
  std::mt19937 rng(21);
  const int64_t k = 37;
  const int64_t rows[3] = {50, 7, 96};
  std::vector<float> cat;
  std::vector<std::vector<float>> parts;
  for (int64_t r : rows) {
    parts.push_back(Random(r * k, rng));
    cat.insert(cat.end(), parts.back().begin(), parts.back().end());
  }
  const float* ptrs[3] = {parts[0].data(), parts[1].data(), parts[2].data()};
  const int64_t n = rows[0] + rows[1] + rows[2];
  Packed whole = Pack(cat, n, k);
  enc_packed_b* p = nullptr;
  ASSERT_EQ(ENC_OK, enc_gemm_pack_parts(3, ptrs, rows, k, &p))
      << enc_last_error();
  Packed fused(p);
  const int64_t m = 5;
  const std::vector<float> x = Random(m * k, rng);
  std::vector<float> y1(m * n), y2(m * n);
  ASSERT_EQ(ENC_OK, enc_gemm(m, x.data(), k, whole.get(), nullptr, ENC_ACT_NONE,
                             nullptr, 0, y1.data(), n));
  ASSERT_EQ(ENC_OK, enc_gemm(m, x.data(), k, fused.get(), nullptr, ENC_ACT_NONE,
                             nullptr, 0, y2.data(), n));
  EXPECT_EQ(y1, y2);
  ExpectInputError(enc_gemm_pack_parts(0, ptrs, rows, k, &p), "num_parts");
  ExpectInputError(enc_gemm_pack_parts(4, ptrs, rows, k, &p), "num_parts");
  const float* with_null[2] = {ptrs[0], nullptr};
  ExpectInputError(enc_gemm_pack_parts(2, with_null, rows, k, &p), "w is NULL");
}

TEST_F(GemmValidationTest, Gemm) {
  const enc_packed_b* w = packed_.get();
  float* y = y_.data();
  const float* x = x_.data();
  ExpectInputError(
      enc_gemm(m_, x, k_, nullptr, nullptr, ENC_ACT_NONE, nullptr, 0, y, n_),
      "w is NULL");
  ExpectInputError(
      enc_gemm(-1, x, k_, w, nullptr, ENC_ACT_NONE, nullptr, 0, y, n_),
      "negative");
  ExpectInputError(
      enc_gemm(m_, nullptr, k_, w, nullptr, ENC_ACT_NONE, nullptr, 0, y, n_),
      "x is NULL");
  ExpectInputError(
      enc_gemm(m_, x, k_, w, nullptr, ENC_ACT_NONE, nullptr, 0, nullptr, n_),
      "y is NULL");
  ExpectInputError(
      enc_gemm(m_, x, k_ - 1, w, nullptr, ENC_ACT_NONE, nullptr, 0, y, n_),
      "ldx");
  ExpectInputError(
      enc_gemm(m_, x, k_, w, nullptr, ENC_ACT_NONE, nullptr, 0, y, n_ - 1),
      "ldy");
  ExpectInputError(
      enc_gemm(m_, x, k_, w, nullptr, ENC_ACT_NONE, res_.data(), n_ - 1, y, n_),
      "ldr");
  ExpectInputError(enc_gemm(m_, x, k_, w, nullptr,
                            static_cast<enc_activation>(7), nullptr, 0, y, n_),
                   "activation");
  ExpectInputError(enc_gemm(m_, x, k_, w, nullptr,
                            static_cast<enc_activation>(-1), nullptr, 0, y, n_),
                   "activation");
  // Overlaps: x with y; residual partly over y; residual == y with an act.
  std::vector<float> buf(m_ * (k_ + n_) * 2);
  ExpectInputError(enc_gemm(m_, buf.data(), k_, w, nullptr, ENC_ACT_NONE,
                            nullptr, 0, buf.data() + 3, n_),
                   "x overlaps y");
  ExpectInputError(
      enc_gemm(m_, x, k_, w, nullptr, ENC_ACT_NONE, y + 1, n_, y, n_),
      "residual overlaps y");
  ExpectInputError(enc_gemm(m_, x, k_, w, nullptr, ENC_ACT_GELU, y, n_, y, n_),
                   "without an activation");
  // Nothing was written by the failing calls.
  for (float v : y_) EXPECT_EQ(v, 0.0f);
  // m == 0 is a valid no-op, even without buffers.
  EXPECT_EQ(enc_gemm(0, nullptr, k_, w, nullptr, ENC_ACT_NONE, nullptr, 0,
                     nullptr, n_),
            ENC_OK);
}

// --- the gated GEMM
// -----------------------------------------------------------

struct GatedDeleter {
  void operator()(enc_packed_gated* p) const { enc_gemm_gated_free(p); }
};
using PackedGated = std::unique_ptr<enc_packed_gated, GatedDeleter>;

PackedGated PackGated(const std::vector<float>& gate,
                      const std::vector<float>& up, int64_t n, int64_t k) {
  enc_packed_gated* p = nullptr;
  EXPECT_EQ(enc_gemm_pack_gated(gate.data(), up.data(), n, k, &p), ENC_OK)
      << enc_last_error();
  return PackedGated(p);
}

// Y = act(X Wg^T + bg) * (X Wu^T + bu) with every activation and each
// combination of biases, against float64: each element within a bound from
// the magnitudes of its two dot products; the padding between rows of Y is
// untouched.
void CheckGatedShape(int64_t m, int64_t n, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t ldx = k + 1, ldy = n + 3;
  const std::vector<float> x = Random(m * ldx, rng);
  const std::vector<float> wg = Random(n * k, rng), wu = Random(n * k, rng);
  const std::vector<float> bg = Random(n, rng), bu = Random(n, rng);
  PackedGated packed = PackGated(wg, wu, n, k);
  ASSERT_TRUE(packed);
  EXPECT_EQ(enc_gemm_gated_n(packed.get()), n);
  EXPECT_EQ(enc_gemm_gated_k(packed.get()), k);

  std::vector<double> g(m * n), u(m * n), mag_g(m * n), mag_u(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sg = 0, su = 0, ag = 0, au = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double xv = x[i * ldx + l];
        sg += xv * wg[j * k + l];
        su += xv * wu[j * k + l];
        ag += std::fabs(xv * wg[j * k + l]);
        au += std::fabs(xv * wu[j * k + l]);
      }
      g[i * n + j] = sg;
      u[i * n + j] = su;
      mag_g[i * n + j] = ag;
      mag_u[i * n + j] = au;
    }
  }
  for (int biases = 0; biases < 4; ++biases) {  // bit 0: gate, bit 1: up
    const bool use_bg = biases & 1, use_bu = biases & 2;
    for (int a = 0; a <= ENC_ACT_SILU; ++a) {
      const auto act = static_cast<enc_activation>(a);
      std::vector<float> y(m * ldy, 12345.0f);
      ASSERT_EQ(
          enc_gemm_gated(m, x.data(), ldx, packed.get(),
                         use_bg ? bg.data() : nullptr,
                         use_bu ? bu.data() : nullptr, act, y.data(), ldy),
          ENC_OK)
          << enc_last_error();
      int bad = 0;
      for (int64_t i = 0; i < m && bad < 5; ++i) {
        for (int64_t j = 0; j < ldy; ++j) {
          const float got = y[i * ldy + j];
          if (j >= n) {
            if (got != 12345.0f) ++bad;
            EXPECT_EQ(got, 12345.0f) << "row " << i << " col " << j;
            continue;
          }
          const double gate =
              RefAct(g[i * n + j] + (use_bg ? bg[j] : 0.0), act);
          const double up = u[i * n + j] + (use_bu ? bu[j] : 0.0);
          const double want = gate * up;
          // The activations' slopes stay below 1.2: an error e in the gate's
          // sum moves the product by at most 1.2 e |up|.
          const double tol =
              2e-6 * ((mag_g[i * n + j] + 1.0) * 1.2 * (std::fabs(up) + 1.0) +
                      (mag_u[i * n + j] + 1.0) * (std::fabs(gate) + 1.0)) +
              1e-6 * std::fabs(want);
          if (!(std::fabs(got - want) <= tol)) {
            ++bad;
            ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                          << " bias_gate=" << use_bg << " bias_up=" << use_bu
                          << " act=" << ActName(act) << " at (" << i << ", "
                          << j << "): got " << got << " want " << want;
          }
        }
      }
    }
  }
}

TEST_P(GemmTargetTest, GatedShapesAndActivations) {
  const int64_t shapes[][3] = {
      {1, 1, 1},
      {1, 1, 2},
      {2, 3, 1},
      {3, 17, 64},
      {17, 3, 33},
      // Around the gated tiles (AVX2/SSE4 6 rows x 8 / 4 outputs, AVX-512
      // 6 x 32): M, N one below, at and one above; K = 1 and 2.
      {5, 7, 1},
      {6, 8, 1},
      {7, 9, 2},
      {11, 31, 3},
      {12, 32, 5},
      {13, 33, 2},
      {25, 47, 1},
      {64, 64, 64},
      {130, 100, 300},
      // Several K blocks (partial sums between them), with partial panels.
      {1, 1, 2500},
      {7, 9, 2500},
      {50, 70, 2500}};
  uint32_t seed = 100;
  for (const auto& s : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << "shape " << s[0] << "x" << s[1] << "x" << s[2]);
    CheckGatedShape(s[0], s[1], s[2], seed++);
  }
}

// The gated packing of each target: panel p holds, in its first half, gate
// rows [p * half, (p + 1) * half) and in its second half the up rows of the
// same outputs, zero past n.
TEST_P(GemmTargetTest, GatedPackedLayout) {
  std::mt19937 rng(23);
  const int64_t shapes[][2] = {{1, 1}, {9, 5}, {100, 33}, {32, 2}};
  for (const auto& nk : shapes) {
    const int64_t n = nk[0], k = nk[1];
    const std::vector<float> wg = Random(n * k, rng), wu = Random(n * k, rng);
    PackedGated packed = PackGated(wg, wu, n, k);
    ASSERT_TRUE(packed);
    const enc_packed_b& p = packed->packed;
    EXPECT_EQ(p.layout.target, GetParam());
    const int64_t width = p.layout.panel, half = width / 2;
    ASSERT_EQ(width % 2, 0);
    ASSERT_LE(width, enc::kMaxGemmPanel);
    EXPECT_EQ(p.n, n);
    EXPECT_EQ(p.panels, (n + half - 1) / half);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data) % 64, 0u);
    for (int64_t panel = 0; panel < p.panels; ++panel) {
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int64_t j = 0; j < width; ++j) {
          const int64_t row = panel * half + j % half;
          const std::vector<float>& w = j < half ? wg : wu;
          const float want = row < n ? w[row * k + kk] : 0.0f;
          ASSERT_EQ(p.data[panel * k * width + kk * width + j], want)
              << "n " << n << " k " << k << " panel " << panel << " step " << kk
              << " column " << j;
        }
      }
    }
  }
}

// The gated GEMM split over two threads gives the same bits as one thread,
// also with several K blocks (each thread its own partial sums).
TEST_P(GemmTargetTest, GatedSameBitsAtOneAndTwoThreads) {
  const int64_t shapes[][3] = {{128, 20, 64}, {200, 300, 40}, {13, 500, 2500}};
  std::mt19937 rng(29);
  const int before = enc_threads_count();
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const std::vector<float> x = Random(m * k, rng), wg = Random(n * k, rng),
                             wu = Random(n * k, rng), b = Random(n, rng);
    PackedGated packed = PackGated(wg, wu, n, k);
    std::vector<float> y1(m * n), y2(m * n);
    enc_set_num_threads(1);
    ASSERT_EQ(enc_gemm_gated(m, x.data(), k, packed.get(), b.data(), b.data(),
                             ENC_ACT_SILU, y1.data(), n),
              ENC_OK);
    enc_set_num_threads(2);
    ASSERT_EQ(enc_gemm_gated(m, x.data(), k, packed.get(), b.data(), b.data(),
                             ENC_ACT_SILU, y2.data(), n),
              ENC_OK);
    EXPECT_EQ(y1, y2) << m << "x" << n << "x" << k;
  }
  enc_set_num_threads(before);
}

TEST_F(GemmValidationTest, Gated) {
  enc_packed_gated* p = reinterpret_cast<enc_packed_gated*>(&p);
  const float* w = w_.data();
  ExpectInputError(enc_gemm_pack_gated(nullptr, w, 2, 2, &p), "w is NULL");
  EXPECT_EQ(p, nullptr);
  ExpectInputError(enc_gemm_pack_gated(w, nullptr, 2, 2, &p), "w is NULL");
  ExpectInputError(enc_gemm_pack_gated(w, w, 2, 2, nullptr), "out is NULL");
  ExpectInputError(enc_gemm_pack_gated(w, w, 0, 2, &p), "empty");
  ExpectInputError(enc_gemm_pack_gated(w, w, 2, 0, &p), "empty");
  EXPECT_EQ(p, nullptr);
  enc_gemm_gated_free(nullptr);  // a no-op
  EXPECT_EQ(enc_gemm_gated_n(nullptr), 0);

  // Gate and up [n_, k_] from the fixture's W (n_ * k_ floats).
  ASSERT_EQ(enc_gemm_pack_gated(w, w, n_, k_, &p), ENC_OK) << enc_last_error();
  PackedGated packed(p);
  float* y = y_.data();
  const float* x = x_.data();
  ExpectInputError(
      enc_gemm_gated(m_, x, k_, nullptr, nullptr, nullptr, ENC_ACT_NONE, y, n_),
      "enc_gemm_gated: w is NULL");
  ExpectInputError(
      enc_gemm_gated(-1, x, k_, p, nullptr, nullptr, ENC_ACT_NONE, y, n_),
      "negative");
  ExpectInputError(
      enc_gemm_gated(m_, nullptr, k_, p, nullptr, nullptr, ENC_ACT_NONE, y, n_),
      "x is NULL");
  ExpectInputError(
      enc_gemm_gated(m_, x, k_, p, nullptr, nullptr, ENC_ACT_NONE, nullptr, n_),
      "y is NULL");
  ExpectInputError(
      enc_gemm_gated(m_, x, k_ - 1, p, nullptr, nullptr, ENC_ACT_NONE, y, n_),
      "ldx");
  ExpectInputError(
      enc_gemm_gated(m_, x, k_, p, nullptr, nullptr, ENC_ACT_NONE, y, n_ - 1),
      "ldy");
  ExpectInputError(enc_gemm_gated(m_, x, k_, p, nullptr, nullptr,
                                  static_cast<enc_activation>(9), y, n_),
                   "activation");
  std::vector<float> buf(m_ * (k_ + n_) * 2);
  ExpectInputError(enc_gemm_gated(m_, buf.data(), k_, p, nullptr, nullptr,
                                  ENC_ACT_NONE, buf.data() + 3, n_),
                   "x overlaps y");
  for (float v : y_) EXPECT_EQ(v, 0.0f);  // nothing written
  EXPECT_EQ(enc_gemm_gated(0, nullptr, k_, p, nullptr, nullptr, ENC_ACT_NONE,
                           nullptr, n_),
            ENC_OK);
}

}  // namespace
