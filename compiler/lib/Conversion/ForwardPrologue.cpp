//===- ForwardPrologue.cpp - The forward body up to its first op ----------===//
//
// NAME_forward and NAME_forward_attention call one internal body, always
// inlined, so that NAME_forward's copy folds probs = NULL away:
//
//   enc_status NAME.forward_body(model, in, out, probs) {
//     if (s = enc_check_model(model, "NAME")) return s;
//     no_out = !out && probs;      // false in NAME_forward's copy
//     if (s = enc_check_input(&NAME_info, in, no_out ? probs : out)) return s;
//     bytes = NAME_workspace_bytes(in->batch, in->seq_len);
//     ws = enc_workspace(bytes + (no_out ? output bytes : 0));
//     if (!ws) return ENC_ERR_NOMEM;
//     if (no_out) out = ws + bytes;  // forward_attention without an output
//
// then the input fields, the slots of the loaded model and the constant
// tables become views for the ops; a padded `embeddings` input the planner
// gave a buffer is packed into it.
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

using namespace mlir;
using namespace enc;

namespace {
/// Field `Name` of the caller's enc_input.
Value loadInput(EncoderLowering &E, llvm::StringRef Name, Location L) {
  RuntimeBuilder &B = E.B;
  auto InputTy = abi::structType<enc_input>(B.getContext());
  unsigned Index = *abi::fieldIndex<enc_input>(Name);
  Value P = B.create<LLVM::GEPOp>(
      L, B.ptrType(), InputTy, E.Input,
      ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(Index)});
  return B.create<LLVM::LoadOp>(L, InputTy.getBody()[Index], P);
}

/// Views of the function's arguments: the enc_input fields they name.
LogicalResult viewArguments(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  for (BlockArgument Arg : E.Func.getArguments()) {
    unsigned N = Arg.getArgNumber();
    std::optional<llvm::StringRef> Field = getInputField(E.Func, N);
    if (!Field) // the verifier requires one on an encoder function
      return E.Func.emitError("argument #") << N << " has no enc.input field";
    int64_t Width = cast<RankedTensorType>(Arg.getType()).getShape().back();
    Value Ptr = loadInput(E, *Field, L);
    E.Views[Arg] = {Ptr, Width};
    std::optional<int64_t> Offset = getRowOffset(E.Func, N);
    const bool InOutput = isInOutput(E.Func, N);
    if (!Offset && !InOutput)
      continue;
    // The planner gave the padded input a buffer (or `out`): pack it there.
    View Packed{
        InOutput
            ? E.Out
            : B.offset(E.Workspace,
                       B.create<LLVM::MulOp>(L, E.Rows, B.i64(*Offset, L)), L),
        Width};
    B.callChecked(ENC_RUNTIME_CALLEE(enc_embed_floats),
                  {E.Batch, E.SeqLen, Ptr, B.i64(Width, L), E.Lengths,
                   B.null(L), B.i64(0, L), B.i64(Width, L), Packed.Ptr,
                   B.i64(Packed.Ld, L)},
                  L);
    E.Views[Arg] = Packed;
  }
  return success();
}

/// When the planner put the hidden states in `out` (enc.in_output), refuse
/// an `out` that overlaps an input array the forward still reads, before
/// anything is written.
void checkOutApart(EncoderLowering &E, Location L) {
  RuntimeBuilder &B = E.B;
  const int64_t Width = inOutputWidth(E.Func);
  if (Width == 0)
    return;
  B.callChecked(ENC_RUNTIME_CALLEE(enc_check_out_apart),
                {B.addressOf(E.Info, L), E.Input, E.Out,
                 B.create<LLVM::MulOp>(L, E.Rows, B.i64(Width, L))},
                L);
}
} // namespace

LogicalResult enc::emitForwardPrologue(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  {
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToEnd(B.module().getBody());
    auto Ptr = B.ptrType();
    // A '.' keeps the name apart from every encoder's own symbols.
    E.Body = B.create<LLVM::LLVMFuncOp>(
        L, E.symbol(".forward_body"),
        LLVM::LLVMFunctionType::get(B.i32Type(), {Ptr, Ptr, Ptr, Ptr}),
        LLVM::Linkage::Internal);
    E.Body.setAlwaysInline(true);
  }
  LLVM::LLVMFuncOp Forward = E.Body;
  Block *Entry = Forward.addEntryBlock(B);
  Block *Fail = B.createBlock(&Forward.getBody(), {}, {B.i32Type()}, {L});
  B.create<LLVM::ReturnOp>(L, Fail->getArgument(0));
  B.setFailBlock(Fail);
  // Work in a body block after the entry, so that allocas stay in the entry.
  Block *Body = B.createBlock(Fail);
  B.setInsertionPointToEnd(Entry);
  E.AttentionParams = B.create<LLVM::AllocaOp>(
      L, B.ptrType(), abi::structType<enc_attention_params>(B.getContext()),
      B.i32(1, L), alignof(enc_attention_params));
  B.create<LLVM::BrOp>(L, Body);
  B.setInsertionPointToStart(Body);

  E.Model = Entry->getArgument(0);
  E.Input = Entry->getArgument(1);
  Value Out = Entry->getArgument(2);
  E.Probs = Entry->getArgument(3);
  LLVM::GlobalOp Name = B.stringGlobal(E.stringSymbol(), E.Func.getName(), L);
  B.callChecked(ENC_RUNTIME_CALLEE(enc_check_model),
                {E.Model, B.addressOf(Name, L)}, L);
  // Without an output (forward_attention may omit it) the checks see probs,
  // which NAME_forward_attention checked. NoOut also tests probs, so that in
  // NAME_forward (probs = NULL) it folds to false, and with it every select
  // below: NAME_forward computes exactly what it did without probs.
  Value NoOut = B.create<LLVM::AndOp>(
      L, B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::eq, Out, B.null(L)),
      B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::ne, E.Probs, B.null(L)));
  B.callChecked(ENC_RUNTIME_CALLEE(enc_check_input),
                {B.addressOf(E.Info, L), E.Input,
                 B.create<LLVM::SelectOp>(L, NoOut, E.Probs, Out)},
                L);

  E.Batch = loadInput(E, "batch", L);
  E.SeqLen = loadInput(E, "seq_len", L);
  E.Lengths = loadInput(E, "lengths", L);
  E.Rows =
      B.create<LLVM::MulOp>(L, B.create<LLVM::SExtOp>(L, B.i64Type(), E.Batch),
                            B.create<LLVM::SExtOp>(L, B.i64Type(), E.SeqLen));
  E.ValidRows = B.call(ENC_RUNTIME_CALLEE(enc_valid_rows),
                       {E.Batch, E.SeqLen, E.Lengths}, L);

  Value Bytes = B.create<LLVM::CallOp>(L, E.EntryPoints["workspace_bytes"],
                                       ValueRange{E.Batch, E.SeqLen})
                    .getResult();
  // Room for the output too when there is no `out`: batch * seq_len rows of
  // d_model floats hold it, pooled or not.
  Value OutBytes = B.create<LLVM::MulOp>(
      L, E.Rows, B.i64(sizeof(float) * getEncoderFacts(E.Func).DModel, L));
  Value Extra = B.create<LLVM::SelectOp>(L, NoOut, OutBytes, B.i64(0, L));
  E.Workspace = B.call(ENC_RUNTIME_CALLEE(enc_workspace),
                       {B.create<LLVM::AddOp>(L, Bytes, Extra)}, L);
  Value NoMemory = B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::eq,
                                          E.Workspace, B.null(L));
  B.failIf(NoMemory, B.i32(ENC_ERR_NOMEM, L), L);
  Value Scratch = B.create<LLVM::GEPOp>(L, B.ptrType(), B.getI8Type(),
                                        E.Workspace, ValueRange{Bytes});
  E.Out = B.create<LLVM::SelectOp>(L, NoOut, Scratch, Out);
  checkOutApart(E, L);

  if (failed(viewArguments(E)))
    return failure();

  // Slot i of the loaded model, and the constant tables.
  for (auto [Index, S] : llvm::enumerate(E.Slots)) {
    Value P = B.create<LLVM::GEPOp>(
        L, B.ptrType(), B.ptrType(), E.Model,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(Index)});
    E.Views[S.Op->getResult(0)] = {B.create<LLVM::LoadOp>(L, B.ptrType(), P),
                                   0};
  }
  for (auto &[Op, Global] : E.Constants)
    E.Views[Op->getResult(0)] = {B.addressOf(Global, L), 0};
  return success();
}
