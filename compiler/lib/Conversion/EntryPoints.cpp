//===- EntryPoints.cpp - The bodies of the C ABI's entry points -----------===//
//
// Every entry point of ModelABI.def is declared first, with the LLVM type of
// its typedef in enc/runtime.h, so that the forward body can call
// NAME_workspace_bytes; then each gets its body here:
//
//   NAME_load(path, out)        enc_model_create over the descriptor table
//   NAME_free(model)            enc_model_destroy
//   NAME_workspace_bytes(b, s)  4 * arena_row_floats * b * s
//   NAME_forward(m, in, out)    NAME.forward_body(m, in, out, NULL)
//   NAME_forward_attention(m, in, out, probs)
//                               enc_check_probs, then
//                               NAME.forward_body(m, in, out, probs)
//   NAME_pack(weights, packed)  enc_model_pack over the descriptor table
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

void enc::emitEntryPointBodies(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  OpBuilder::InsertionGuard G(B);
  int32_t N = E.Slots.size();

  Block *Entry = E.EntryPoints["load"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  Value Loaded = B.call(ENC_RUNTIME_CALLEE(enc_model_create),
                        {Entry->getArgument(0), B.addressOf(E.Descriptors, L),
                         B.i32(N, L), Entry->getArgument(1)},
                        L);
  B.create<LLVM::ReturnOp>(L, Loaded);

  Entry = E.EntryPoints["pack"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  Value Packed = B.call(ENC_RUNTIME_CALLEE(enc_model_pack),
                        {Entry->getArgument(0), Entry->getArgument(1),
                         B.addressOf(E.Descriptors, L), B.i32(N, L)},
                        L);
  B.create<LLVM::ReturnOp>(L, Packed);

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

  Entry = E.EntryPoints["forward"].addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  Value Status = B.create<LLVM::CallOp>(
                      L, E.Body,
                      ValueRange{Entry->getArgument(0), Entry->getArgument(1),
                                 Entry->getArgument(2), B.null(L)})
                     .getResult();
  B.create<LLVM::ReturnOp>(L, Status);

  LLVM::LLVMFuncOp WithProbs = E.EntryPoints["forward_attention"];
  Entry = WithProbs.addEntryBlock(B);
  Block *Fail = B.createBlock(&WithProbs.getBody(), {}, {B.i32Type()}, {L});
  B.create<LLVM::ReturnOp>(L, Fail->getArgument(0));
  B.setFailBlock(Fail);
  B.setInsertionPointToEnd(Entry);
  LLVM::GlobalOp Name = B.stringGlobal(E.stringSymbol(), E.Func.getName(), L);
  B.callChecked(ENC_RUNTIME_CALLEE(enc_check_probs),
                {Entry->getArgument(3), B.addressOf(Name, L)}, L);
  Status = B.create<LLVM::CallOp>(L, E.Body, Entry->getArguments()).getResult();
  B.create<LLVM::ReturnOp>(L, Status);
}
