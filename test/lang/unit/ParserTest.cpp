// Unit tests of the parser: positions, recovery, and inputs that must not
// crash it.
#include "enc/lang/ExprEval.h"
#include "enc/lang/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace enc;

namespace {
struct Parsed {
  ast::File File;
  unsigned Errors;
  std::string Output;
};

Parsed parse(const std::string &Text) {
  SourceFile Source("t.enc", Text);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  DiagnosticEngine Diags(Source, OS, /*UseColor=*/false);
  Diags.setErrorLimit(0);
  ast::File F = parseFile(Source, Diags);
  return {std::move(F), Diags.errorCount(), OS.str()};
}

TEST(ParserTest, RecordsByteRanges) {
  Parsed P = parse("encoder m {\n  d_model = 2 * 3;\n}\n");
  ASSERT_EQ(P.Errors, 0u) << P.Output;
  ASSERT_EQ(P.File.Encoders.size(), 1u);
  const ast::Encoder &E = P.File.Encoders[0];
  EXPECT_EQ(E.Name.Name, "m");
  EXPECT_EQ(E.Name.Begin, 8u);
  EXPECT_EQ(E.Name.End, 9u);
  ASSERT_EQ(E.Settings.size(), 1u);
  EXPECT_EQ(E.Settings[0].Key.Begin, 14u);
  EXPECT_EQ(E.Settings[0].Value.Begin, 24u);
  EXPECT_EQ(E.Settings[0].Value.End, 29u);
}

TEST(ParserTest, ReportsEverySyntaxErrorAndKeepsGoodSettings) {
  Parsed P = parse("encoder m {\n  d_model = ;\n  heads = 2\n  blocks = 3;\n"
                   "  max_len = 4;\n}\n");
  EXPECT_EQ(P.Errors, 2u) << P.Output;
  ASSERT_EQ(P.File.Encoders.size(), 1u);
  EXPECT_TRUE(P.File.Encoders[0].Incomplete);
  ASSERT_EQ(P.File.Encoders[0].Settings.size(), 1u);
  EXPECT_EQ(P.File.Encoders[0].Settings[0].Key.Name, "max_len");
}

TEST(ParserTest, NamedArgumentDoesNotLeakIntoPositional) {
  Parsed P = parse("encoder m { embed_scale = sqrt(d_model); }");
  ASSERT_EQ(P.Errors, 0u) << P.Output;
  const ast::Expr &V = P.File.Encoders[0].Settings[0].Value;
  const auto *Call = boost::get<boost::spirit::x3::forward_ast<ast::Call>>(
      &stripParens(V).get());
  ASSERT_NE(Call, nullptr);
  ASSERT_EQ(Call->get().Args.size(), 1u);
  EXPECT_FALSE(Call->get().Args[0].Name);
}

TEST(ParserTest, DeepNestingIsADiagnosticNotACrash) {
  std::string Deep = "encoder m { d_model = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + "; }";
  Parsed P = parse(Deep);
  EXPECT_EQ(P.Errors, 1u);
  EXPECT_NE(P.Output.find("nested too deeply"), std::string::npos) << P.Output;

  std::string Minus =
      "encoder m { d_model = " + std::string(100000, '-') + "1; }";
  P = parse(Minus);
  EXPECT_EQ(P.Errors, 1u);
}

TEST(ParserTest, NestingJustBelowTheLimitParses) {
  unsigned N = MaxExpressionDepth - 1;
  std::string Text = "encoder m { d_model = " + std::string(N, '(') + "1" +
                     std::string(N, ')') + "; }";
  Parsed P = parse(Text);
  EXPECT_EQ(P.Errors, 0u) << P.Output;
}

TEST(ParserTest, EveryByteValueIsHandledAndEscapedInDiagnostics) {
  for (int C = 0; C < 256; ++C) {
    std::string Text = "encoder m { d_model = 1";
    Text += static_cast<char>(C);
    Text += "; }";
    Parsed P = parse(Text);
    bool Text7Bit = C >= 0x20 && C < 0x7F;
    bool Space = C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
                 C == '\v';
    if (!Text7Bit && !Space) {
      EXPECT_GE(P.Errors, 1u) << "byte " << C;
    }
    // Diagnostics never copy a raw control or invalid byte to the terminal.
    for (unsigned char O : P.Output)
      EXPECT_TRUE(O == '\n' || (O >= 0x20 && O < 0x7F))
          << "byte " << C << " echoed as " << int(O);
  }
}

TEST(ParserTest, EmptyAndCommentOnlyFilesAreErrors) {
  EXPECT_EQ(parse("").Errors, 1u);
  EXPECT_EQ(parse("// nothing\n/* here */").Errors, 1u);
  EXPECT_EQ(parse("/* open").Errors, 2u); // no encoder, unterminated comment
}
} // namespace
