//===- ModelABI.h - The table of what encc emits per encoder ----*- C++ -*-===//
//
// ModelABI.def as data, for the header emitter, the lowering and the name
// check (docs/c-abi.md).
//
//===----------------------------------------------------------------------===//
#ifndef ENC_ABI_MODELABI_H
#define ENC_ABI_MODELABI_H

#include "enc/Dialect/EncDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace enc {

class DiagnosticEngine;
struct ModelSpec;

/// The compile-time facts the header's macros give (ENC_MODEL_MACRO).
/// And those the registry of a shared library gives (ENC_MODEL_INFO).
struct ModelFacts : EncoderFacts { ///< the encoder's, and these:
  int64_t Pooled = 0;
  int64_t HeadDim = 0;   ///< each head's width
  int64_t Pooling = 0;   ///< enc_pool_mode
  int64_t Normalize = 0; ///< 1: unit-norm output vectors
  int64_t OutDim = 0;    ///< floats per output row (output_dim, labels)
  int64_t Head = 0;      ///< enc_head_kind
  int64_t Scores = 0;    ///< enc_scores of a classifier's rows
};
/// The facts of a planned (or imported) encoder function.
ModelFacts modelFacts(mlir::Operation *Func);

/// The entry points, one enumerator per ENC_MODEL_FUNCTION row: what
/// switches over them (the C++ wrapper's methods) must handle each.
enum class ModelEntry {
#define ENC_MODEL_FUNCTION(Suffix, Typedef, Return, Params, Doc) Suffix,
#include "enc/ABI/ModelABI.def"
};

/// One entry point NAME_<Suffix>.
struct ModelFunction {
  ModelEntry Entry;
  const char *Suffix;
  /// Its LLVM type, from the runtime's typedef.
  mlir::LLVM::LLVMFunctionType (*Type)(mlir::MLIRContext *);
  const char *Return; ///< C return type, as the header spells it
  const char *Params; ///< "(NAME *model, ...)", NAME standing for the encoder
  const char *Doc;
  /// `Return NAME_Suffix(Params with NAME replaced)`, without a ';'.
  std::string declaration(llvm::StringRef Encoder) const;
  std::string symbol(llvm::StringRef Encoder) const;
};
llvm::ArrayRef<ModelFunction> modelFunctions();
/// The row of NAME_<Suffix>; asserts that there is one.
const ModelFunction &modelFunction(llvm::StringRef Suffix);

/// One macro NAME_<Suffix>.
struct ModelMacro {
  const char *Suffix;
  int64_t ModelFacts::*Fact;
  const char *Doc;
  std::string symbol(llvm::StringRef Encoder) const;
};
llvm::ArrayRef<ModelMacro> modelMacros();

/// One int32_t field of enc_encoder_info (enc/library.h) and its fact.
struct ModelInfoField {
  const char *Field;
  int64_t ModelFacts::*Fact;
};
llvm::ArrayRef<ModelInfoField> modelInfoFields();

/// Refuses encoders whose names another encoder's C ABI also defines
/// (encoder `a_load` beside encoder `a`), with the diagnostic and a note at
/// the other encoder. Run after Sema, on every resolved encoder of the file.
void checkGeneratedNames(llvm::ArrayRef<ModelSpec> Specs,
                         DiagnosticEngine &Diags);

} // namespace enc

#endif // ENC_ABI_MODELABI_H
