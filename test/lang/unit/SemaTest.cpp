// Unit tests of Sema: inheritance, defaults, evaluation order, rules.
#include "enc/lang/Parser.h"
#include "enc/lang/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace enc;

namespace {
struct Resolved {
  std::vector<ModelSpec> Specs;
  unsigned Errors = 0;
  unsigned Warnings = 0;
  std::string Output;
};

Resolved resolve(const std::string &Text) {
  SourceFile Source("t.enc", Text);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  DiagnosticEngine Diags(Source, OS, false);
  Diags.setErrorLimit(0);
  ast::File F = parseFile(Source, Diags);
  Resolved R;
  R.Specs = resolveFile(F, Diags);
  R.Errors = Diags.errorCount();
  R.Warnings = Diags.warningCount();
  R.Output = OS.str();
  return R;
}

TEST(SemaTest, DefaultsOfSection4) {
  Resolved R = resolve("encoder m { d_model = 64; heads = 4; }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  ASSERT_EQ(R.Specs.size(), 1u);
  const ModelSpec &S = R.Specs[0];
  EXPECT_EQ(S.HeadDim, 16);
  EXPECT_EQ(S.DFF, 256);
  EXPECT_EQ(S.Blocks, 6);
  EXPECT_EQ(S.MaxLen, 512);
  EXPECT_EQ(S.Vocab, 0);
  EXPECT_EQ(S.TypeVocab, 0);
  EXPECT_EQ(S.Positional, PositionalKind::Sinusoidal);
  EXPECT_EQ(S.Norm, NormLayout::Post);
  EXPECT_EQ(S.NormKind, NormType::LayerNorm);
  EXPECT_DOUBLE_EQ(S.Eps, 1e-5);
  EXPECT_EQ(S.Act, Activation::Relu);
  EXPECT_TRUE(S.Bias);
  EXPECT_DOUBLE_EQ(S.EmbedScale, 1.0);
  EXPECT_FALSE(S.EmbedNorm);
  EXPECT_FALSE(S.FinalNorm);
  EXPECT_EQ(S.Pool, Pooling::None);
  EXPECT_EQ(S.origin("d_ff").How, SettingOrigin::Default);
}

TEST(SemaTest, FinalNormDefaultsToTrueForPreNorm) {
  Resolved R = resolve("encoder m { d_model = 64; heads = 4; norm = pre; }\n"
                       "encoder n : m { final_norm = false; }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  EXPECT_TRUE(R.Specs[0].FinalNorm);
  EXPECT_FALSE(R.Specs[1].FinalNorm);
}

TEST(SemaTest, InheritanceCopiesExpressionsNotValues) {
  Resolved R = resolve("encoder a { d_model = 512; heads = 8; "
                       "d_ff = 4 * d_model; }\n"
                       "encoder b : a { d_model = 768; heads = 12; }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  EXPECT_EQ(R.Specs[0].DFF, 2048);
  EXPECT_EQ(R.Specs[1].DFF, 3072);
  EXPECT_EQ(R.Specs[1].origin("d_ff").How, SettingOrigin::Inherited);
  // The inherited expression is located in a's text, line 1.
  EXPECT_EQ(R.Specs[1].origin("d_ff").Loc.Line, 1u);
  EXPECT_EQ(R.Specs[1].origin("d_model").Loc.Line, 2u);
  EXPECT_EQ(R.Specs[1].Base, "a");
}

TEST(SemaTest, SettingsReferToEachOtherInAnyOrder) {
  Resolved R = resolve("encoder m { d_ff = 2 * d_model; heads = d_model / 64;"
                       " d_model = blocks * 128; blocks = 3; }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  EXPECT_EQ(R.Specs[0].DModel, 384);
  EXPECT_EQ(R.Specs[0].Heads, 6);
  EXPECT_EQ(R.Specs[0].DFF, 768);
}

TEST(SemaTest, CyclesAreReportedOnceWithTheirMembers) {
  Resolved R =
      resolve("encoder m { d_model = heads * 2; heads = d_model / 2; }");
  EXPECT_EQ(R.Errors, 1u) << R.Output;
  EXPECT_NE(R.Output.find("cyclic definition: d_model -> heads -> d_model"),
            std::string::npos)
      << R.Output;
  EXPECT_NE(R.Output.find("note: 'heads' is defined here"), std::string::npos);
  EXPECT_TRUE(R.Specs.empty());
}

TEST(SemaTest, EveryErrorInAFileIsReported) {
  Resolved R = resolve("encoder a { d_model = 0; heads = 1; blocks = 0; }\n"
                       "encoder b { d_model = 8; heads = 3; eps = -1; }\n"
                       "encoder c { d_model = 8; heads = 2; }");
  EXPECT_EQ(R.Errors, 4u) << R.Output;
  ASSERT_EQ(R.Specs.size(), 1u);
  EXPECT_EQ(R.Specs[0].Name, "c");
}

TEST(SemaTest, SchemesWithArguments) {
  Resolved R =
      resolve("encoder a { d_model = 64; heads = 4; positional = rope; }\n"
              "encoder b : a { positional = rope(base = 500000.0, style = "
              "interleaved); }\n"
              "encoder c : a { positional = relative(buckets = 16, "
              "max_distance = 9); }\n"
              "encoder d : a { positional = relative; }\n"
              "encoder e : a { positional = alibi(); }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  EXPECT_EQ(R.Specs[0].Positional, PositionalKind::Rope);
  EXPECT_DOUBLE_EQ(R.Specs[0].RopeBase, 10000.0);
  EXPECT_EQ(R.Specs[0].Rope, RopeStyle::Halves);
  EXPECT_DOUBLE_EQ(R.Specs[1].RopeBase, 500000.0);
  EXPECT_EQ(R.Specs[1].Rope, RopeStyle::Interleaved);
  EXPECT_EQ(R.Specs[2].RelBuckets, 16);
  EXPECT_EQ(R.Specs[2].RelMaxDistance, 9);
  EXPECT_EQ(R.Specs[3].RelBuckets, 32);
  EXPECT_EQ(R.Specs[3].RelMaxDistance, 128);
  EXPECT_EQ(R.Specs[4].Positional, PositionalKind::Alibi);
}

// Regression: the activation and pooling names were read through references
// into a destroyed temporary (ASan: stack-use-after-scope on every file).
TEST(SemaTest, EveryActivationAndPooling) {
  Resolved R =
      resolve("encoder a { d_model = 64; heads = 4; activation = gelu; pooling "
              "= cls; }\n"
              "encoder b : a { activation = gelu_tanh; pooling = mean; }\n"
              "encoder c : a { activation = relu; pooling = none; }");
  ASSERT_EQ(R.Errors, 0u) << R.Output;
  ASSERT_EQ(R.Specs.size(), 3u);
  EXPECT_EQ(R.Specs[0].Act, Activation::Gelu);
  EXPECT_EQ(R.Specs[0].Pool, Pooling::Cls);
  EXPECT_EQ(R.Specs[1].Act, Activation::GeluTanh);
  EXPECT_EQ(R.Specs[1].Pool, Pooling::Mean);
  EXPECT_EQ(R.Specs[2].Act, Activation::Relu);
  EXPECT_EQ(R.Specs[2].Pool, Pooling::None);
}

TEST(SemaTest, InheritedExpressionFailingOnlyInTheDerivedEncoder) {
  Resolved R =
      resolve("encoder a { d_model = 64; heads = 4; d_ff = d_model / 4; }\n"
              "encoder b : a { d_model = 66; heads = 6; }");
  EXPECT_EQ(R.Errors, 1u) << R.Output;
  EXPECT_NE(
      R.Output.find("t.enc:1:45: error: integer division 66 / 4 is not exact"),
      std::string::npos)
      << R.Output;
  EXPECT_NE(
      R.Output.find("note: in encoder 'b', which inherits 'd_ff' from 'a'"),
      std::string::npos)
      << R.Output;
}

TEST(SemaTest, WarningsDoNotFail) {
  Resolved R =
      resolve("encoder m { d_model = 64; heads = 4; embed_scale = 8.0; }");
  EXPECT_EQ(R.Errors, 0u) << R.Output;
  EXPECT_EQ(R.Warnings, 1u);
  EXPECT_EQ(R.Specs.size(), 1u);
}
} // namespace
