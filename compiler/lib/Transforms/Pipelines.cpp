//===- Pipelines.cpp - The pass pipelines encc runs -----------------------===//

#include "enc/Transforms/Passes.h"

using namespace mlir;

void enc::buildOptimizationPipeline(OpPassManager &PM, bool Fuse) {
  PM.addPass(createEncFoldPositional());
  OpPassManager &Funcs = PM.nest<func::FuncOp>();
  if (Fuse) {
    Funcs.addPass(createEncFuseProjections());
    Funcs.addPass(createEncFuseEpilogues());
    Funcs.addPass(createEncFuseNorms());
    Funcs.addPass(createEncChunkQueries());
    Funcs.addPass(createEncChunkFfn());
  }
  Funcs.addPass(createEncPlanBuffers());
}

void enc::buildLoweringPipeline(OpPassManager &PM, bool Library) {
  EncLowerToRuntimeOptions Options;
  Options.library = Library;
  PM.addPass(createEncLowerToRuntime(Options));
}
