// enc_gemm on matrices packed with precision = int8, on every Highway target
// compiled into the runtime, against a scalar reference that quantizes the
// same way (kernels/gemm_int8.h): the int32 sums are exact, so only the fp32
// epilogue rounds and the comparison is tight.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/gemm.h"
#include "activation_reference.h"
#include "enc/kernels/threads.h"
#include "kernels/gemm.h"  // the packed int8 layout
#include "amx_params.h"
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

Packed PackInt8(const std::vector<float>& w, int64_t n, int64_t k) {
  enc_packed_b* p = nullptr;
  const float* part = w.data();
  EXPECT_EQ(enc_gemm_pack_parts_as(ENC_PRECISION_INT8, 1, &part, &n, k, &p),
            ENC_OK)
      << enc_last_error();
  return Packed(p);
}

// One row quantized as the runtime documents it: scale max |v| / 127, values
// round(v * (127 / max)) (to nearest even), in [-127, 127].
struct QuantRow {
  float scale;
  std::vector<int32_t> q;
};

QuantRow Quantize(const float* v, int64_t k) {
  float max = 0;
  for (int64_t i = 0; i < k; ++i) max = std::max(max, std::fabs(v[i]));
  QuantRow r{max / 127, std::vector<int32_t>(k)};
  const float inv = max > 0 ? 127 / max : 0.0f;
  for (int64_t i = 0; i < k; ++i) {
    r.q[i] = static_cast<int32_t>(std::nearbyint(v[i] * inv));
  }
  return r;
}

// Y as the int8 GEMM defines it, in float64 from the exact int32 sums.
struct Reference {
  std::vector<double> product;  // x_scale * w_scale * sum, [m, n]

  Reference(const std::vector<float>& x, int64_t ldx,
            const std::vector<float>& w, int64_t m, int64_t n, int64_t k)
      : product(m * n) {
    std::vector<QuantRow> wq;
    for (int64_t j = 0; j < n; ++j) wq.push_back(Quantize(&w[j * k], k));
    for (int64_t i = 0; i < m; ++i) {
      const QuantRow xq = Quantize(&x[i * ldx], k);
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += int64_t{xq.q[l]} * wq[j].q[l];
        product[i * n + j] = double(xq.scale) * wq[j].scale * double(sum);
      }
    }
  }
};

using enc_test::kAmx;

// Each Highway target alone, without AMX; kAmx: AVX3_DL with AMX, where
// the CPU, the OS and the process's permission allow it (else skipped).
class GemmInt8Test : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    if (GetParam() == kAmx) {
      if ((enc::CpuAmx() & enc::kAmxInt8) == 0 ||
          (enc::CpuTargets() & HWY_AVX3_DL) == 0) {
        GTEST_SKIP() << "no AMX-INT8 here";
      }
      enc::SetSupportedTargetsForTest(HWY_AVX3_DL);
      enc::SetAmxForTest(enc::kAmxInt8);
      ASSERT_EQ(enc::SupportedAmx(), enc::kAmxInt8);
    } else {
      enc::SetSupportedTargetsForTest(GetParam());
      enc::SetAmxForTest(0);
    }
  }
  void TearDown() override {
    enc::SetSupportedTargetsForTest(0);
    enc::SetAmxForTest(-1);
  }
  // The groups of 4 K steps a packed matrix of k columns holds.
  static int64_t Groups(int64_t k) {
    const int64_t multiple = GetParam() == kAmx ? 16 : 1;
    return ((k + 3) / 4 + multiple - 1) / multiple * multiple;
  }
};

// Every epilogue (bias or not, each activation, residual or not) on one
// shape, each element within a few fp32 roundings of the reference.
void CheckShape(int64_t target, int64_t m, int64_t n, int64_t k,
                uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t ldx = k + 3, ldy = n + 5, ldr = n + 2;
  const std::vector<float> x = Random(m * ldx, rng);
  const std::vector<float> w = Random(n * k, rng, 0.5f);
  const std::vector<float> bias = Random(n, rng);
  const std::vector<float> res = Random(m * ldr, rng);
  Packed packed = PackInt8(w, n, k);
  ASSERT_TRUE(packed);
  EXPECT_EQ(enc_gemm_packed_precision(packed.get()), ENC_PRECISION_INT8);
  EXPECT_EQ(enc_gemm_packed_n(packed.get()), n);
  EXPECT_EQ(enc_gemm_packed_k(packed.get()), k);
  EXPECT_EQ(packed->int8.kernel.target, target);
  const Reference ref(x, ldx, w, m, n, k);

  for (int use_bias = 0; use_bias < 2; ++use_bias) {
    for (int a = ENC_ACT_NONE; a <= ENC_ACT_SILU; ++a) {
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
          for (int64_t j = 0; j < ldy && bad < 5; ++j) {
            const float got = y[i * ldy + j];
            if (j >= n) {  // the padding between rows is untouched
              if (got != 12345.0f) {
                ++bad;
                ADD_FAILURE()
                    << "padding written at (" << i << ", " << j << ")";
              }
              continue;
            }
            const double prod = ref.product[i * n + j];
            const double pre = prod + (use_bias ? bias[j] : 0.0);
            double want = RefAct(pre, act);
            if (use_res) want += res[i * ldr + j];
            // The fp32 epilogue: int32 -> float, two products, the bias,
            // the activation (within 2e-6, gemm_test) and the residual.
            const double tol =
                4e-6 * (std::fabs(prod) + std::fabs(pre) + std::fabs(want)) +
                1e-6;
            if (!(std::fabs(got - want) <= tol)) {
              ++bad;
              ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                            << " bias=" << use_bias << " act=" << a
                            << " res=" << use_res << " at (" << i << ", " << j
                            << "): got " << got << " want " << want;
            }
          }
        }
      }
    }
  }
}

TEST_P(GemmInt8Test, ShapesAndEpilogues) {
  const int64_t shapes[][3] = {
      // 1 x 1, k = 1, k not a multiple of 4 (the zero-padded last group).
      {1, 1, 1},
      {1, 1, 3},
      {2, 3, 1},
      {3, 5, 2},
      {4, 7, 5},
      {1, 9, 6},
      // Around the tiles (AVX2 4 x 16, SSE4 4 x 8, AVX-512 8 x 48): M, N one
      // below, at and one above a tile.
      {3, 15, 4},
      {4, 16, 8},
      {5, 17, 9},
      {7, 47, 13},
      {8, 48, 16},
      {9, 49, 31},
      {12, 96, 64},
      {13, 97, 67},
      // Larger: several panel chunks and row tiles, a partial last panel.
      {37, 100, 130},
      {64, 200, 257},
      {130, 70, 768},
      {6, 33, 3001},
      // Around AMX's tiles (16 rows, 64 K steps, a panel of 3 x 16
      // columns): M and K one below, at and one above.
      {15, 48, 63},
      {16, 49, 64},
      {17, 95, 65},
      {31, 144, 128},
      {33, 145, 129}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << "shape " << s[0] << "x" << s[1] << "x" << s[2]);
    CheckShape(GetParam() == kAmx ? HWY_AVX3_DL : GetParam(), s[0], s[1], s[2],
               seed++);
  }
}

// The packed layout of each target: s8 groups of 4 K steps per column, zero
// past n and k, the per-row scales and the rows' sums.
TEST_P(GemmInt8Test, PackedLayout) {
  std::mt19937 rng(13);
  const int64_t shapes[][2] = {{1, 1}, {17, 5}, {100, 33}, {48, 2}};
  for (const auto& nk : shapes) {
    const int64_t n = nk[0], k = nk[1];
    const std::vector<float> w = Random(n * k, rng, 3.0f);
    Packed packed = PackInt8(w, n, k);
    ASSERT_TRUE(packed);
    const enc::Int8Panels& q = packed->int8;
    const int64_t width = q.kernel.panel;
    ASSERT_GE(width, 1);
    EXPECT_EQ(packed->panels, (n + width - 1) / width);
    EXPECT_EQ(q.groups, Groups(k));
    EXPECT_EQ(q.kernel.group_multiple, GetParam() == kAmx ? 16 : 1);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q.panels) % 64, 0u);
    for (int64_t col = 0; col < packed->panels * width; ++col) {
      const int64_t p = col / width, j = col % width;
      QuantRow want{0.0f, std::vector<int32_t>(k, 0)};
      if (col < n) want = Quantize(&w[col * k], k);
      EXPECT_EQ(q.scales[col], want.scale) << "column " << col;
      int32_t sum = 0;
      for (int64_t kk = 0; kk < q.groups * 4; ++kk) {
        const int8_t got = q.panels[p * q.groups * width * 4 +
                                    ((kk / 4) * width + j) * 4 + kk % 4];
        const int32_t expect = kk < k ? want.q[kk] : 0;
        ASSERT_EQ(got, expect)
            << "n " << n << " k " << k << " column " << col << " step " << kk;
        sum += got;
      }
      EXPECT_EQ(q.sums[col], sum) << "column " << col;
    }
  }
}

// Y = X W^T + bias + Y, in place.
TEST_P(GemmInt8Test, ResidualInPlace) {
  const int64_t m = 21, n = 50, k = 70, ld = 53;
  std::mt19937 rng(7);
  const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng),
                           bias = Random(n, rng);
  std::vector<float> y = Random(m * ld, rng);
  const std::vector<float> y0 = y;
  Packed packed = PackInt8(w, n, k);
  ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), bias.data(), ENC_ACT_NONE,
                     y.data(), ld, y.data(), ld),
            ENC_OK)
      << enc_last_error();
  const Reference ref(x, k, w, m, n, k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double want = ref.product[i * n + j] + bias[j] + y0[i * ld + j];
      ASSERT_NEAR(y[i * ld + j], want, 1e-5 * (1 + std::fabs(want)))
          << i << ", " << j;
    }
    for (int64_t j = n; j < ld; ++j) ASSERT_EQ(y[i * ld + j], y0[i * ld + j]);
  }
}

// One row of X is split over threads by rows and panels: the same bits at
// one and two threads.
TEST_P(GemmInt8Test, SameBitsAtOneAndTwoThreads) {
  const int64_t shapes[][3] = {{128, 20, 64}, {200, 300, 40}, {13, 1000, 700}};
  std::mt19937 rng(17);
  const int before = enc_threads_count();
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng),
                             bias = Random(n, rng);
    Packed packed = PackInt8(w, n, k);
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

// Rows of zeros (scale 0), and a NaN in a row of X: the row's outputs are
// NaN, the other rows are right.
TEST_P(GemmInt8Test, ZeroRowsAndNonFiniteInput) {
  const int64_t m = 3, n = 5, k = 9;
  std::mt19937 rng(5);
  std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng);
  std::fill(w.begin() + 2 * k, w.begin() + 3 * k, 0.0f);  // W row 2
  std::fill(x.begin(), x.begin() + k, 0.0f);              // X row 0
  x[2 * k + 4] = NAN;                                     // X row 2
  Packed packed = PackInt8(w, n, k);
  std::vector<float> y(m * n);
  ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), nullptr, ENC_ACT_NONE,
                     nullptr, 0, y.data(), n),
            ENC_OK);
  const Reference ref(x, k, w, 2, n, k);  // rows 0 and 1 only
  for (int64_t j = 0; j < n; ++j) {
    EXPECT_EQ(y[j], 0.0f) << j;
    EXPECT_TRUE(std::isnan(y[2 * n + j])) << j;
    EXPECT_NEAR(y[n + j], ref.product[n + j], 1e-5) << j;
  }
  EXPECT_EQ(y[n + 2], 0.0f);
}

INSTANTIATE_TEST_SUITE_P(AllTargets, GemmInt8Test,
                         ::testing::ValuesIn(enc_test::TargetsAndAmx()),
                         enc_test::TargetParamName);

// AMX computes the int32 sums exactly, as VNNI does, and shares its
// epilogue: the two paths give the same bits.
TEST(GemmInt8Amx, SameBitsAsVnni) {
  if ((enc::CpuAmx() & enc::kAmxInt8) == 0 ||
      (enc::CpuTargets() & HWY_AVX3_DL) == 0) {
    GTEST_SKIP() << "no AMX-INT8 here";
  }
  const int64_t m = 77, n = 200, k = 300;
  std::mt19937 rng(21);
  const std::vector<float> x = Random(m * k, rng), w = Random(n * k, rng);
  const std::vector<float> bias = Random(n, rng);
  enc::SetSupportedTargetsForTest(HWY_AVX3_DL);
  std::vector<float> y[2];
  for (int amx = 0; amx < 2; ++amx) {
    enc::SetAmxForTest(amx ? enc::kAmxInt8 : 0);
    Packed packed = PackInt8(w, n, k);
    ASSERT_TRUE(packed);
    EXPECT_EQ(packed->int8.kernel.group_multiple, amx ? 16 : 1);
    y[amx].assign(m * n, 0.0f);
    ASSERT_EQ(enc_gemm(m, x.data(), k, packed.get(), bias.data(), ENC_ACT_GELU,
                       nullptr, 0, y[amx].data(), n),
              ENC_OK)
        << enc_last_error();
  }
  enc::SetAmxForTest(-1);
  enc::SetSupportedTargetsForTest(0);
  EXPECT_EQ(std::memcmp(y[0].data(), y[1].data(), y[0].size() * sizeof(float)),
            0);
}

// Weights that int8 cannot scale, and a precision that is not one.
TEST(GemmInt8Validation, Pack) {
  std::vector<float> w(12, 1.0f);
  w[7] = INFINITY;
  const float* part = w.data();
  const int64_t rows = 3;
  enc_packed_b* p = reinterpret_cast<enc_packed_b*>(&p);
  EXPECT_EQ(enc_gemm_pack_parts_as(ENC_PRECISION_INT8, 1, &part, &rows, 4, &p),
            ENC_ERR_INPUT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(enc_last_error()).find("row 1 of W is not finite"),
            std::string::npos)
      << enc_last_error();
  w[7] = 1.0f;
  // 3: not a precision, yet a value an enc_precision can hold in C++ (its
  // values' bit range is 0..3), so passing it is defined here as in C.
  const enc_precision bogus = static_cast<enc_precision>(3);
  EXPECT_EQ(enc_gemm_pack_parts_as(bogus, 1, &part, &rows, 4, &p),
            ENC_ERR_INPUT);
  EXPECT_NE(std::string(enc_last_error()).find("unknown precision 3"),
            std::string::npos)
      << enc_last_error();
  // Bytes: s8 panels, and a float scale and an int32 sum per column.
  ASSERT_EQ(enc_gemm_pack_parts_as(ENC_PRECISION_INT8, 1, &part, &rows, 4, &p),
            ENC_OK);
  EXPECT_GE(enc_gemm_packed_bytes(p), 3 * 4 + 3 * 8);
  enc_gemm_packed_free(p);
}

}  // namespace
