//===- RuntimeBuilder.cpp - Building calls into the runtime ---------------===//

#include "RuntimeBuilder.h"

using namespace mlir;
using namespace enc;

RuntimeBuilder::RuntimeBuilder(ModuleOp Module)
    : OpBuilder(Module.getContext()), Module(Module),
      Ptr(LLVM::LLVMPointerType::get(Module.getContext())), I32(getI32Type()),
      I64(getI64Type()), F32(getF32Type()) {}

Value RuntimeBuilder::i32(int64_t V, Location L) {
  return create<LLVM::ConstantOp>(L, I32, getI32IntegerAttr(V));
}
Value RuntimeBuilder::i64(int64_t V, Location L) {
  return create<LLVM::ConstantOp>(L, I64, getI64IntegerAttr(V));
}
Value RuntimeBuilder::f32(float V, Location L) {
  return create<LLVM::ConstantOp>(L, F32, getF32FloatAttr(V));
}
Value RuntimeBuilder::null(Location L) { return create<LLVM::ZeroOp>(L, Ptr); }
Value RuntimeBuilder::zero(Type T, Location L) {
  return create<LLVM::ZeroOp>(L, T);
}
Value RuntimeBuilder::offset(Value P, Value Floats, Location L) {
  return create<LLVM::GEPOp>(L, Ptr, F32, P, ValueRange{Floats});
}
Value RuntimeBuilder::addressOf(LLVM::GlobalOp G, Location L) {
  return create<LLVM::AddressOfOp>(L, G);
}

LLVM::LLVMFuncOp RuntimeBuilder::declare(const abi::Callee &C) {
  LLVM::LLVMFunctionType Type = C.Type(getContext());
  if (auto F = Module.lookupSymbol<LLVM::LLVMFuncOp>(C.Name)) {
    assert(F.getFunctionType() == Type &&
           "a callee declared twice, differently");
    return F;
  }
  InsertionGuard G(*this);
  setInsertionPointToEnd(Module.getBody());
  return create<LLVM::LLVMFuncOp>(Module.getLoc(), C.Name, Type);
}

Value RuntimeBuilder::call(const abi::Callee &C, ValueRange Args, Location L) {
  assert(Args.size() == C.NumArgs && "wrong number of arguments for a callee");
  auto Call = create<LLVM::CallOp>(L, declare(C), Args);
  return Call.getNumResults() ? Call.getResult() : Value();
}

void RuntimeBuilder::failIf(Value Failed, Value Status, Location L) {
  assert(FailBlock && "no fail block");
  Block *Current = getInsertionBlock();
  Block *Next = Current->splitBlock(getInsertionPoint());
  setInsertionPointToEnd(Current);
  create<LLVM::CondBrOp>(L, Failed, FailBlock, ValueRange{Status}, Next,
                         ValueRange{});
  setInsertionPointToStart(Next);
}

void RuntimeBuilder::callChecked(const abi::Callee &C, ValueRange Args,
                                 Location L) {
  Value Status = call(C, Args, L);
  Value Bad =
      create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::ne, Status, i32(ENC_OK, L));
  failIf(Bad, Status, L);
}

LLVM::GlobalOp RuntimeBuilder::stringGlobal(StringRef Symbol, StringRef Text,
                                            Location L) {
  InsertionGuard G(*this);
  setInsertionPointToStart(Module.getBody());
  std::string Data = Text.str();
  Data.push_back('\0');
  auto Ty = LLVM::LLVMArrayType::get(getI8Type(), Data.size());
  return create<LLVM::GlobalOp>(L, Ty, /*isConstant=*/true,
                                LLVM::Linkage::Private, Symbol,
                                getStringAttr(Data));
}
