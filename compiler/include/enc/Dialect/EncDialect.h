//===- EncDialect.h - The enc dialect ---------------------------*- C++ -*-===//
#ifndef ENC_DIALECT_ENCDIALECT_H
#define ENC_DIALECT_ENCDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "enc/kernels/model.h"

#include <cstdint>
#include <optional>

#include "enc/Dialect/EncDialect.h.inc"
#include "enc/Dialect/EncEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "enc/Dialect/EncAttrs.h.inc"

namespace enc {

//===----------------------------------------------------------------------===//
// The IR contract's attributes (EncDialect.td's discardableAttrs), typed.
// The dialect verifies them, so readers need no checks of their own.
//===----------------------------------------------------------------------===//

/// The compile-time facts of an encoder function: X(Field, Helper, least
/// valid value) for each, Helper naming EncDialect::<Helper>AttrHelper (the
/// attribute enc.d_model is DModel, enc.d_ff is DFf).
#define ENC_ENCODER_FACTS(X)                                                   \
  X(DModel, DModel, 1)                                                         \
  X(MaxLen, MaxLen, 1)                                                         \
  X(Vocab, Vocab, 0)                                                           \
  X(TypeVocab, TypeVocab, 0)                                                   \
  X(Heads, Heads, 1)                                                           \
  X(Blocks, Blocks, 1)                                                         \
  X(DFF, DFf, 1)

struct EncoderFacts {
#define ENC_FACT_FIELD(Field, Helper, Min) int64_t Field = 0;
  ENC_ENCODER_FACTS(ENC_FACT_FIELD)
#undef ENC_FACT_FIELD
};

/// True for a function imported from an encoder (it carries enc.d_model).
bool isEncoder(mlir::Operation *Func);
/// The facts of an encoder function.
EncoderFacts getEncoderFacts(mlir::Operation *Func);
void setEncoderFacts(mlir::Operation *Func, const EncoderFacts &Facts);

/// The checkpoint layout of an encoder's weights file (enc when unset).
enc_checkpoint getCheckpoint(mlir::Operation *Func);
void setCheckpoint(mlir::Operation *Func, enc_checkpoint Layout);

/// The precision of an encoder's linear layers' weights (fp32 when unset).
WeightPrecision getPrecision(mlir::Operation *Func);
void setPrecision(mlir::Operation *Func, WeightPrecision Precision);

/// Floats per row of the activation arena, once enc-plan-buffers ran.
std::optional<int64_t> getArenaRowFloats(mlir::Operation *Func);
void setArenaRowFloats(mlir::Operation *Func, int64_t Floats);

/// The arena offset (floats per row) of an op's result, once planned.
std::optional<int64_t> getRowOffset(mlir::Operation *Op);
void setRowOffset(mlir::Operation *Op, int64_t Offset);
/// The operand whose memory an op's result took (InPlaceWritable), once
/// planned.
std::optional<unsigned> getInPlaceOf(mlir::Operation *Op);
void setInPlaceOf(mlir::Operation *Op, unsigned Operand);
/// Whether the planner put an op's result in the caller's output buffer
/// (enc.in_output) instead of the arena.
bool isInOutput(mlir::Operation *Op);
void setInOutput(mlir::Operation *Op);
/// The same for a function argument the planner gave a buffer.
std::optional<int64_t> getRowOffset(mlir::FunctionOpInterface Func,
                                    unsigned Arg);
void setRowOffset(mlir::FunctionOpInterface Func, unsigned Arg, int64_t Offset);
bool isInOutput(mlir::FunctionOpInterface Func, unsigned Arg);
void setInOutput(mlir::FunctionOpInterface Func, unsigned Arg);
/// The width of the buffer a planned function keeps in the caller's output
/// (its op result or argument marked enc.in_output), or 0 when none is.
int64_t inOutputWidth(mlir::FunctionOpInterface Func);

/// The enc_input field (docs/c-abi.md) a function argument reads:
/// "embeddings", "tokens", "token_types" or "lengths".
std::optional<llvm::StringRef> getInputField(mlir::FunctionOpInterface Func,
                                             unsigned Arg);
void setInputField(mlir::FunctionOpInterface Func, unsigned Arg,
                   llvm::StringRef Field);

} // namespace enc

#endif // ENC_DIALECT_ENCDIALECT_H
