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
LogicalResult lowerEncoder(ModuleOp Module, func::FuncOp Func,
                           std::vector<RegistryEntry> &Registry) {
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
  emitEntryPointBodies(E);
  // A row added to ModelABI.def needs a body here too, not a dangling
  // declaration that fails at link time.
  for (auto &[Suffix, Fn] : E.EntryPoints)
    if (Fn.isExternal())
      return Func.emitError("no lowering for the entry point ")
             << Fn.getName() << " (ModelABI.def)";
  Registry.push_back({Func.getName().str(), modelFacts(Func), Func.getLoc()});
  Func.erase();
  return success();
}

struct LowerToRuntimePass
    : enc::impl::EncLowerToRuntimeBase<LowerToRuntimePass> {
  using EncLowerToRuntimeBase::EncLowerToRuntimeBase;
  void runOnOperation() override {
    ModuleOp Module = getOperation();
    SmallVector<func::FuncOp> Funcs(Module.getOps<func::FuncOp>());
    std::vector<RegistryEntry> Registry;
    for (func::FuncOp F : Funcs)
      if (isEncoder(F) && failed(lowerEncoder(Module, F, Registry)))
        return signalPassFailure();
    if (library && failed(emitLibraryRegistry(Module, Registry)))
      return signalPassFailure();
  }
};
} // namespace
