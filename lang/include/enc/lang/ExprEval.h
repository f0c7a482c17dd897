//===- ExprEval.h - Compile-time evaluation of .enc expressions -*- C++ -*-===//
//
// Integers are int64 with overflow detection and exact division; floats are
// doubles that must stay finite; mixing promotes to float; `sqrt` yields a
// float. Booleans take part in no arithmetic. Identifiers are resolved by the
// caller (Sema looks them up as other settings of the same encoder).
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_EXPREVAL_H
#define ENC_LANG_EXPREVAL_H

#include "enc/lang/AST.h"
#include "enc/lang/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace enc {

struct EvalValue {
  enum Kind { Int, Float, Bool, String } K = Int;
  int64_t I = 0;
  double F = 0.0;
  bool B = false;
  std::string S;

  static EvalValue ofInt(int64_t V) { return {Int, V, 0.0, false, {}}; }
  static EvalValue ofFloat(double V) { return {Float, 0, V, false, {}}; }
  static EvalValue ofBool(bool V) { return {Bool, 0, 0.0, V, {}}; }
  static EvalValue ofString(std::string V) {
    return {String, 0, 0.0, false, std::move(V)};
  }
  double asDouble() const { return K == Int ? double(I) : F; }
  /// As the user would write it: `768`, `0.5`, `true`, `"a.json"`.
  std::string str() const;
  /// "an integer", "a float", "a boolean", "a string".
  const char *kindName() const;
};

class ExprEvaluator {
public:
  /// Returns the value of a referenced setting, or nullopt after reporting
  /// (or having reported) why it has none.
  using LookupFn =
      llvm::function_ref<std::optional<EvalValue>(const ast::Identifier &)>;
  using ErrorFn = llvm::function_ref<void(SourceRange, const llvm::Twine &)>;

  ExprEvaluator(LookupFn Lookup, ErrorFn Error)
      : Lookup(Lookup), Error(Error) {}

  /// nullopt when an error was reported (or a looked-up setting failed).
  std::optional<EvalValue> eval(const ast::Expr &E);
  std::optional<EvalValue> eval(const ast::Operand &O);

  /// Reads a numeric literal: digits only is an int64, otherwise a double.
  std::optional<EvalValue> evalNumber(const ast::NumberLit &N);

  /// How errors in an operation name it. By default the operation with its
  /// values ("4 * 768"); Sema names a default instead ("the default d_ff =
  /// 4 * d_model (d_model is 768)").
  void setDescription(std::function<std::string()> Describe) {
    this->Describe = std::move(Describe);
  }

private:
  std::optional<EvalValue> binary(char Op, const EvalValue &L,
                                  const EvalValue &R, SourceRange Where);
  std::optional<EvalValue> call(const ast::Call &C);

  LookupFn Lookup;
  ErrorFn Error;
  std::function<std::string()> Describe;
};

/// Strips redundant wrapping (an Expr with no operations, parentheses) down
/// to the operand it holds.
const ast::Operand &stripParens(const ast::Expr &E);
SourceRange rangeOf(const ast::Operand &O);

} // namespace enc

#endif // ENC_LANG_EXPREVAL_H
