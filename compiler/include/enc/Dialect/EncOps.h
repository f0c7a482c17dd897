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

#endif // ENC_DIALECT_ENCOPS_H
