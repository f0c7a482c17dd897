//===- ExprEval.cpp - Compile-time evaluation of .enc expressions ---------===//

#include "enc/lang/ExprEval.h"

#include "enc/lang/NumberFormat.h"

#include <charconv>
#include <cmath>

using namespace enc;
namespace x3 = boost::spirit::x3;

std::string EvalValue::str() const {
  switch (K) {
  case Int:
    return std::to_string(I);
  case Float:
    return formatFloat(F);
  case Bool:
    return B ? "true" : "false";
  case String:
    return "\"" + S + "\"";
  }
  return "";
}

const char *EvalValue::kindName() const {
  switch (K) {
  case Int:
    return "an integer";
  case Float:
    return "a float";
  case Bool:
    return "a boolean";
  case String:
    return "a string";
  }
  return "";
}

const ast::Operand &enc::stripParens(const ast::Expr &E) {
  const ast::Expr *Cur = &E;
  while (Cur->Rest.empty()) {
    const auto *Inner =
        boost::get<x3::forward_ast<ast::Expr>>(&Cur->First.get());
    if (!Inner)
      break;
    Cur = &Inner->get();
  }
  return Cur->First;
}

namespace {
struct RangeVisitor {
  using result_type = SourceRange;
  SourceRange operator()(const ast::Nil &) const { return {}; }
  template <typename T> SourceRange operator()(const T &Node) const {
    return {Node.Begin, Node.End};
  }
  template <typename T>
  SourceRange operator()(const x3::forward_ast<T> &Node) const {
    return (*this)(Node.get());
  }
};

/// A number literal as written, shortened if it is absurdly long.
std::string spelling(const std::string &Text) {
  if (Text.size() <= 40)
    return Text;
  return Text.substr(0, 20) + "..." + Text.substr(Text.size() - 10) + " (" +
         std::to_string(Text.size()) + " digits)";
}
} // namespace

SourceRange enc::rangeOf(const ast::Operand &O) {
  return boost::apply_visitor(RangeVisitor(), O);
}

std::optional<EvalValue> ExprEvaluator::evalNumber(const ast::NumberLit &N) {
  const std::string &T = N.Text;
  SourceRange R{N.Begin, N.End};
  const char *First = T.data(), *Last = T.data() + T.size();
  if (T.find_first_of(".eE") == std::string::npos) {
    int64_t V = 0;
    auto [Ptr, Ec] = std::from_chars(First, Last, V);
    if (Ec == std::errc::result_out_of_range || Ptr != Last) {
      Error(R, "integer literal " + spelling(T) +
                   " is too large (the largest integer is "
                   "9223372036854775807)");
      return std::nullopt;
    }
    return EvalValue::ofInt(V);
  }
  double V = 0;
  auto [Ptr, Ec] = std::from_chars(First, Last, V);
  if (Ec == std::errc::result_out_of_range || Ptr != Last ||
      !std::isfinite(V)) {
    Error(R, "float literal " + spelling(T) + " is out of range for a double");
    return std::nullopt;
  }
  return EvalValue::ofFloat(V);
}

std::optional<EvalValue> ExprEvaluator::eval(const ast::Expr &E) {
  std::optional<EvalValue> Acc = eval(E.First);
  if (!Acc)
    return std::nullopt;
  for (const ast::Operation &Op : E.Rest) {
    std::optional<EvalValue> Rhs = eval(Op.Rhs);
    if (!Rhs)
      return std::nullopt;
    Acc = binary(Op.Op, *Acc, *Rhs, {E.Begin, Op.End});
    if (!Acc)
      return std::nullopt;
  }
  return Acc;
}

std::optional<EvalValue> ExprEvaluator::eval(const ast::Operand &O) {
  struct Visitor {
    using result_type = std::optional<EvalValue>;
    ExprEvaluator &Self;
    result_type operator()(const ast::Nil &) const { return std::nullopt; }
    result_type operator()(const ast::NumberLit &N) const {
      return Self.evalNumber(N);
    }
    result_type operator()(const ast::BoolLit &B) const {
      return EvalValue::ofBool(B.Text == "true");
    }
    result_type operator()(const ast::StringLit &S) const {
      return EvalValue::ofString(S.Text);
    }
    result_type operator()(const ast::Identifier &Id) const {
      return Self.Lookup(Id);
    }
    result_type operator()(const x3::forward_ast<ast::Negate> &N) const {
      std::optional<EvalValue> V = Self.eval(N.get().Inner);
      if (!V)
        return std::nullopt;
      SourceRange R{N.get().Begin, N.get().End};
      switch (V->K) {
      case EvalValue::Int:
        if (V->I == INT64_MIN) {
          Self.Error(R, "integer overflow in -(" + V->str() + ")");
          return std::nullopt;
        }
        return EvalValue::ofInt(-V->I);
      case EvalValue::Float:
        return EvalValue::ofFloat(-V->F);
      case EvalValue::Bool:
      case EvalValue::String:
        Self.Error(R, llvm::Twine("unary '-' cannot be applied to ") +
                          V->kindName() + " (" + V->str() + ")");
        return std::nullopt;
      }
      return std::nullopt;
    }
    result_type operator()(const x3::forward_ast<ast::Call> &C) const {
      return Self.call(C.get());
    }
    result_type operator()(const x3::forward_ast<ast::Expr> &E) const {
      return Self.eval(E.get());
    }
  };
  return boost::apply_visitor(Visitor{*this}, O);
}

std::optional<EvalValue> ExprEvaluator::binary(char Op, const EvalValue &L,
                                               const EvalValue &R,
                                               SourceRange Where) {
  std::string Shown =
      Describe ? Describe() : L.str() + " " + Op + " " + R.str();
  for (const EvalValue *V : {&L, &R}) {
    if (V->K == EvalValue::Bool || V->K == EvalValue::String) {
      Error(Where, llvm::Twine("operator '") + llvm::Twine(Op) +
                       "' cannot be applied to " + V->kindName() + " (" +
                       Shown + ")");
      return std::nullopt;
    }
  }
  if (L.K == EvalValue::Int && R.K == EvalValue::Int) {
    int64_t V = 0;
    bool Overflow = false;
    switch (Op) {
    case '+':
      Overflow = __builtin_add_overflow(L.I, R.I, &V);
      break;
    case '-':
      Overflow = __builtin_sub_overflow(L.I, R.I, &V);
      break;
    case '*':
      Overflow = __builtin_mul_overflow(L.I, R.I, &V);
      break;
    case '/':
      if (R.I == 0) {
        Error(Where, "division by zero in " + Shown);
        return std::nullopt;
      }
      if (L.I == INT64_MIN && R.I == -1) {
        Overflow = true;
        break;
      }
      if (L.I % R.I != 0) {
        Error(Where, "integer division " + Shown + " is not exact (remainder " +
                         std::to_string(L.I % R.I) +
                         "); write a float such as " + L.str() + ".0 / " +
                         R.str() + " for a fraction");
        return std::nullopt;
      }
      V = L.I / R.I;
      break;
    }
    if (Overflow) {
      Error(Where, "integer overflow in " + Shown);
      return std::nullopt;
    }
    return EvalValue::ofInt(V);
  }
  double A = L.asDouble(), B = R.asDouble(), V = 0;
  switch (Op) {
  case '+':
    V = A + B;
    break;
  case '-':
    V = A - B;
    break;
  case '*':
    V = A * B;
    break;
  case '/':
    if (B == 0) {
      Error(Where, "division by zero in " + Shown);
      return std::nullopt;
    }
    V = A / B;
    break;
  }
  if (!std::isfinite(V)) {
    Error(Where, "float overflow in " + Shown);
    return std::nullopt;
  }
  return EvalValue::ofFloat(V);
}

std::optional<EvalValue> ExprEvaluator::call(const ast::Call &C) {
  SourceRange R{C.Begin, C.End};
  if (C.Callee.Name != "sqrt") {
    Error({C.Callee.Begin, C.Callee.End},
          "unknown function '" + C.Callee.Name +
              "' in an expression; the only function is sqrt");
    return std::nullopt;
  }
  if (C.Args.size() != 1) {
    Error(R, "sqrt takes one argument, but " + std::to_string(C.Args.size()) +
                 " were given");
    return std::nullopt;
  }
  const ast::Arg &A = C.Args.front();
  if (A.Name) {
    Error({A.Begin, A.End}, "sqrt takes a plain expression, not a named "
                            "argument '" +
                                A.Name->Name + " = ...'");
    return std::nullopt;
  }
  std::optional<EvalValue> V = eval(A.Value);
  if (!V)
    return std::nullopt;
  if (V->K == EvalValue::Bool) {
    Error(R, "sqrt cannot be applied to a boolean (" + V->str() + ")");
    return std::nullopt;
  }
  if (V->asDouble() < 0) {
    Error(R, "sqrt of a negative number (" + V->str() + ")");
    return std::nullopt;
  }
  return EvalValue::ofFloat(std::sqrt(V->asDouble()));
}
