//===- Parser.h - Parse a .enc file into its AST ----------------*- C++ -*-===//
#ifndef ENC_LANG_PARSER_H
#define ENC_LANG_PARSER_H

#include "enc/lang/AST.h"
#include "enc/lang/Diagnostics.h"

namespace enc {

/// Deepest nesting of parentheses and unary minus accepted in an expression;
/// deeper input gets a diagnostic instead of exhausting the stack.
constexpr unsigned MaxExpressionDepth = 256;

/// Parses the whole file, reporting every syntax error it can recover from
/// (after an error it resumes at the next `;`, `}` or `encoder`). Returns the
/// encoders that parsed; the caller checks Diags.hasErrors().
ast::File parseFile(const SourceFile &File, DiagnosticEngine &Diags);

} // namespace enc

#endif // ENC_LANG_PARSER_H
