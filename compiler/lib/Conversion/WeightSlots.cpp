//===- WeightSlots.cpp - The loaded model's slots and their table ---------===//
//
// A loaded model is an array of slots, one per weight descriptor
// (enc_weight_desc of enc/kernels/model.h): converted vectors and tables, or
// packed matrices. The table is a read-only global the runtime loads from;
// enc_model_info and the positional constants are read-only globals too.
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

#include "enc/ABI/RuntimeEnums.h"

using namespace mlir;
using namespace enc;

namespace {
/// The slot kind a use of a weight asks for (the user's ReadsWeights), or
/// none (a concatenation's part: the concatenation is the slot).
std::optional<enc_slot_kind> roleOf(OpOperand &Use) {
  // enc.weight's and enc.concat_weights' verifiers admit no other user.
  auto Reader = cast<ReadsWeights>(Use.getOwner());
  switch (Reader.getWeightRole(Use.getOperandNumber())) {
  case WeightRole::Matrix:
    return ENC_SLOT_PACKED_MATRIX;
  case WeightRole::GatedMatrix:
    return ENC_SLOT_PACKED_GATED;
  case WeightRole::Vector:
    return ENC_SLOT_VECTOR;
  case WeightRole::Table:
    return ENC_SLOT_TABLE;
  case WeightRole::Part:
    return std::nullopt;
  }
  llvm_unreachable("every WeightRole is handled above");
}

FailureOr<enc_slot_kind> kindOf(Operation *Op) {
  std::optional<enc_slot_kind> Kind;
  for (OpOperand &Use : Op->getUses()) {
    std::optional<enc_slot_kind> K = roleOf(Use);
    if (!K)
      continue;
    if (Kind && *Kind != *K)
      return Op->emitError("weight is used both as ")
             << enc_slot_kind_noun(std::min(*Kind, *K)) << " and as "
             << enc_slot_kind_noun(std::max(*Kind, *K))
             << ", which the loader cannot share";
    Kind = K;
  }
  return Kind.value_or(ENC_SLOT_TABLE);
}

LogicalResult addWeight(EncoderLowering &E, WeightOp W) {
  bool OnlyConcat = llvm::all_of(
      W->getUsers(), [](Operation *U) { return isa<ConcatWeightsOp>(U); });
  if (W->use_empty() || OnlyConcat)
    return success(); // unused, or a part of a concatenation's slot
  FailureOr<enc_slot_kind> Kind = kindOf(W);
  if (failed(Kind))
    return failure();
  Slot S{*Kind, {W}, 0, W};
  if (W.getAllowExtraRows()) {
    if (*Kind != ENC_SLOT_TABLE)
      return W.emitError("a weight with allow_extra_rows must be a table, "
                         "but this one is ")
             << enc_slot_kind_noun(*Kind);
    S.MinFileRows = W.getType().getShape()[0];
  }
  E.Slots.push_back(S);
  return success();
}

LogicalResult addConcat(EncoderLowering &E, ConcatWeightsOp C) {
  Slot S{ENC_SLOT_VECTOR, {}, 0, C};
  if (C.getParts().size() > 3)
    return C.emitError("the loader concatenates at most 3 parts, not ")
           << C.getParts().size();
  for (Value P : C.getParts()) {
    auto W = P.getDefiningOp<WeightOp>();
    if (!W)
      return C.emitError("concat_weights parts must be enc.weight ops");
    if (W.getAllowExtraRows())
      return W.emitError("a weight with allow_extra_rows cannot be "
                         "concatenated");
    S.Parts.push_back(W);
  }
  FailureOr<enc_slot_kind> Kind = kindOf(C);
  if (failed(Kind))
    return failure();
  if (*Kind == ENC_SLOT_PACKED_GATED &&
      (S.Parts.size() != 2 || S.Parts[0].getType() != S.Parts[1].getType()))
    return C.emitError("a gated weight is the gate and up weights, two parts "
                       "of one shape");
  S.Kind = *Kind;
  E.Slots.push_back(S);
  return success();
}
} // namespace

LogicalResult enc::collectSlots(EncoderLowering &E) {
  WalkResult R = E.Func.walk([&](Operation *Op) {
    LogicalResult Added = success();
    if (auto W = dyn_cast<WeightOp>(Op))
      Added = addWeight(E, W);
    else if (auto C = dyn_cast<ConcatWeightsOp>(Op))
      Added = addConcat(E, C);
    return failed(Added) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(R.wasInterrupted());
}

namespace {
/// enc_weight_desc[] as a constant global.
void emitDescriptors(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  MLIRContext *Ctx = B.getContext();
  auto DescTy = abi::structType<enc_weight_desc>(Ctx);
  auto TableTy =
      LLVM::LLVMArrayType::get(DescTy, std::max<size_t>(1, E.Slots.size()));
  SmallVector<LLVM::GlobalOp> Names;
  for (const Slot &S : E.Slots)
    for (WeightOp W : S.Parts)
      Names.push_back(
          B.stringGlobal(E.stringSymbol(), W.getName(), W.getLoc()));

  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToEnd(B.module().getBody());
  E.Descriptors = B.create<LLVM::GlobalOp>(L, TableTy, /*isConstant=*/true,
                                           LLVM::Linkage::Internal,
                                           E.symbol("_weights"), Attribute());
  B.setInsertionPointToStart(
      B.createBlock(&E.Descriptors.getInitializerRegion()));
  const int64_t Kind = ENC_FIELD(enc_weight_desc, kind),
                NumParts = ENC_FIELD(enc_weight_desc, num_parts),
                NameField = ENC_FIELD(enc_weight_desc, names),
                RowsField = ENC_FIELD(enc_weight_desc, rows),
                Cols = ENC_FIELD(enc_weight_desc, cols),
                MinFileRows = ENC_FIELD(enc_weight_desc, min_file_rows),
                Checkpoint = ENC_FIELD(enc_weight_desc, checkpoint),
                PrecisionField = ENC_FIELD(enc_weight_desc, precision);
  const enc_checkpoint Layout = getCheckpoint(E.Func);
  // The precision setting is the linear layers' (their packed matrices):
  // vectors and tables (biases, norms, embeddings) stay fp32.
  const enc_precision LinearPrecision = abi::toRuntime(getPrecision(E.Func));
  const int64_t MaxParts = std::extent_v<decltype(enc_weight_desc::names)>;
  Value Table = B.create<LLVM::UndefOp>(L, TableTy);
  unsigned NameIndex = 0;
  for (auto [I, S] : llvm::enumerate(E.Slots)) {
    auto Set = [&](Value D, ArrayRef<int64_t> Pos, Value V) -> Value {
      return B.create<LLVM::InsertValueOp>(L, D, V, Pos);
    };
    Value D = B.create<LLVM::UndefOp>(L, DescTy);
    D = Set(D, {Kind}, B.i32(S.Kind, L));
    D = Set(D, {NumParts}, B.i32(S.Parts.size(), L));
    int64_t Columns = 0;
    for (int64_t P = 0; P < MaxParts; ++P) {
      Value NamePtr = B.null(L);
      int64_t PartRows = 0;
      if (P < static_cast<int64_t>(S.Parts.size())) {
        NamePtr = B.addressOf(Names[NameIndex++], L);
        auto Ty = S.Parts[P].getType();
        PartRows = Ty.getShape()[0];
        Columns = Ty.getRank() == 2 ? Ty.getShape()[1] : 0;
      }
      D = Set(D, {NameField, P}, NamePtr);
      D = Set(D, {RowsField, P}, B.i64(PartRows, L));
    }
    D = Set(D, {Cols}, B.i64(Columns, L));
    D = Set(D, {MinFileRows}, B.i64(S.MinFileRows, L));
    D = Set(D, {Checkpoint}, B.i32(Layout, L));
    D = Set(D, {PrecisionField},
            B.i32(S.Kind == ENC_SLOT_PACKED_MATRIX ? LinearPrecision
                                                   : ENC_PRECISION_FP32,
                  L));
    Table = Set(Table, {static_cast<int64_t>(I)}, D);
  }
  B.create<LLVM::ReturnOp>(L, Table);
}

/// enc_model_info, for enc_check_input.
void emitModelInfo(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  Location L = E.Func.getLoc();
  auto InfoTy = abi::structType<enc_model_info>(B.getContext());
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToEnd(B.module().getBody());
  E.Info = B.create<LLVM::GlobalOp>(L, InfoTy, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, E.symbol("_info"),
                                    Attribute());
  B.setInsertionPointToStart(B.createBlock(&E.Info.getInitializerRegion()));
  EncoderFacts F = getEncoderFacts(E.Func);
  std::pair<int64_t, int64_t> Fields[] = {
      {ENC_FIELD(enc_model_info, d_model), F.DModel},
      {ENC_FIELD(enc_model_info, max_len), F.MaxLen},
      {ENC_FIELD(enc_model_info, vocab), F.Vocab},
      {ENC_FIELD(enc_model_info, type_vocab), F.TypeVocab}};
  static_assert(std::size(Fields) ==
                    std::size(abi::RuntimeStruct<enc_model_info>::Fields),
                "every field of enc_model_info is set here");
  Value V = B.create<LLVM::UndefOp>(L, InfoTy);
  for (auto [Index, Value] : Fields)
    V = B.create<LLVM::InsertValueOp>(L, V, B.i32(Value, L),
                                      ArrayRef<int64_t>{Index});
  B.create<LLVM::ReturnOp>(L, V);
}

/// The positional constants, in read-only data, 64-byte aligned.
void emitConstants(EncoderLowering &E) {
  RuntimeBuilder &B = E.B;
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToEnd(B.module().getBody());
  E.Func.walk([&](arith::ConstantOp C) {
    auto Dense = dyn_cast<DenseElementsAttr>(C.getValue());
    if (!Dense)
      return;
    auto Ty = cast<RankedTensorType>(Dense.getType());
    auto Flat =
        RankedTensorType::get({Ty.getNumElements()}, Ty.getElementType());
    auto ArrTy =
        LLVM::LLVMArrayType::get(Ty.getElementType(), Ty.getNumElements());
    E.Constants.emplace_back(
        C, B.create<LLVM::GlobalOp>(
               C.getLoc(), ArrTy, /*isConstant=*/true, LLVM::Linkage::Internal,
               E.symbol("_table" + std::to_string(E.Constants.size())),
               Dense.reshape(Flat), /*alignment=*/64));
  });
}
} // namespace

void enc::emitWeightTables(EncoderLowering &E) {
  emitDescriptors(E);
  emitModelInfo(E);
  emitConstants(E);
}
