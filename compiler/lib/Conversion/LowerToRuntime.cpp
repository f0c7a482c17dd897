//===- LowerToRuntime.cpp - enc -> calls into the runtime, in LLVM --------===//
//
// Each planned encoder function NAME becomes the entry points of
// ModelABI.def in the LLVM dialect, with the C ABI of docs/c-abi.md; the
// steps are described in EncoderLowering.h.
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

#include "enc/Transforms/Passes.h"

namespace enc {
#define GEN_PASS_DEF_ENCLOWERTORUNTIME
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
LogicalResult lowerEncoder(ModuleOp Module, func::FuncOp Func) {
  if (!getArenaRowFloats(Func))
    return Func.emitError("encoder '")
           << Func.getName() << "' is not planned: run enc-plan-buffers first";
  EncoderLowering E(Module, Func);
  if (failed(collectSlots(E)))
    return failure();
  emitWeightTables(E);
  declareEntryPoints(E);
  if (failed(emitForwardPrologue(E)) || failed(emitForwardBody(E)))
    return failure();
  emitLoadFreeAndWorkspace(E);
  // A row added to ModelABI.def needs a body here too, not a dangling
  // declaration that fails at link time.
  for (auto &[Suffix, Fn] : E.EntryPoints)
    if (Fn.isExternal())
      return Func.emitError("no lowering for the entry point ")
             << Fn.getName() << " (ModelABI.def)";
  Func.erase();
  return success();
}

struct LowerToRuntimePass
    : enc::impl::EncLowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp Module = getOperation();
    SmallVector<func::FuncOp> Funcs(Module.getOps<func::FuncOp>());
    for (func::FuncOp F : Funcs)
      if (isEncoder(F) && failed(lowerEncoder(Module, F)))
        return signalPassFailure();
  }
};
} // namespace
