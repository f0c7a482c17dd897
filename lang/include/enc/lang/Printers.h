//===- Printers.h - Textual forms of the AST and the ModelSpec --*- C++ -*-===//
#ifndef ENC_LANG_PRINTERS_H
#define ENC_LANG_PRINTERS_H

#include "enc/lang/AST.h"
#include "enc/lang/Diagnostics.h"
#include "enc/lang/ModelSpec.h"

#include "llvm/ADT/ArrayRef.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace enc {

/// A tree in the style of `clang -ast-dump`: one node per line with its
/// source position (`<line:col>`).
void dumpAST(const ast::File &File, const SourceFile &Source,
             llvm::raw_ostream &OS);

/// `{"file": ..., "encoders": [ {every setting, defaults filled in} ]}`.
void printSpecJSON(llvm::ArrayRef<ModelSpec> Specs, llvm::StringRef FileName,
                   llvm::raw_ostream &OS);

} // namespace enc

#endif // ENC_LANG_PRINTERS_H
