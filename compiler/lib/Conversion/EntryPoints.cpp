//===- EntryPoints.cpp - NAME_load, NAME_free, NAME_workspace_bytes -------===//
//
// Every entry point of ModelABI.def is declared first, with the LLVM type of
// its typedef in enc/runtime.h, so that NAME_forward can call
// NAME_workspace_bytes; then the small ones get their bodies here:
//
//   NAME_load(path, out)        enc_model_create over the descriptor table
//   NAME_free(model)            enc_model_destroy
//   NAME_workspace_bytes(b, s)  4 * arena_row_floats * b * s
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

#include "enc/ABI/ModelABI.h"

using namespace mlir;
using namespace enc;

void enc::declareEntryPoints(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  OpBuilder::InsertionGuard G(B);
  for (const ModelFunction &F : modelFunctions()) {
    B.setInsertionPointToEnd(B.module().getBody());
    E.EntryPoints[F.Suffix] = B.create<LLVM::LLVMFuncOp>(
        E.Func.getLoc(), F.symbol(E.Func.getName()), F.Type(B.getContext()));
  }
}

void enc::emitLoadFreeAndWorkspace(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  OpBuilder::InsertionGuard G(B);
  int32_t N = E.Slots.size();

  Block *Entry = E.EntryPoints["load"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  Value Status = B.call(ENC_RUNTIME_CALLEE(enc_model_create),
                        {Entry->getArgument(0), B.addressOf(E.Descriptors, L),
                         B.i32(N, L), Entry->getArgument(1)},
                        L);
  B.create<LLVM::ReturnOp>(L, Status);

  Entry = E.EntryPoints["free"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  B.call(ENC_RUNTIME_CALLEE(enc_model_destroy),
         {B.addressOf(E.Descriptors, L), B.i32(N, L), Entry->getArgument(0)},
         L);
  B.create<LLVM::ReturnOp>(L, ValueRange{});

  Entry = E.EntryPoints["workspace_bytes"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  int64_t ArenaRowFloats = getArenaRowFloats(E.Func).value_or(0);
  Value Rows = B.create<LLVM::MulOp>(
      L, B.create<LLVM::SExtOp>(L, B.i64Type(), Entry->getArgument(0)),
      B.create<LLVM::SExtOp>(L, B.i64Type(), Entry->getArgument(1)));
  B.create<LLVM::ReturnOp>(
      L, Value(B.create<LLVM::MulOp>(
             L, Rows, B.i64(sizeof(float) * ArenaRowFloats, L))));
}
