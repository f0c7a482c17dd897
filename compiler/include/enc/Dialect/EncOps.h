//===- EncOps.h - Operations of the enc dialect -----------------*- C++ -*-===//
#ifndef ENC_DIALECT_ENCOPS_H
#define ENC_DIALECT_ENCOPS_H

#include "enc/Dialect/EncDialect.h"
#include "enc/Dialect/EncLowering.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "enc/Dialect/EncOps.h.inc"

#include <optional>

namespace enc {
/// A block's attention, from enc.attention or enc.attention_block: its
/// heads, the queries' width (heads * d_k), its window and its scale.
struct AttentionFacts {
  int64_t Heads, Width, Window;
  float Scale;
};
/// `Op`'s attention, or none when it is neither op.
std::optional<AttentionFacts> attentionFacts(mlir::Operation *Op);

/// Fails, naming the user, unless every user of `Weight` (an enc.weight or
/// enc.concat_weights) implements ReadsWeights (WeightRoles.cpp).
mlir::LogicalResult verifyWeightUsers(mlir::Operation *Weight);
} // namespace enc

#endif // ENC_DIALECT_ENCOPS_H
