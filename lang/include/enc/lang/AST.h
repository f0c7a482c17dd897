//===- AST.h - The syntax tree of a .enc file -------------------*- C++ -*-===//
//
// What the parser produces: encoders, their settings and the expressions on
// the right of each `=`, exactly as written. Every node records the byte range
// it covers in the source so that diagnostics and the compiler's locations
// can point back into the file. Meaning (types, defaults, inheritance) is
// given by Sema, not here.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_AST_H
#define ENC_LANG_AST_H

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace enc {
namespace ast {

namespace x3 = boost::spirit::x3;

/// A half-open byte range [Begin, End) in the source buffer.
struct Located {
  uint32_t Begin = 0;
  uint32_t End = 0;
};

struct Identifier : Located {
  std::string Name;
};

/// A numeric literal kept as its spelling: Sema decides int or float and
/// reports literals that do not fit.
struct NumberLit : Located {
  std::string Text;
};

struct BoolLit : Located {
  std::string Text; // "true" or "false"
};

/// A string literal: Text is what is between the quotes (no escapes; a
/// string may not hold a quote or a line break).
struct StringLit : Located {
  std::string Text;
};

struct Nil {};
struct Negate;
struct Call;
struct Expr;

/// factor := NUMBER | BOOL | STRING | IDENT | call | "(" expr ")"
///         | "-" factor
struct Operand : x3::variant<Nil, NumberLit, BoolLit, StringLit, Identifier,
                             x3::forward_ast<Negate>, x3::forward_ast<Call>,
                             x3::forward_ast<Expr>> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Negate : Located {
  char Op = '-';
  Operand Inner;
};

/// One `op operand` step of a left-associative chain.
struct Operation : Located {
  char Op = 0;
  Operand Rhs;
};

/// A chain `first (op rhs)*` of one precedence level; a `term` is an Expr
/// whose operations are `*` and `/`, an `expr` one of `+` and `-`.
struct Expr : Located {
  Operand First;
  std::vector<Operation> Rest;
};

/// `name = value` inside a call; Name is absent for a positional argument
/// (only `sqrt` takes one; schemes reject them with a diagnostic).
struct Arg : Located {
  boost::optional<Identifier> Name;
  Expr Value;
};

/// `name(args)`: a scheme with arguments such as `rope(base = 500000.0)`, or
/// the `sqrt` function.
struct Call : Located {
  Identifier Callee;
  std::vector<Arg> Args;
};

struct Setting : Located {
  Identifier Key;
  Expr Value;
};

struct Encoder : Located {
  Identifier Name;
  boost::optional<Identifier> Base;
  std::vector<Setting> Settings;
  /// A syntax error dropped some of its settings: Sema does not then report
  /// required settings as missing.
  bool Incomplete = false;
};

struct File {
  std::vector<Encoder> Encoders;
};

} // namespace ast
} // namespace enc

#endif // ENC_LANG_AST_H
