//===- LowerToRuntime.cpp - enc -> calls into the runtime, in LLVM --------===//
//
// Each planned encoder function NAME becomes four LLVM functions with the C
// ABI of spec section 7 (and the header HeaderEmitter writes):
//
//   i32 NAME_load(ptr path, ptr out)          enc_model_create over a constant
//                                             table of weight descriptors
//   void NAME_free(ptr model)                 enc_model_destroy
//   i32 NAME_forward(ptr model, ptr in, ptr out)
//   i64 NAME_workspace_bytes(i32 batch, i32 seq_len)
//
// NAME_forward is straight-line code: check the input, take this thread's
// workspace, then one kernel call per op on pointers into the arena
// (`ws + row_offset * batch * seq`), returning the first failing status.
// Activations hold valid positions only (the runtime's packed layout,
// enc/kernels/layout.h): row-wise kernels run over enc_valid_rows() rows,
// the embedding kernels pack the padded input and enc_pool unpacks. A
// loaded model is an array of slots, one per weight descriptor, holding
// converted vectors and tables or packed matrices.
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace enc {
#define GEN_PASS_DEF_ENCLOWERTORUNTIME
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {

// enc_slot_kind of enc/kernels/model.h.
enum SlotKind : int32_t { SlotVector = 0, SlotPackedMatrix = 1, SlotTable = 2 };
// enc_status of enc/runtime.h.
constexpr int32_t StatusNoMem = 5;

struct Slot {
  SlotKind Kind;
  SmallVector<WeightOp, 3> Parts;
  int64_t MinFileRows = 0;
};

/// A tensor as the kernels see it: a pointer and a row stride in floats.
struct View {
  Value Ptr;
  int64_t Ld = 0;
};

class FunctionLowering {
public:
  FunctionLowering(ModuleOp Module, func::FuncOp Func)
      : Module(Module), Func(Func), Ctx(Module.getContext()),
        B(Module.getContext()), Ptr(LLVM::LLVMPointerType::get(Ctx)),
        I32(B.getI32Type()), I64(B.getI64Type()), F32(B.getF32Type()) {}

  LogicalResult run();

private:
  LogicalResult collectSlots();
  void emitGlobals();
  LogicalResult emitForward();
  void emitLoadFree();
  void emitWorkspaceBytes();

  LLVM::LLVMFuncOp declare(StringRef Name, Type Result, ArrayRef<Type> Args);
  LLVM::LLVMFuncOp embedFloatsFn() {
    return declare("enc_embed_floats", I32,
                   {I32, I32, Ptr, I64, Ptr, Ptr, I64, I64, Ptr, I64});
  }
  Value i32(int64_t V, Location L) {
    return B.create<LLVM::ConstantOp>(L, I32, B.getI32IntegerAttr(V));
  }
  Value i64(int64_t V, Location L) {
    return B.create<LLVM::ConstantOp>(L, I64, B.getI64IntegerAttr(V));
  }
  Value f32(float V, Location L) {
    return B.create<LLVM::ConstantOp>(L, F32, B.getF32FloatAttr(V));
  }
  Value null(Location L) { return B.create<LLVM::ZeroOp>(L, Ptr); }
  /// Float pointer P advanced by Floats elements.
  Value offset(Value P, Value Floats, Location L) {
    return B.create<LLVM::GEPOp>(L, Ptr, F32, P, ValueRange{Floats});
  }
  /// Calls Fn and returns early with its status when it is not ENC_OK.
  void callChecked(LLVM::LLVMFuncOp Fn, ValueRange Args, Location L);
  View view(Value V) const { return Views.lookup(V); }
  Value ptrOrNull(Value V, Location L) {
    return V ? view(V).Ptr : null(L);
  }
  std::string name(StringRef Suffix) {
    return (Func.getName() + Suffix).str();
  }
  LLVM::GlobalOp stringGlobal(StringRef Text, Location L);

  ModuleOp Module;
  func::FuncOp Func;
  MLIRContext *Ctx;
  OpBuilder B;
  Type Ptr, I32, I64, F32;

  std::vector<Slot> Slots;
  llvm::DenseMap<Operation *, unsigned> SlotOf; // weight/concat op -> slot
  std::vector<Operation *> SlotOps;             // the same, in slot order
  llvm::DenseMap<Value, View> Views;
  // In walk order, so that the output is deterministic.
  std::vector<std::pair<Operation *, LLVM::GlobalOp>> ConstantGlobals;
  LLVM::GlobalOp Descriptors, Info;
  Block *FailBlock = nullptr;
  // Rows: batch * seq, what the arena is sized by. ValidRows: the rows the
  // row-wise kernels run over.
  Value Batch, SeqLen, Rows, ValidRows, Workspace, Model;
  unsigned StringCount = 0;
};

LLVM::LLVMFuncOp FunctionLowering::declare(StringRef Name, Type Result,
                                           ArrayRef<Type> Args) {
  if (auto F = Module.lookupSymbol<LLVM::LLVMFuncOp>(Name))
    return F;
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Module.getBody());
  return B.create<LLVM::LLVMFuncOp>(Module.getLoc(), Name,
                                    LLVM::LLVMFunctionType::get(Result, Args));
}

LogicalResult FunctionLowering::collectSlots() {
  auto roleOf = [&](OpOperand &Use) -> std::optional<SlotKind> {
    Operation *User = Use.getOwner();
    if (auto L = dyn_cast<LinearOp>(User))
      return Use.get() == L.getWeight() ? SlotPackedMatrix : SlotVector;
    if (isa<NormOp>(User))
      return SlotVector;
    if (isa<EmbedTokensOp, AddPositionsOp, AttentionOp>(User))
      return SlotTable;
    if (isa<ConcatWeightsOp>(User))
      return std::nullopt; // the concatenation is the slot
    return SlotTable;
  };
  auto kindOf = [&](Operation *Op) -> FailureOr<SlotKind> {
    std::optional<SlotKind> Kind;
    for (OpOperand &Use : Op->getUses()) {
      std::optional<SlotKind> K = roleOf(Use);
      if (!K)
        continue;
      if (Kind && *Kind != *K)
        return Op->emitError("weight is used both as a packed matrix and as "
                             "a table, which the loader cannot share");
      Kind = K;
    }
    return Kind ? *Kind : SlotTable;
  };
  int64_t MaxLen = cast<IntegerAttr>(Func->getAttr("enc.max_len")).getInt();
  WalkResult R = Func.walk([&](Operation *Op) {
    if (auto W = dyn_cast<WeightOp>(Op)) {
      bool OnlyConcat = !W->use_empty() &&
                        llvm::all_of(W->getUsers(), [](Operation *U) {
                          return isa<ConcatWeightsOp>(U);
                        });
      if (OnlyConcat || W->use_empty())
        return WalkResult::advance();
      FailureOr<SlotKind> Kind = kindOf(W);
      if (failed(Kind))
        return WalkResult::interrupt();
      Slot S{*Kind, {W}, 0};
      if (*Kind == SlotTable && W.getName() == "embed.positions")
        S.MinFileRows = MaxLen; // more rows in the file are allowed
      SlotOf[W] = Slots.size();
      SlotOps.push_back(W);
      Slots.push_back(S);
    } else if (auto C = dyn_cast<ConcatWeightsOp>(Op)) {
      Slot S{SlotVector, {}, 0};
      if (C.getParts().size() > 3) {
        C.emitError("the loader concatenates at most 3 parts, not ")
            << C.getParts().size();
        return WalkResult::interrupt();
      }
      for (Value P : C.getParts()) {
        auto W = P.getDefiningOp<WeightOp>();
        if (!W) {
          C.emitError("concat_weights parts must be enc.weight ops");
          return WalkResult::interrupt();
        }
        S.Parts.push_back(W);
      }
      FailureOr<SlotKind> Kind = kindOf(C);
      if (failed(Kind))
        return WalkResult::interrupt();
      S.Kind = *Kind;
      SlotOf[C] = Slots.size();
      SlotOps.push_back(C);
      Slots.push_back(S);
    }
    return WalkResult::advance();
  });
  return failure(R.wasInterrupted());
}

LLVM::GlobalOp FunctionLowering::stringGlobal(StringRef Text, Location L) {
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(Module.getBody());
  std::string Data = Text.str();
  Data.push_back('\0');
  auto Ty = LLVM::LLVMArrayType::get(B.getI8Type(), Data.size());
  return B.create<LLVM::GlobalOp>(
      L, Ty, /*isConstant=*/true, LLVM::Linkage::Private,
      name("_str" + std::to_string(StringCount++)), B.getStringAttr(Data));
}

void FunctionLowering::emitGlobals() {
  Location L = Func.getLoc();
  // Weight descriptors: enc_weight_desc[] of enc/kernels/model.h.
  auto Names = LLVM::LLVMArrayType::get(Ptr, 3);
  auto Rows3 = LLVM::LLVMArrayType::get(I64, 3);
  auto DescTy = LLVM::LLVMStructType::getLiteral(
      Ctx, {I32, I32, Names, Rows3, I64, I64});
  auto TableTy = LLVM::LLVMArrayType::get(DescTy, std::max<size_t>(1, Slots.size()));
  SmallVector<LLVM::GlobalOp> NameGlobals;
  for (const Slot &S : Slots)
    for (WeightOp W : S.Parts)
      NameGlobals.push_back(stringGlobal(W.getName(), W.getLoc()));

  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Module.getBody());
  Descriptors = B.create<LLVM::GlobalOp>(L, TableTy, /*isConstant=*/true,
                                         LLVM::Linkage::Internal,
                                         name("_weights"), Attribute());
  Block *Init = B.createBlock(&Descriptors.getInitializerRegion());
  B.setInsertionPointToStart(Init);
  Value Table = B.create<LLVM::UndefOp>(L, TableTy);
  unsigned NameIndex = 0;
  for (auto [I, S] : llvm::enumerate(Slots)) {
    Value D = B.create<LLVM::UndefOp>(L, DescTy);
    int64_t I_ = I;
    D = B.create<LLVM::InsertValueOp>(L, D, i32(S.Kind, L), ArrayRef<int64_t>{0});
    D = B.create<LLVM::InsertValueOp>(L, D, i32(S.Parts.size(), L),
                                      ArrayRef<int64_t>{1});
    int64_t Cols = 0;
    for (unsigned P = 0; P < 3; ++P) {
      Value NamePtr = null(L);
      int64_t PartRows = 0;
      if (P < S.Parts.size()) {
        NamePtr = B.create<LLVM::AddressOfOp>(L, NameGlobals[NameIndex++]);
        auto Ty = S.Parts[P].getResult().getType();
        PartRows = Ty.getShape()[0];
        Cols = Ty.getRank() == 2 ? Ty.getShape()[1] : 0;
      }
      D = B.create<LLVM::InsertValueOp>(L, D, NamePtr, ArrayRef<int64_t>{2, P});
      D = B.create<LLVM::InsertValueOp>(L, D, i64(PartRows, L),
                                        ArrayRef<int64_t>{3, P});
    }
    D = B.create<LLVM::InsertValueOp>(L, D, i64(Cols, L), ArrayRef<int64_t>{4});
    D = B.create<LLVM::InsertValueOp>(L, D, i64(S.MinFileRows, L),
                                      ArrayRef<int64_t>{5});
    Table = B.create<LLVM::InsertValueOp>(L, Table, D, ArrayRef<int64_t>{I_});
  }
  B.create<LLVM::ReturnOp>(L, Table);

  // enc_model_info {d_model, max_len, vocab, type_vocab}.
  B.setInsertionPointToEnd(Module.getBody());
  auto InfoTy = LLVM::LLVMStructType::getLiteral(Ctx, {I32, I32, I32, I32});
  Info = B.create<LLVM::GlobalOp>(L, InfoTy, true, LLVM::Linkage::Internal,
                                  name("_info"), Attribute());
  B.setInsertionPointToStart(B.createBlock(&Info.getInitializerRegion()));
  Value V = B.create<LLVM::UndefOp>(L, InfoTy);
  const char *Keys[] = {"enc.d_model", "enc.max_len", "enc.vocab",
                        "enc.type_vocab"};
  for (auto [I, Key] : llvm::enumerate(Keys))
    V = B.create<LLVM::InsertValueOp>(
        L, V, i32(cast<IntegerAttr>(Func->getAttr(Key)).getInt(), L),
        ArrayRef<int64_t>{int64_t(I)});
  B.create<LLVM::ReturnOp>(L, V);

  // Positional constants, in read-only data.
  B.setInsertionPointToEnd(Module.getBody());
  unsigned Count = 0;
  Func.walk([&](arith::ConstantOp C) {
    auto Dense = dyn_cast<DenseElementsAttr>(C.getValue());
    if (!Dense)
      return;
    auto Ty = cast<RankedTensorType>(Dense.getType());
    auto Flat = RankedTensorType::get({Ty.getNumElements()}, Ty.getElementType());
    auto ArrTy = LLVM::LLVMArrayType::get(Ty.getElementType(), Ty.getNumElements());
    ConstantGlobals.emplace_back(
        C, B.create<LLVM::GlobalOp>(C.getLoc(), ArrTy, true,
                                    LLVM::Linkage::Internal,
                                    name("_table" + std::to_string(Count++)),
                                    Dense.reshape(Flat), /*alignment=*/64));
  });
}

void FunctionLowering::callChecked(LLVM::LLVMFuncOp Fn, ValueRange Args,
                                   Location L) {
  Value Status = B.create<LLVM::CallOp>(L, Fn, Args).getResult();
  Value Bad = B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::ne, Status, i32(0, L));
  Block *Current = B.getInsertionBlock();
  Block *Next = Current->splitBlock(B.getInsertionPoint());
  B.setInsertionPointToEnd(Current);
  B.create<LLVM::CondBrOp>(L, Bad, FailBlock, ValueRange{Status}, Next,
                           ValueRange{});
  B.setInsertionPointToStart(Next);
}

LogicalResult FunctionLowering::emitForward() {
  Location FL = Func.getLoc();
  auto ForwardTy = LLVM::LLVMFunctionType::get(I32, {Ptr, Ptr, Ptr});
  B.setInsertionPointToEnd(Module.getBody());
  auto Forward = B.create<LLVM::LLVMFuncOp>(FL, name("_forward"), ForwardTy);
  Block *Entry = Forward.addEntryBlock(B);
  FailBlock = B.createBlock(&Forward.getBody(), {}, {I32}, {FL});
  B.create<LLVM::ReturnOp>(FL, FailBlock->getArgument(0));
  // Work in a body block after entry so that allocas stay in the entry.
  Block *Body = B.createBlock(FailBlock);
  B.setInsertionPointToEnd(Entry);
  auto ParamsTy = LLVM::LLVMStructType::getLiteral(
      Ctx, {I32, I32, I32, F32, I32, Ptr, Ptr, Ptr, Ptr, Ptr, I32});
  Value Params = B.create<LLVM::AllocaOp>(FL, Ptr, ParamsTy, i32(1, FL), 8);
  B.create<LLVM::BrOp>(FL, Body);
  B.setInsertionPointToStart(Body);

  Model = Entry->getArgument(0);
  Value In = Entry->getArgument(1), Out = Entry->getArgument(2);

  auto CheckModel = declare("enc_check_model", I32, {Ptr, Ptr});
  callChecked(CheckModel,
              {Model, B.create<LLVM::AddressOfOp>(
                          FL, stringGlobal(Func.getName(), FL))},
              FL);
  auto CheckFn = declare("enc_check_input", I32, {Ptr, Ptr, Ptr});
  callChecked(CheckFn,
              {B.create<LLVM::AddressOfOp>(FL, Info), In, Out}, FL);

  // enc_input {i32 batch, i32 seq_len, ptr embeddings, tokens, token_types,
  // lengths}.
  auto InputTy = LLVM::LLVMStructType::getLiteral(
      Ctx, {I32, I32, Ptr, Ptr, Ptr, Ptr});
  auto field = [&](int32_t Index, Type Ty) -> Value {
    Value P = B.create<LLVM::GEPOp>(FL, Ptr, InputTy, In,
                                    ArrayRef<LLVM::GEPArg>{0, Index});
    return B.create<LLVM::LoadOp>(FL, Ty, P);
  };
  Batch = field(0, I32);
  SeqLen = field(1, I32);
  Value Fields[4] = {field(2, Ptr), field(3, Ptr), field(4, Ptr), field(5, Ptr)};
  Rows = B.create<LLVM::MulOp>(FL, B.create<LLVM::SExtOp>(FL, I64, Batch),
                               B.create<LLVM::SExtOp>(FL, I64, SeqLen));
  auto ValidRowsFn = declare("enc_valid_rows", I64, {I32, I32, Ptr});
  ValidRows = B.create<LLVM::CallOp>(FL, ValidRowsFn,
                                     ValueRange{Batch, SeqLen, Fields[3]})
                  .getResult();

  int64_t ArenaRow =
      cast<IntegerAttr>(Func->getAttr("enc.arena_row_floats")).getInt();
  auto WorkspaceFn = declare("enc_workspace", Ptr, {I64});
  Value Bytes = B.create<LLVM::MulOp>(FL, Rows, i64(4 * std::max<int64_t>(ArenaRow, 1), FL));
  Workspace = B.create<LLVM::CallOp>(FL, WorkspaceFn, ValueRange{Bytes}).getResult();
  {
    Value IsNull = B.create<LLVM::ICmpOp>(FL, LLVM::ICmpPredicate::eq,
                                          Workspace, null(FL));
    Block *Current = B.getInsertionBlock();
    Block *Next = Current->splitBlock(B.getInsertionPoint());
    B.setInsertionPointToEnd(Current);
    B.create<LLVM::CondBrOp>(FL, IsNull, FailBlock,
                             ValueRange{i32(StatusNoMem, FL)}, Next,
                             ValueRange{});
    B.setInsertionPointToStart(Next);
  }

  // Arguments.
  Block &FB = Func.getBody().front();
  for (BlockArgument Arg : FB.getArguments()) {
    auto Field = Func.getArgAttrOfType<StringAttr>(Arg.getArgNumber(), "enc.input");
    if (!Field)
      return Func.emitError("argument #") << Arg.getArgNumber()
                                          << " has no enc.input field";
    int Index = llvm::StringSwitch<int>(Field.getValue())
                    .Case("embeddings", 0)
                    .Case("tokens", 1)
                    .Case("token_types", 2)
                    .Case("lengths", 3)
                    .Default(-1);
    if (Index < 0)
      return Func.emitError("unknown enc.input field '") << Field.getValue() << "'";
    auto Ty = cast<RankedTensorType>(Arg.getType());
    Views[Arg] = {Fields[Index], Ty.getShape().back()};
    // The planner gave the padded input a buffer: pack it there.
    if (auto Offset = Func.getArgAttrOfType<IntegerAttr>(Arg.getArgNumber(),
                                                         "enc.row_offset")) {
      int64_t D = Ty.getShape().back();
      View Packed{offset(Workspace,
                         B.create<LLVM::MulOp>(FL, Rows, i64(Offset.getInt(), FL)),
                         FL),
                  D};
      callChecked(embedFloatsFn(),
                  {Batch, SeqLen, Fields[Index], i64(D, FL), Fields[3], null(FL),
                   i64(0, FL), i64(D, FL), Packed.Ptr, i64(Packed.Ld, FL)},
                  FL);
      Views[Arg] = Packed;
    }
  }

  // Weight slots: slots[i] of the model.
  for (auto [Index, Op] : llvm::enumerate(SlotOps)) {
    Value P = B.create<LLVM::GEPOp>(FL, Ptr, Ptr, Model,
                                    ArrayRef<LLVM::GEPArg>{int32_t(Index)});
    Views[Op->getResult(0)] = {B.create<LLVM::LoadOp>(FL, Ptr, P), 0};
  }
  for (auto &[Op, Global] : ConstantGlobals)
    Views[Op->getResult(0)] = {B.create<LLVM::AddressOfOp>(FL, Global), 0};

  auto resultView = [&](Operation *Op) -> View {
    int64_t RowOffset = cast<IntegerAttr>(Op->getAttr("enc.row_offset")).getInt();
    Value Floats = B.create<LLVM::MulOp>(Op->getLoc(), Rows,
                                         i64(RowOffset, Op->getLoc()));
    View V{offset(Workspace, Floats, Op->getLoc()),
           cast<RankedTensorType>(Op->getResult(0).getType()).getShape().back()};
    Views[Op->getResult(0)] = V;
    return V;
  };
  auto width = [](Value V) {
    return cast<RankedTensorType>(V.getType()).getShape().back();
  };

  for (Operation &Op : FB) {
    Location L = Op.getLoc();
    if (isa<WeightOp, ConcatWeightsOp, arith::ConstantOp>(Op))
      continue;
    if (isa<PositionalTableOp>(Op))
      return Op.emitError("positional table not folded: run "
                          "enc-fold-positional first");
    if (!isa<func::ReturnOp, SliceColumnsOp, PoolOp>(Op) &&
        !Op.hasAttr("enc.row_offset"))
      return Op.emitError("not planned: run enc-plan-buffers first");
    if (auto E = dyn_cast<EmbedTokensOp>(Op)) {
      View Y = resultView(E);
      auto Fn = declare("enc_embed_tokens", I32,
                        {I32, I32, Ptr, Ptr, Ptr, Ptr, I32, F32, Ptr, I32, Ptr,
                         I64, I64, Ptr, I64});
      auto TableTy = E.getTable().getType();
      int64_t TypeVocab = E.getTypeTable()
                              ? E.getTypeTable().getType().getShape()[0]
                              : 0;
      int64_t PosRows =
          E.getPositions() ? E.getPositions().getType().getShape()[0] : 0;
      callChecked(Fn,
                  {Batch, SeqLen, view(E.getIds()).Ptr,
                   ptrOrNull(E.getTypes(), L), Fields[3],
                   view(E.getTable()).Ptr, i32(TableTy.getShape()[0], L),
                   f32(E.getScale().convertToFloat(), L),
                   ptrOrNull(E.getTypeTable(), L), i32(TypeVocab, L),
                   ptrOrNull(E.getPositions(), L), i64(PosRows, L),
                   i64(TableTy.getShape()[1], L), Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto A = dyn_cast<AddPositionsOp>(Op)) {
      View Y = resultView(A);
      View X = view(A.getInput());
      callChecked(embedFloatsFn(),
                  {Batch, SeqLen, X.Ptr, i64(X.Ld, L), Fields[3],
                   view(A.getTable()).Ptr,
                   i64(A.getTable().getType().getShape()[0], L),
                   i64(width(A.getInput()), L), Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto Lin = dyn_cast<LinearOp>(Op)) {
      View Y = resultView(Lin);
      View X = view(Lin.getInput());
      View R = Lin.getResidual() ? view(Lin.getResidual()) : View{null(L), 0};
      auto Fn = declare("enc_gemm", I32,
                        {I64, Ptr, I64, Ptr, Ptr, I32, Ptr, I64, Ptr, I64});
      callChecked(Fn,
                  {ValidRows, X.Ptr, i64(X.Ld, L), view(Lin.getWeight()).Ptr,
                   ptrOrNull(Lin.getBias(), L),
                   i32(static_cast<int32_t>(Lin.getActivation()), L), R.Ptr,
                   i64(R.Ld, L), Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto Act = dyn_cast<ActivationOp>(Op)) {
      View Y = resultView(Act);
      View X = view(Act.getInput());
      auto Fn = declare("enc_activation_rows", I32,
                        {I32, I64, I64, Ptr, I64, Ptr, I64});
      callChecked(Fn,
                  {i32(static_cast<int32_t>(Act.getKind()), L), ValidRows,
                   i64(width(Act.getInput()), L), X.Ptr, i64(X.Ld, L), Y.Ptr,
                   i64(Y.Ld, L)},
                  L);
    } else if (auto Add = dyn_cast<AddOp>(Op)) {
      View Y = resultView(Add);
      View A = view(Add.getLhs()), C = view(Add.getRhs());
      auto Fn = declare("enc_add_rows", I32,
                        {I64, I64, Ptr, I64, Ptr, I64, Ptr, I64});
      callChecked(Fn,
                  {ValidRows, i64(width(Add.getLhs()), L), A.Ptr, i64(A.Ld, L),
                   C.Ptr, i64(C.Ld, L), Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto N = dyn_cast<NormOp>(Op)) {
      View Y = resultView(N);
      View X = view(N.getInput());
      auto Fn = declare("enc_norm", I32,
                        {I32, I64, I64, Ptr, I64, Ptr, I64, Ptr, I64, Ptr, Ptr,
                         F32, Ptr, I64});
      callChecked(Fn,
                  {i32(N.getKind() == NormKind::layernorm ? 0 : 1, L), ValidRows,
                   i64(width(N.getInput()), L), X.Ptr, i64(X.Ld, L), null(L),
                   i64(0, L), null(L), i64(0, L), view(N.getGamma()).Ptr,
                   ptrOrNull(N.getBeta(), L), f32(N.getEps().convertToFloat(), L),
                   Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto S = dyn_cast<SliceColumnsOp>(Op)) {
      View X = view(S.getInput());
      Views[S.getResult()] = {offset(X.Ptr, i64(S.getOffset(), L), L), X.Ld};
    } else if (auto At = dyn_cast<AttentionOp>(Op)) {
      View Y = resultView(At);
      View Q = view(At.getQ()), K = view(At.getK()), V = view(At.getV());
      if (Q.Ld != K.Ld || Q.Ld != V.Ld)
        return At.emitError("q, k and v must share a row stride, not ")
               << Q.Ld << ", " << K.Ld << " and " << V.Ld;
      int64_t D = width(At.getQ()), Heads = At.getHeads();
      int64_t MaxLen = cast<IntegerAttr>(Func->getAttr("enc.max_len")).getInt();
      Value ParamFields[11] = {i32(Heads, L), i32(D / Heads, L), i32(MaxLen, L),
                          f32(At.getScale().convertToFloat(), L), i32(0, L),
                          null(L), null(L), null(L), null(L), null(L), i32(0, L)};
      auto Tables = At.getTables();
      switch (At.getPositional()) {
      case AttnPositional::none:
        break;
      case AttnPositional::rope:
        ParamFields[4] = i32(static_cast<int32_t>(*At.getRopeStyle()), L);
        ParamFields[5] = view(Tables[0]).Ptr;
        ParamFields[6] = view(Tables[1]).Ptr;
        break;
      case AttnPositional::alibi:
        ParamFields[7] = view(Tables[0]).Ptr;
        break;
      case AttnPositional::relative:
        ParamFields[8] = view(Tables[0]).Ptr;
        ParamFields[9] = view(Tables[1]).Ptr;
        ParamFields[10] = i32(cast<RankedTensorType>(Tables[1].getType()).getShape()[0], L);
        break;
      }
      for (auto [I, F] : llvm::enumerate(ParamFields)) {
        Value P = B.create<LLVM::GEPOp>(L, Ptr, ParamsTy, Params,
                                        ArrayRef<LLVM::GEPArg>{0, int32_t(I)});
        B.create<LLVM::StoreOp>(L, F, P);
      }
      auto Fn = declare("enc_attention", I32,
                        {Ptr, I32, I32, Ptr, Ptr, Ptr, Ptr, I64, Ptr, I64});
      callChecked(Fn,
                  {Params, Batch, SeqLen, view(At.getLengths()).Ptr, Q.Ptr,
                   K.Ptr, V.Ptr, i64(Q.Ld, L), Y.Ptr, i64(Y.Ld, L)},
                  L);
    } else if (auto P = dyn_cast<PoolOp>(Op)) {
      View X = view(P.getInput());
      int64_t D = width(P.getInput());
      auto Fn = declare("enc_pool", I32,
                        {I32, I32, I32, I64, Ptr, Ptr, I64, Ptr, I64});
      callChecked(Fn,
                  {i32(static_cast<int32_t>(P.getMode()), L), Batch, SeqLen,
                   i64(D, L), view(P.getLengths()).Ptr, X.Ptr, i64(X.Ld, L),
                   Out, i64(D, L)},
                  L);
      Views[P.getResult()] = {Out, D};
    } else if (auto Ret = dyn_cast<func::ReturnOp>(Op)) {
      if (Ret.getNumOperands() != 1 || !Ret.getOperand(0).getDefiningOp<PoolOp>())
        return Ret.emitError("an encoder must return the result of enc.pool");
      B.create<LLVM::ReturnOp>(L, i32(0, L));
    } else {
      return Op.emitError("cannot lower this op to runtime calls");
    }
  }
  return success();
}

void FunctionLowering::emitLoadFree() {
  Location L = Func.getLoc();
  int32_t N = Slots.size();
  B.setInsertionPointToEnd(Module.getBody());
  auto Load = B.create<LLVM::LLVMFuncOp>(
      L, name("_load"), LLVM::LLVMFunctionType::get(I32, {Ptr, Ptr}));
  Block *Entry = Load.addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  auto Create = declare("enc_model_create", I32, {Ptr, Ptr, I32, Ptr});
  Value S = B.create<LLVM::CallOp>(
                 L, Create,
                 ValueRange{Entry->getArgument(0),
                            B.create<LLVM::AddressOfOp>(L, Descriptors),
                            i32(N, L), Entry->getArgument(1)})
                .getResult();
  B.create<LLVM::ReturnOp>(L, S);

  B.setInsertionPointToEnd(Module.getBody());
  auto Free = B.create<LLVM::LLVMFuncOp>(
      L, name("_free"),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(Ctx), {Ptr}));
  Entry = Free.addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  auto Destroy = declare("enc_model_destroy", LLVM::LLVMVoidType::get(Ctx),
                         {Ptr, I32, Ptr});
  B.create<LLVM::CallOp>(L, Destroy,
                         ValueRange{B.create<LLVM::AddressOfOp>(L, Descriptors),
                                    i32(N, L), Entry->getArgument(0)});
  B.create<LLVM::ReturnOp>(L, ValueRange{});
}

void FunctionLowering::emitWorkspaceBytes() {
  Location L = Func.getLoc();
  int64_t ArenaRow =
      cast<IntegerAttr>(Func->getAttr("enc.arena_row_floats")).getInt();
  B.setInsertionPointToEnd(Module.getBody());
  auto F = B.create<LLVM::LLVMFuncOp>(
      L, name("_workspace_bytes"), LLVM::LLVMFunctionType::get(I64, {I32, I32}));
  Block *Entry = F.addEntryBlock(B);
  B.setInsertionPointToStart(Entry);
  Value R = B.create<LLVM::MulOp>(
      L, B.create<LLVM::SExtOp>(L, I64, Entry->getArgument(0)),
      B.create<LLVM::SExtOp>(L, I64, Entry->getArgument(1)));
  B.create<LLVM::ReturnOp>(
      L, Value(B.create<LLVM::MulOp>(L, R, i64(4 * ArenaRow, L))));
}

LogicalResult FunctionLowering::run() {
  if (!Func->hasAttr("enc.arena_row_floats"))
    return Func.emitError("encoder '") << Func.getName()
                                       << "' is not planned: run "
                                          "enc-plan-buffers first";
  if (failed(collectSlots()))
    return failure();
  emitGlobals();
  if (failed(emitForward()))
    return failure();
  emitLoadFree();
  emitWorkspaceBytes();
  Func.erase();
  return success();
}

struct LowerToRuntimePass
    : enc::impl::EncLowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp Module = getOperation();
    SmallVector<func::FuncOp> Funcs(Module.getOps<func::FuncOp>());
    for (func::FuncOp F : Funcs)
      if (F->hasAttr("enc.d_model") &&
          failed(FunctionLowering(Module, F).run()))
        return signalPassFailure();
  }
};
} // namespace
