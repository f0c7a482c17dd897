// enc_gemm_normed and enc_gemm_gated_normed: the same bits as enc_norm then
// enc_gemm (enc_gemm_gated) on every precision, across chunk boundaries, and
// the whole-call argument checks.
#include "enc/kernels/norm_gemm.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "enc/kernels/norm.h"

namespace {

struct PackedDeleter {
  void operator()(enc_packed_b* p) const { enc_gemm_packed_free(p); }
  void operator()(enc_packed_gated* p) const { enc_gemm_gated_free(p); }
};
using Packed = std::unique_ptr<enc_packed_b, PackedDeleter>;
using PackedGated = std::unique_ptr<enc_packed_gated, PackedDeleter>;

std::vector<float> Random(size_t n, std::mt19937& rng, float mean = 0.0f) {
  std::normal_distribution<float> normal(mean, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

Packed PackAs(enc_precision precision, const std::vector<float>& w, int64_t n,
              int64_t k) {
  enc_packed_b* p = nullptr;
  const float* parts[1] = {w.data()};
  const int64_t rows[1] = {n};
  EXPECT_EQ(ENC_OK, enc_gemm_pack_parts_as(precision, 1, parts, rows, k, &p))
      << enc_last_error();
  return Packed(p);
}

void ExpectSameBits(const std::vector<float>& got,
                    const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
        << what << " at " << i << ": " << got[i] << " vs " << want[i];
  }
}

struct Shape {
  int64_t m, n, k;
};
// Around the chunk (ENC_NORM_GEMM_CHUNK_ROWS rows): one row, one chunk,
// a chunk and one, several with a short last one.
const Shape kShapes[] = {{1, 33, 17},
                         {7, 64, 48},
                         {ENC_NORM_GEMM_CHUNK_ROWS, 40, 24},
                         {ENC_NORM_GEMM_CHUNK_ROWS + 1, 24, 40},
                         {3 * ENC_NORM_GEMM_CHUNK_ROWS - 5, 48, 32}};

class NormGemmTest : public ::testing::TestWithParam<enc_precision> {};

TEST_P(NormGemmTest, SameBitsAsNormThenGemm) {
  std::mt19937 rng(3);
  for (const Shape& s : kShapes) {
    for (int kind : {ENC_NORM_LAYER, ENC_NORM_RMS}) {
      SCOPED_TRACE(::testing::Message()
                   << s.m << "x" << s.n << "x" << s.k << " kind " << kind);
      const int64_t ldx = s.k + 3, ldy = s.n + 2;
      // Rows with a mean and spread of their own, as a residual stream has.
      const std::vector<float> x = Random(s.m * ldx, rng, 0.5f);
      const std::vector<float> w = Random(s.n * s.k, rng);
      const std::vector<float> gamma = Random(s.k, rng, 1.0f);
      const std::vector<float> beta = Random(s.k, rng);
      const std::vector<float> bias = Random(s.n, rng);
      const std::vector<float> res = Random(s.m * ldy, rng);
      const float* b = kind == ENC_NORM_LAYER ? beta.data() : nullptr;
      Packed packed = PackAs(GetParam(), w, s.n, s.k);
      ASSERT_TRUE(packed);
      std::vector<float> normed(s.m * s.k);
      ASSERT_EQ(ENC_OK, enc_norm(kind, s.m, s.k, x.data(), ldx, gamma.data(), b,
                                 1e-5f, normed.data(), s.k));
      // With an activation and a separate residual, then in place over it.
      std::vector<float> want = res, got(s.m * ldy, 7.0f);
      ASSERT_EQ(ENC_OK,
                enc_gemm(s.m, normed.data(), s.k, packed.get(), bias.data(),
                         ENC_ACT_GELU, res.data(), ldy, want.data(), ldy));
      for (int64_t i = 0; i < s.m; ++i)  // the gaps, as got's
        std::fill(want.begin() + i * ldy + s.n, want.begin() + (i + 1) * ldy,
                  7.0f);
      ASSERT_EQ(ENC_OK,
                enc_gemm_normed(kind, gamma.data(), b, 1e-5f, s.m, x.data(),
                                ldx, packed.get(), bias.data(), ENC_ACT_GELU,
                                res.data(), ldy, got.data(), ldy))
          << enc_last_error();
      ExpectSameBits(got, want, "gelu + residual");
      std::vector<float> in_place = res, want_in_place = res;
      ASSERT_EQ(ENC_OK,
                enc_gemm(s.m, normed.data(), s.k, packed.get(), bias.data(),
                         ENC_ACT_NONE, want_in_place.data(), ldy,
                         want_in_place.data(), ldy));
      ASSERT_EQ(ENC_OK,
                enc_gemm_normed(kind, gamma.data(), b, 1e-5f, s.m, x.data(),
                                ldx, packed.get(), bias.data(), ENC_ACT_NONE,
                                in_place.data(), ldy, in_place.data(), ldy))
          << enc_last_error();
      ExpectSameBits(in_place, want_in_place, "residual in place");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, NormGemmTest,
                         ::testing::Values(ENC_PRECISION_FP32,
                                           ENC_PRECISION_INT8,
                                           ENC_PRECISION_BF16));

TEST(NormGemm, GatedSameBitsAsNormThenGemm) {
  std::mt19937 rng(5);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k);
    const int64_t ldx = s.k + 1, ldy = s.n + 3;
    const std::vector<float> x = Random(s.m * ldx, rng, -0.25f);
    const std::vector<float> wg = Random(s.n * s.k, rng),
                             wu = Random(s.n * s.k, rng);
    const std::vector<float> gamma = Random(s.k, rng, 1.0f);
    const std::vector<float> bg = Random(s.n, rng), bu = Random(s.n, rng);
    enc_packed_gated* raw = nullptr;
    ASSERT_EQ(ENC_OK,
              enc_gemm_pack_gated(wg.data(), wu.data(), s.n, s.k, &raw));
    PackedGated packed(raw);
    std::vector<float> normed(s.m * s.k);
    ASSERT_EQ(ENC_OK,
              enc_norm(ENC_NORM_LAYER, s.m, s.k, x.data(), ldx, gamma.data(),
                       nullptr, 1e-5f, normed.data(), s.k));
    std::vector<float> want(s.m * ldy, 7.0f), got(s.m * ldy, 7.0f);
    ASSERT_EQ(ENC_OK,
              enc_gemm_gated(s.m, normed.data(), s.k, packed.get(), bg.data(),
                             bu.data(), ENC_ACT_GELU, want.data(), ldy));
    ASSERT_EQ(ENC_OK, enc_gemm_gated_normed(ENC_NORM_LAYER, gamma.data(),
                                            nullptr, 1e-5f, s.m, x.data(), ldx,
                                            packed.get(), bg.data(), bu.data(),
                                            ENC_ACT_GELU, got.data(), ldy))
        << enc_last_error();
    ExpectSameBits(got, want, "gated");
  }
}

// Refused before any row is written, including overlaps that only a later
// chunk's rows would show.
TEST(NormGemm, RejectsBadArgumentsWritingNothing) {
  const int64_t m = 2 * ENC_NORM_GEMM_CHUNK_ROWS + 3, n = 8, k = 8;
  std::mt19937 rng(9);
  const std::vector<float> w = Random(n * k, rng), gamma(k, 1.0f);
  Packed packed = PackAs(ENC_PRECISION_FP32, w, n, k);
  std::vector<float> x = Random(m * k, rng);
  std::vector<float> y(m * n + n * n, 5.0f);
  const std::vector<float> y0 = y;
  auto call = [&](int32_t kind, const float* xp, const float* res, float* yp,
                  enc_activation act) {
    return enc_gemm_normed(kind, gamma.data(), nullptr, 1e-5f, m, xp, k,
                           packed.get(), nullptr, act, res, n, yp, n);
  };
  auto expect_refused = [&](enc_status s, const char* what) {
    EXPECT_EQ(ENC_ERR_INPUT, s) << what;
    EXPECT_STRNE("", enc_last_error()) << what;
    EXPECT_EQ(y, y0) << what << ": y written";
  };
  expect_refused(call(7, x.data(), nullptr, y.data(), ENC_ACT_NONE),
                 "norm kind");
  // The residual starts in y's last chunk: only the whole range shows it.
  expect_refused(call(ENC_NORM_LAYER, x.data(), y.data() + (m - 1) * n,
                      y.data(), ENC_ACT_NONE),
                 "residual across y");
  expect_refused(
      call(ENC_NORM_LAYER, x.data(), y.data(), y.data(), ENC_ACT_RELU),
      "residual in place with an activation");
  expect_refused(
      enc_gemm_normed(ENC_NORM_LAYER, gamma.data(), nullptr, 1e-5f, m, y.data(),
                      k, packed.get(), nullptr, ENC_ACT_NONE, nullptr, 0,
                      y.data() + (m - 1) * n, n),
      "x overlaps y");
  expect_refused(enc_gemm_normed(ENC_NORM_LAYER, gamma.data(), nullptr, 1e-5f,
                                 m, x.data(), k, nullptr, nullptr, ENC_ACT_NONE,
                                 nullptr, 0, y.data(), n),
                 "null w");
  expect_refused(enc_gemm_gated_normed(ENC_NORM_LAYER, gamma.data(), nullptr,
                                       1e-5f, m, x.data(), k, nullptr, nullptr,
                                       nullptr, ENC_ACT_GELU, y.data(), n),
                 "null gated w");
  expect_refused(enc_gemm_normed(ENC_NORM_LAYER, nullptr, nullptr, 1e-5f, m,
                                 x.data(), k, packed.get(), nullptr,
                                 ENC_ACT_NONE, nullptr, 0, y.data(), n),
                 "null gamma");
  EXPECT_EQ(ENC_OK,
            call(ENC_NORM_LAYER, x.data(), nullptr, y.data(), ENC_ACT_NONE))
      << enc_last_error();
}

}  // namespace
