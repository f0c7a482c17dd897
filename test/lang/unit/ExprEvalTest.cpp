// Unit tests of compile-time expression evaluation.
#include "enc/lang/ExprEval.h"
#include "enc/lang/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace enc;

namespace {
/// Evaluates `Expr` (a setting's right-hand side) with `x` bound to 10 and
/// `flag` to true; returns the value or the first error message.
struct Result {
  std::optional<EvalValue> Value;
  std::string Error;
};

Result evaluate(const std::string &Expr) {
  SourceFile Source("t.enc", "encoder t { v = " + Expr + "; }");
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  DiagnosticEngine Diags(Source, OS, false);
  ast::File F = parseFile(Source, Diags);
  if (Diags.hasErrors())
    return {std::nullopt, "parse: " + OS.str()};
  std::string Error;
  auto Lookup = [](const ast::Identifier &Id) -> std::optional<EvalValue> {
    if (Id.Name == "x")
      return EvalValue::ofInt(10);
    if (Id.Name == "flag")
      return EvalValue::ofBool(true);
    return std::nullopt;
  };
  auto Report = [&](SourceRange, const llvm::Twine &M) {
    if (Error.empty())
      Error = M.str();
  };
  ExprEvaluator Eval(Lookup, Report);
  return {Eval.eval(F.Encoders[0].Settings[0].Value), Error};
}

int64_t intOf(const std::string &Expr) {
  Result R = evaluate(Expr);
  EXPECT_TRUE(R.Value && R.Value->K == EvalValue::Int) << Expr << ": " << R.Error;
  return R.Value ? R.Value->I : -1;
}
double floatOf(const std::string &Expr) {
  Result R = evaluate(Expr);
  EXPECT_TRUE(R.Value && R.Value->K == EvalValue::Float) << Expr << ": " << R.Error;
  return R.Value ? R.Value->F : -1;
}
std::string errorOf(const std::string &Expr) {
  Result R = evaluate(Expr);
  EXPECT_FALSE(R.Value) << Expr << " evaluated to " << R.Value->str();
  return R.Error;
}

TEST(ExprEvalTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(intOf("1 + 2 * 3"), 7);
  EXPECT_EQ(intOf("(1 + 2) * 3"), 9);
  EXPECT_EQ(intOf("10 - 4 - 3"), 3);
  EXPECT_EQ(intOf("64 / 4 / 2"), 8);
  EXPECT_EQ(intOf("-x * 2"), -20);
  EXPECT_EQ(intOf("- -x"), 10);
  EXPECT_EQ(intOf("2 - -3"), 5);
}

TEST(ExprEvalTest, IntegerDivisionMustBeExact) {
  EXPECT_EQ(intOf("768 / 12"), 64);
  EXPECT_EQ(errorOf("100 / 3"),
            "integer division 100 / 3 is not exact (remainder 1); write a "
            "float such as 100.0 / 3 for a fraction");
  EXPECT_EQ(errorOf("x / 0"), "division by zero in 10 / 0");
  EXPECT_EQ(errorOf("1.0 / 0"), "division by zero in 1.0 / 0");
}

TEST(ExprEvalTest, FloatsPromoteAndSqrtIsFloat) {
  EXPECT_DOUBLE_EQ(floatOf("100.0 / 3"), 100.0 / 3);
  EXPECT_DOUBLE_EQ(floatOf("x * 0.5"), 5.0);
  EXPECT_DOUBLE_EQ(floatOf("sqrt(64)"), 8.0);
  EXPECT_DOUBLE_EQ(floatOf("sqrt(x * 10) * 2"), 20.0);
  EXPECT_DOUBLE_EQ(floatOf("1e-12"), 1e-12);
  EXPECT_DOUBLE_EQ(floatOf("10000."), 10000.0);
}

TEST(ExprEvalTest, OverflowIsDetected) {
  EXPECT_EQ(intOf("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(errorOf("9223372036854775807 + 1"),
            "integer overflow in 9223372036854775807 + 1");
  EXPECT_EQ(errorOf("-9223372036854775807 - 2"),
            "integer overflow in -9223372036854775807 - 2");
  EXPECT_EQ(errorOf("4294967296 * 4294967296"),
            "integer overflow in 4294967296 * 4294967296");
  EXPECT_EQ(errorOf("(-9223372036854775807 - 1) / -1"),
            "integer overflow in -9223372036854775808 / -1");
  EXPECT_EQ(errorOf("-(-9223372036854775807 - 1)"),
            "integer overflow in -(-9223372036854775808)");
  EXPECT_EQ(errorOf("1e308 * 10"), "float overflow in 1e308 * 10");
  EXPECT_NE(errorOf("9223372036854775808").find("is too large"),
            std::string::npos);
  EXPECT_NE(errorOf("1e400").find("out of range"), std::string::npos);
}

TEST(ExprEvalTest, BooleansTakeNoArithmetic) {
  EXPECT_EQ(errorOf("flag + 1"),
            "operator '+' cannot be applied to a boolean (true + 1)");
  EXPECT_EQ(errorOf("-false"),
            "unary '-' cannot be applied to a boolean (false)");
  EXPECT_EQ(errorOf("sqrt(true)"),
            "sqrt cannot be applied to a boolean (true)");
}

TEST(ExprEvalTest, FunctionsAreCheckedByNameAndArity) {
  EXPECT_EQ(errorOf("sqrt(-4)"), "sqrt of a negative number (-4)");
  EXPECT_EQ(errorOf("sqrt(1, 2)"), "sqrt takes one argument, but 2 were given");
  EXPECT_EQ(errorOf("sqrt()"), "sqrt takes one argument, but 0 were given");
  EXPECT_EQ(errorOf("log(2)"),
            "unknown function 'log' in an expression; the only function is "
            "sqrt");
  EXPECT_EQ(errorOf("sqrt(v = 4)"),
            "sqrt takes a plain expression, not a named argument 'v = ...'");
}
} // namespace
