// precision = bf16: enc_gemm on a bf16 packed matrix against a scalar
// reference with the same rounding (W rounded to bf16, to nearest even; X as
// well for the vdpbf16ps kernel), on every Highway target this CPU runs.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "enc/kernels/gemm.h"
#include "activation_reference.h"
#include "enc/kernels/threads.h"
#include "enc/runtime.h"
#include "kernels/gemm.h"  // enc_packed_b, for the layout
#include "kernels/gemm_bf16.h"
#include "amx_params.h"
#include "src/dispatch.h"

namespace {

using enc_test::ActName;
using enc_test::RefAct;

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float RoundBf16(float f) { return enc::Bf16ToFloat(enc::Bf16Bits(f)); }

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

Packed PackAs(enc_precision precision, const std::vector<float>& w, int64_t n,
              int64_t k) {
  enc_packed_b* p = nullptr;
  const float* parts[] = {w.data()};
  EXPECT_EQ(enc_gemm_pack_parts_as(precision, 1, parts, &n, k, &p), ENC_OK)
      << enc_last_error();
  return Packed(p);
}

TEST(Bf16Rounding, NearestEven) {
  EXPECT_EQ(enc::Bf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(enc::Bf16Bits(-2.0f), 0xC000);
  // Halfway: to the even neighbour; above halfway: up; below: down.
  EXPECT_EQ(enc::Bf16Bits(FromBits(0x3F808000u)), 0x3F80);
  EXPECT_EQ(enc::Bf16Bits(FromBits(0x3F818000u)), 0x3F82);
  EXPECT_EQ(enc::Bf16Bits(FromBits(0x3F808001u)), 0x3F81);
  EXPECT_EQ(enc::Bf16Bits(FromBits(0x3F807FFFu)), 0x3F80);
  // The largest finite floats round to infinity; infinities and zeros stay.
  EXPECT_EQ(enc::Bf16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(enc::Bf16Bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(enc::Bf16Bits(-0.0f), 0x8000);
  // A NaN whose payload is only in the low half stays a NaN.
  EXPECT_TRUE(
      std::isnan(enc::Bf16ToFloat(enc::Bf16Bits(FromBits(0x7F800001u)))));
  // Within half a bf16 ulp (8 significant bits: 2^(exponent - 8)), and
  // ties aside, to the nearer neighbour (the error is below half an ulp).
  std::mt19937 rng(3);
  for (float f : Random(10000, rng, 100)) {
    const double half_ulp = std::ldexp(1.0, std::ilogb(f) - 8);
    const double err = std::fabs(double(RoundBf16(f)) - f);
    EXPECT_LE(err, half_ulp) << f;
    if ((Bits(f) & 0xFFFFu) != 0x8000u) {
      EXPECT_LT(err, half_ulp) << f;
    }
  }
}

using enc_test::kAmx;

using enc_test::TargetOf;

// Each Highway target alone, without AMX; kAmx: AVX3_DL with AMX, where the
// CPU, the OS and the process's permission allow it, or the runtime emulates
// the tiles (kernels/amx.h); else skipped.
class Bf16TargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    if (GetParam() == kAmx) {
      if ((enc::CpuAmx() & enc::kAmxBf16) == 0 ||
          (enc::CpuTargets() & HWY_AVX3_DL) == 0) {
        GTEST_SKIP() << "no AMX-BF16 here";
      }
      enc::SetSupportedTargetsForTest(HWY_AVX3_DL);
      enc::SetAmxForTest(enc::kAmxBf16);
      ASSERT_EQ(enc::SupportedAmx(), enc::kAmxBf16);
    } else {
      enc::SetSupportedTargetsForTest(GetParam());
      enc::SetAmxForTest(0);
    }
  }
  void TearDown() override {
    enc::SetSupportedTargetsForTest(0);
    enc::SetAmxForTest(-1);
    enc::SetBf16ChoiceForTest(enc::Bf16Choice::kAuto);
  }
  // The pairs a packed matrix of k columns holds (AMX: whole tiles of 16).
  static int64_t Pairs(int64_t k) {
    const int64_t multiple = GetParam() == kAmx ? 16 : 1;
    return ((k + 1) / 2 + multiple - 1) / multiple * multiple;
  }
};

// The dot kernel's X, rounded once per call on each target: the bits of
// Bf16Bits for every element (halfway cases, NaN, infinities, denormals, the
// largest floats), in pairs, zero past an odd k; rows outside [r0, r1) and
// the words past the pairs untouched.
TEST_P(Bf16TargetTest, RoundRowsAsBf16Bits) {
  if (GetParam() == kAmx) GTEST_SKIP() << "AVX3_DL's, as its own parameter";
  std::mt19937 rng(17);
  for (int64_t k : {1, 2, 7, 16, 33, 100}) {
    const int64_t rows = 5, ldx = k + 3, ldxb = (k + 1) / 2 + 2;
    std::vector<float> x = Random(rows * ldx, rng, 10);
    const float specials[] = {FromBits(0x3F808000u),
                              FromBits(0x3F818000u),
                              FromBits(0x7F800001u),
                              NAN,
                              INFINITY,
                              -INFINITY,
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::denorm_min(),
                              -0.0f};
    for (size_t i = 0; i < x.size(); i += 3) x[i] = specials[i / 3 % 9];
    std::vector<uint32_t> xb(rows * ldxb, 0xABCDABCDu);
    enc::RoundRowsToBf16Pairs(x.data(), ldx, k, 1, rows - 1, xb.data(), ldxb);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t q = 0; q < ldxb; ++q) {
        uint32_t want = 0xABCDABCDu;
        if (r >= 1 && r < rows - 1 && q < (k + 1) / 2) {
          const uint32_t lo = enc::Bf16Bits(x[r * ldx + 2 * q]);
          const uint32_t hi =
              2 * q + 1 < k ? enc::Bf16Bits(x[r * ldx + 2 * q + 1]) : 0u;
          want = lo | hi << 16;
        } else if (r >= 1 && r < rows - 1) {
          want = 0;  // the row's words past its pairs are zero
        }
        ASSERT_EQ(xb[r * ldxb + q], want)
            << "k " << k << " row " << r << " pair " << q;
      }
    }
  }
}

// One shape with every epilogue, element by element against the reference:
// sum over k of w_bf16 * x (x_bf16 with `round_x`) in float64, within the
// fp32 accumulation's error relative to sum |x||w|.
void CheckShape(int64_t m, int64_t n, int64_t k, uint32_t seed, bool round_x) {
  std::mt19937 rng(seed);
  const int64_t ldx = k + 3, ldy = n + 5, ldr = n + 2;
  const std::vector<float> x = Random(m * ldx, rng);
  const std::vector<float> w = Random(n * k, rng);
  const std::vector<float> bias = Random(n, rng);
  const std::vector<float> res = Random(m * ldr, rng);
  Packed packed = PackAs(ENC_PRECISION_BF16, w, n, k);
  ASSERT_TRUE(packed);
  EXPECT_EQ(enc_gemm_packed_precision(packed.get()), ENC_PRECISION_BF16);
  EXPECT_EQ(enc_gemm_packed_n(packed.get()), n);
  EXPECT_EQ(enc_gemm_packed_k(packed.get()), k);
  EXPECT_EQ(packed->bf16.kernel.dot, round_x);

  std::vector<double> dot(m * n), mag(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, a = 0;
      for (int64_t l = 0; l < k; ++l) {
        const float xv = round_x ? RoundBf16(x[i * ldx + l]) : x[i * ldx + l];
        const double p = double(xv) * RoundBf16(w[j * k + l]);
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
                            << " bias=" << use_bias << " act=" << a
                            << " res=" << use_res << " at (" << i << ", " << j
                            << "): got " << got << " want " << want;
            }
          }
        }
      }
    }
  }
  // y may be the residual itself when there is no activation (the compiler
  // plans a residual stream in place).
  std::vector<float> y = res;
  ASSERT_EQ(enc_gemm(m, x.data(), ldx, packed.get(), bias.data(), ENC_ACT_NONE,
                     y.data(), ldr, y.data(), ldr),
            ENC_OK)
      << enc_last_error();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldr; ++j) {
      const float got = y[i * ldr + j];
      if (j >= n) {
        ASSERT_EQ(got, res[i * ldr + j]) << "in place, padding " << i;
        continue;
      }
      const double want = dot[i * n + j] + bias[j] + res[i * ldr + j];
      const double tol = 2e-6 * (mag[i * n + j] + 1.0) + 1e-6 * std::fabs(want);
      ASSERT_LE(std::fabs(got - want), tol)
          << "in place at (" << i << ", " << j << "): got " << got << " want "
          << want;
    }
  }
}

void CheckShapes(bool round_x) {
  const int64_t shapes[][3] = {
      {1, 1, 1},
      {3, 17, 64},
      {17, 64, 3},
      {64, 3, 17},
      {3, 769, 17},
      {17, 3, 769},
      {64, 64, 64},
      {1, 769, 64},
      {17, 48, 257},
      {9, 96, 512},
      {130, 100, 300},
      // Around the tiles (6 x 16 AVX2, 6 x 8 SSE4, 8 x 48 AVX-512) and odd K
      // (the last pair half padding).
      {5, 15, 1},
      {6, 16, 2},
      {7, 17, 3},
      {8, 48, 5},
      {9, 49, 4},
      {13, 95, 33},
      {25, 47, 1},
      // Around AMX's tiles (16 rows, 32 K steps, a panel of 3 x 16).
      {16, 48, 32},
      {15, 47, 31},
      {17, 49, 33},
      {33, 97, 65},
      // Several K blocks (K above any L1-derived block), odd and even.
      {2, 1, 2501},
      {50, 100, 2500},
      {7, 33, 1537}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << "shape " << s[0] << "x" << s[1] << "x" << s[2]);
    CheckShape(s[0], s[1], s[2], seed++, round_x);
  }
}

// The widening kernel, on every target (the only bf16 kernel without
// AVX512_BF16).
TEST_P(Bf16TargetTest, WideningShapesAndEpilogues) {
  enc::SetBf16ChoiceForTest(enc::Bf16Choice::kWiden);
  CheckShapes(false);
}

// The vdpbf16ps kernel: AVX-512 targets on a CPU with AVX512_BF16 only; and
// the AMX tiles, which round X as it does.
TEST_P(Bf16TargetTest, DotShapesAndEpilogues) {
  if (GetParam() == kAmx) return CheckShapes(true);
  const int64_t target = GetParam();
  const bool avx512 = target == HWY_AVX3 || target == HWY_AVX3_DL;
  if (!avx512 || !enc::CpuHasAvx512Bf16()) {
    GTEST_SKIP() << "the vdpbf16ps kernel needs an AVX-512 target and a CPU "
                    "with AVX512_BF16 (this one: "
                 << (enc::CpuHasAvx512Bf16() ? "has it" : "has not") << ")";
  }
  // Forced: the runtime takes it by itself only where it outruns the
  // widening kernel (Bf16DotIsFaster), but runs it wherever it is chosen.
  enc::SetBf16ChoiceForTest(enc::Bf16Choice::kDot);
  CheckShapes(true);
}

// The packed words are the bf16 pairs of kernels/gemm_bf16.h, and the packed
// matrix holds half the bytes of the fp32 one (for an even k, whole panels).
TEST_P(Bf16TargetTest, PackedLayout) {
  std::mt19937 rng(7);
  const int64_t n = 37, k = 9;
  const std::vector<float> w = Random(n * k, rng);
  Packed p = PackAs(ENC_PRECISION_BF16, w, n, k);
  ASSERT_TRUE(p);
  const int64_t width = p->bf16.kernel.panel, kpairs = Pairs(k);
  EXPECT_EQ(p->bf16.kpairs, kpairs);
  EXPECT_EQ(p->bf16.kernel.group_multiple, GetParam() == kAmx ? 16 : 1);
  EXPECT_EQ(p->panels, (n + width - 1) / width);
  EXPECT_EQ(p->bf16.kernel.target, TargetOf(GetParam()));
  for (int64_t pn = 0; pn < p->panels; ++pn) {
    for (int64_t q = 0; q < kpairs; ++q) {
      for (int64_t j = 0; j < width; ++j) {
        const int64_t col = pn * width + j;
        const uint32_t got = p->bf16.data[(pn * kpairs + q) * width + j];
        uint32_t want = 0;
        if (col < n && 2 * q < k) {
          want = enc::Bf16Bits(w[col * k + 2 * q]);
          if (2 * q + 1 < k)
            want |= uint32_t{enc::Bf16Bits(w[col * k + 2 * q + 1])} << 16;
        }
        ASSERT_EQ(got, want) << "panel " << pn << " pair " << q << " col " << j;
      }
    }
  }
  const int64_t n2 = 4 * width, k2 = 64;
  const std::vector<float> w2 = Random(n2 * k2, rng);
  Packed f32 = PackAs(ENC_PRECISION_FP32, w2, n2, k2);
  Packed b16 = PackAs(ENC_PRECISION_BF16, w2, n2, k2);
  ASSERT_TRUE(f32 && b16);
  EXPECT_EQ(2 * enc_gemm_packed_bytes(b16.get()),
            enc_gemm_packed_bytes(f32.get()));
}

// Packing parts is packing their row concatenation, bit for bit.
TEST_P(Bf16TargetTest, PackPartsEqualsConcatenation) {
  std::mt19937 rng(11);
  const int64_t k = 31, rows[] = {20, 7, 13}, n = 40, m = 9;
  const std::vector<float> w = Random(n * k, rng), x = Random(m * k, rng);
  const float* parts[] = {w.data(), w.data() + 20 * k, w.data() + 27 * k};
  enc_packed_b* split = nullptr;
  ASSERT_EQ(
      enc_gemm_pack_parts_as(ENC_PRECISION_BF16, 3, parts, rows, k, &split),
      ENC_OK)
      << enc_last_error();
  Packed a(split), b = PackAs(ENC_PRECISION_BF16, w, n, k);
  std::vector<float> ya(m * n), yb(m * n);
  ASSERT_EQ(enc_gemm(m, x.data(), k, a.get(), nullptr, ENC_ACT_NONE, nullptr, 0,
                     ya.data(), n),
            ENC_OK);
  ASSERT_EQ(enc_gemm(m, x.data(), k, b.get(), nullptr, ENC_ACT_NONE, nullptr, 0,
                     yb.data(), n),
            ENC_OK);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(Bits(ya[i]), Bits(yb[i])) << i;
}

// Threads split panels and row blocks, never K: the same bits at 1 and 2.
TEST_P(Bf16TargetTest, SameBitsAtOneAndTwoThreads) {
  std::mt19937 rng(5);
  const int64_t m = 128, n = 768, k = 768;
  const std::vector<float> w = Random(n * k, rng), x = Random(m * k, rng);
  Packed p = PackAs(ENC_PRECISION_BF16, w, n, k);
  ASSERT_TRUE(p);
  std::vector<float> y1(m * n), y2(m * n);
  const int before = enc_threads_count();
  ASSERT_EQ(enc_set_num_threads(1), 1);
  ASSERT_EQ(enc_gemm(m, x.data(), k, p.get(), nullptr, ENC_ACT_GELU, nullptr, 0,
                     y1.data(), n),
            ENC_OK);
  ASSERT_EQ(enc_set_num_threads(2), 2);
  ASSERT_EQ(enc_gemm(m, x.data(), k, p.get(), nullptr, ENC_ACT_GELU, nullptr, 0,
                     y2.data(), n),
            ENC_OK);
  ASSERT_EQ(enc_set_num_threads(before), before);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(Bits(y1[i]), Bits(y2[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(AllTargets, Bf16TargetTest,
                         ::testing::ValuesIn(enc_test::TargetsAndAmx()),
                         enc_test::TargetParamName);

}  // namespace
