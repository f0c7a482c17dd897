//===- Passes.h - The enc dialect's passes ----------------------*- C++ -*-===//
#ifndef ENC_TRANSFORMS_PASSES_H
#define ENC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace enc {

#define GEN_PASS_DECL
#include "enc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "enc/Transforms/Passes.h.inc"

/// The optimisation pipeline (`--emit=mlir-opt`): fold positional tables,
/// and unless `Fuse` is false (-O0) fuse projections and epilogues, then
/// plan buffers.
void buildOptimizationPipeline(mlir::OpPassManager &PM, bool Fuse);

/// From planned enc to the LLVM dialect (`--emit=llvm` and beyond); with
/// `Library`, plus the registry a shared library exports (enc/library.h).
void buildLoweringPipeline(mlir::OpPassManager &PM, bool Library = false);

/// Every OpT under `Root`, in walk order: a pass that rewrites each of them,
/// creating and erasing ops around it, visits a list fixed beforehand.
template <typename OpT>
llvm::SmallVector<OpT> collectOps(mlir::Operation *Root) {
  llvm::SmallVector<OpT> Ops;
  Root->walk([&](OpT Op) { Ops.push_back(Op); });
  return Ops;
}

} // namespace enc

#endif // ENC_TRANSFORMS_PASSES_H
