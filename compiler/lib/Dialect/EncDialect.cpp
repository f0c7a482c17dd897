//===- EncDialect.cpp - The enc dialect and its IR contract ---------------===//

#include "enc/Dialect/EncDialect.h"
#include "enc/Dialect/EncOps.h"

#include "enc/ABI/RuntimeABI.h"
#include "enc/checkpoint_names.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace enc;

#include "enc/Dialect/EncDialect.cpp.inc"
#include "enc/Dialect/EncEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "enc/Dialect/EncAttrs.cpp.inc"

void EncDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "enc/Dialect/EncOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "enc/Dialect/EncAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Typed access
//===----------------------------------------------------------------------===//

namespace {
// The attribute names, from the dialect's ODS (EncDialect.td).
#define ENC_ATTR_NAME(Helper) EncDialect::Helper##AttrHelper::getNameStr()
constexpr llvm::StringLiteral ArenaRowFloats = ENC_ATTR_NAME(ArenaRowFloats);
constexpr llvm::StringLiteral RowOffset = ENC_ATTR_NAME(RowOffset);
constexpr llvm::StringLiteral InPlaceOf = ENC_ATTR_NAME(InPlaceOf);
constexpr llvm::StringLiteral InOutput = ENC_ATTR_NAME(InOutput);
constexpr llvm::StringLiteral Input = ENC_ATTR_NAME(Input);
constexpr llvm::StringLiteral Checkpoint = ENC_ATTR_NAME(Checkpoint);
constexpr llvm::StringLiteral Precision = ENC_ATTR_NAME(Precision);

std::optional<int64_t> intAttr(Attribute A) {
  if (auto I = dyn_cast_or_null<IntegerAttr>(A))
    return I.getInt();
  return std::nullopt;
}
IntegerAttr i64(MLIRContext *Ctx, int64_t V) {
  return IntegerAttr::get(IntegerType::get(Ctx, 64), V);
}
} // namespace

bool enc::isEncoder(Operation *Func) {
  return Func->hasAttr(EncDialect::DModelAttrHelper::getNameStr());
}

EncoderFacts enc::getEncoderFacts(Operation *Func) {
  EncoderFacts F;
#define ENC_GET_FACT(Field, Helper, Min)                                       \
  F.Field = intAttr(Func->getAttr(ENC_ATTR_NAME(Helper))).value_or(0);
  ENC_ENCODER_FACTS(ENC_GET_FACT)
#undef ENC_GET_FACT
  return F;
}

void enc::setEncoderFacts(Operation *Func, const EncoderFacts &F) {
  MLIRContext *Ctx = Func->getContext();
#define ENC_SET_FACT(Field, Helper, Min)                                       \
  Func->setAttr(ENC_ATTR_NAME(Helper), i64(Ctx, F.Field));
  ENC_ENCODER_FACTS(ENC_SET_FACT)
#undef ENC_SET_FACT
}

enc_checkpoint enc::getCheckpoint(Operation *Func) {
  auto S = dyn_cast_or_null<StringAttr>(Func->getAttr(Checkpoint));
  const checkpoint::LayoutRow *Row =
      S ? checkpoint::FindSpelling(S.getValue().str()) : nullptr;
  return Row ? Row->layout : ENC_CHECKPOINT_ENC;
}
void enc::setCheckpoint(Operation *Func, enc_checkpoint Layout) {
  const checkpoint::LayoutRow *Row = checkpoint::Find(Layout);
  assert(Row && "a layout of families.def");
  Func->setAttr(Checkpoint, StringAttr::get(Func->getContext(), Row->spelling));
}

WeightPrecision enc::getPrecision(Operation *Func) {
  auto S = dyn_cast_or_null<StringAttr>(Func->getAttr(Precision));
  std::optional<WeightPrecision> P =
      S ? symbolizeWeightPrecision(S.getValue()) : std::nullopt;
  return P.value_or(WeightPrecision::fp32);
}
void enc::setPrecision(Operation *Func, WeightPrecision P) {
  Func->setAttr(Precision, StringAttr::get(Func->getContext(),
                                           stringifyWeightPrecision(P)));
}

std::optional<int64_t> enc::getArenaRowFloats(Operation *Func) {
  return intAttr(Func->getAttr(ArenaRowFloats));
}
void enc::setArenaRowFloats(Operation *Func, int64_t Floats) {
  Func->setAttr(ArenaRowFloats, i64(Func->getContext(), Floats));
}

std::optional<int64_t> enc::getRowOffset(Operation *Op) {
  return intAttr(Op->getAttr(RowOffset));
}
void enc::setRowOffset(Operation *Op, int64_t Offset) {
  Op->setAttr(RowOffset, i64(Op->getContext(), Offset));
}
std::optional<unsigned> enc::getInPlaceOf(Operation *Op) {
  if (std::optional<int64_t> N = intAttr(Op->getAttr(InPlaceOf)))
    return static_cast<unsigned>(*N);
  return std::nullopt;
}
void enc::setInPlaceOf(Operation *Op, unsigned Operand) {
  Op->setAttr(InPlaceOf, i64(Op->getContext(), Operand));
}
bool enc::isInOutput(Operation *Op) { return Op->hasAttr(InOutput); }
void enc::setInOutput(Operation *Op) {
  Op->setAttr(InOutput, UnitAttr::get(Op->getContext()));
}
std::optional<int64_t> enc::getRowOffset(FunctionOpInterface Func,
                                         unsigned Arg) {
  return intAttr(Func.getArgAttr(Arg, RowOffset));
}
void enc::setRowOffset(FunctionOpInterface Func, unsigned Arg, int64_t Offset) {
  Func.setArgAttr(Arg, RowOffset, i64(Func->getContext(), Offset));
}

bool enc::isInOutput(FunctionOpInterface Func, unsigned Arg) {
  return static_cast<bool>(Func.getArgAttr(Arg, InOutput));
}
void enc::setInOutput(FunctionOpInterface Func, unsigned Arg) {
  Func.setArgAttr(Arg, InOutput, UnitAttr::get(Func->getContext()));
}
int64_t enc::inOutputWidth(FunctionOpInterface Func) {
  auto widthOf = [](Value V) {
    return cast<RankedTensorType>(V.getType()).getShape().back();
  };
  int64_t Width = 0;
  for (unsigned Arg = 0; Arg < Func.getNumArguments(); ++Arg)
    if (isInOutput(Func, Arg))
      Width = widthOf(Func.getArgument(Arg));
  Func.walk([&](Operation *Op) {
    if (isInOutput(Op))
      Width = widthOf(Op->getResult(0));
  });
  return Width;
}

std::optional<llvm::StringRef> enc::getInputField(FunctionOpInterface Func,
                                                  unsigned Arg) {
  if (auto S = Func.getArgAttrOfType<StringAttr>(Arg, Input))
    return S.getValue();
  return std::nullopt;
}
void enc::setInputField(FunctionOpInterface Func, unsigned Arg,
                        llvm::StringRef Field) {
  Func.setArgAttr(Arg, Input, StringAttr::get(Func->getContext(), Field));
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

namespace {
/// An i64 attribute of at least `Min`.
LogicalResult verifyCount(Operation *Op, NamedAttribute A, int64_t Min,
                          llvm::StringRef Where = "") {
  auto I = dyn_cast<IntegerAttr>(A.getValue());
  if (!I || !I.getType().isSignlessInteger(64))
    return Op->emitOpError()
           << Where << "'" << A.getName().getValue()
           << "' must be an i64 integer, not " << A.getValue();
  if (I.getInt() < Min)
    return Op->emitOpError() << Where << "'" << A.getName().getValue() << "' ("
                             << I.getInt() << ") must be at least " << Min;
  return success();
}

/// enc_input's pointer fields: what an argument may read.
bool isInputField(llvm::StringRef Name) {
  std::optional<unsigned> I = abi::fieldIndex<enc_input>(Name);
  return I && Name != "batch" && Name != "seq_len";
}

/// An encoder function carries every fact, and each argument names the
/// enc_input field it reads.
LogicalResult verifyEncoderFunction(Operation *Op) {
  auto Func = dyn_cast<FunctionOpInterface>(Op);
  if (!Func)
    return Op->emitOpError()
           << "'enc.d_model' marks an encoder function, not this op";
#define ENC_CHECK_FACT(Field, Helper, Min)                                     \
  if (!Op->hasAttr(ENC_ATTR_NAME(Helper)))                                     \
    return Op->emitOpError()                                                   \
           << "encoder function is missing '" << ENC_ATTR_NAME(Helper) << "'";
  ENC_ENCODER_FACTS(ENC_CHECK_FACT)
#undef ENC_CHECK_FACT
  if (Func.isExternal())
    return success();
  for (unsigned I = 0; I < Func.getNumArguments(); ++I)
    if (!getInputField(Func, I))
      return Op->emitOpError()
             << "argument #" << I << " has no enc.input field";
  return success();
}
} // namespace

LogicalResult EncDialect::verifyOperationAttribute(Operation *Op,
                                                   NamedAttribute A) {
  llvm::StringRef Name = A.getName().getValue();
#define ENC_VERIFY_FACT(Field, Helper, Min)                                    \
  if (Name == ENC_ATTR_NAME(Helper)) {                                         \
    if (failed(verifyCount(Op, A, Min)))                                       \
      return failure();                                                        \
    return Name == ENC_ATTR_NAME(DModel) ? verifyEncoderFunction(Op)           \
                                         : success();                          \
  }
  ENC_ENCODER_FACTS(ENC_VERIFY_FACT)
#undef ENC_VERIFY_FACT
  if (Name == Checkpoint) {
    auto S = dyn_cast<StringAttr>(A.getValue());
    if (!isa<FunctionOpInterface>(Op))
      return Op->emitOpError() << "'" << Name << "' belongs on a function";
    if (!S || !checkpoint::FindSpelling(S.getValue().str()))
      return Op->emitOpError() << "'" << Name << "' must name a checkpoint "
                               << "layout, not " << A.getValue();
    return success();
  }
  if (Name == Precision) {
    auto S = dyn_cast<StringAttr>(A.getValue());
    if (!isa<FunctionOpInterface>(Op))
      return Op->emitOpError() << "'" << Name << "' belongs on a function";
    if (S && symbolizeWeightPrecision(S.getValue()))
      return success();
    InFlightDiagnostic D = Op->emitOpError()
                           << "'" << Name << "' must be one of";
    for (uint32_t V = 0; V <= getMaxEnumValForWeightPrecision(); ++V)
      D << (V ? ", " : " ")
        << stringifyWeightPrecision(static_cast<WeightPrecision>(V));
    return D << "; not " << A.getValue();
  }
  if (Name == ArenaRowFloats) {
    if (!isa<FunctionOpInterface>(Op))
      return Op->emitOpError() << "'" << Name << "' belongs on a function";
    return verifyCount(Op, A, 0);
  }
  if (Name == RowOffset) {
    if (Op->getNumResults() != 1)
      return Op->emitOpError()
             << "'" << Name << "' belongs on an op with one result";
    return verifyCount(Op, A, 0);
  }
  if (Name == InPlaceOf) {
    if (Op->getNumResults() != 1)
      return Op->emitOpError()
             << "'" << Name << "' belongs on an op with one result";
    if (failed(verifyCount(Op, A, 0)))
      return failure();
    int64_t N = cast<IntegerAttr>(A.getValue()).getInt();
    auto Writable = dyn_cast<InPlaceWritable>(Op);
    OpOperand *Replaceable =
        Writable ? Writable.getReplaceableOperand() : nullptr;
    if (!Replaceable || Replaceable->getOperandNumber() != N)
      return Op->emitOpError()
             << "'" << Name << "' (" << N
             << ") is not an operand this op's kernel may write over";
    if (Op->hasAttr(RowOffset))
      return Op->emitOpError()
             << "has both '" << Name << "' and '" << RowOffset << "'";
    return success();
  }
  if (Name == InOutput) {
    if (Op->getNumResults() != 1 || !isa<UnitAttr>(A.getValue()))
      return Op->emitOpError()
             << "'" << Name << "' is a unit attribute of an op with one result";
    if (Op->hasAttr(RowOffset) || Op->hasAttr(InPlaceOf))
      return Op->emitOpError() << "has both '" << Name << "' and a place in "
                               << "the arena";
    return success();
  }
  if (Name == Input)
    return Op->emitOpError()
           << "'" << Name << "' belongs on a function argument";
  return Op->emitOpError() << "unknown attribute '" << Name
                           << "' of the enc dialect";
}

LogicalResult EncDialect::verifyRegionArgAttribute(Operation *Op,
                                                   unsigned Region,
                                                   unsigned Arg,
                                                   NamedAttribute A) {
  llvm::StringRef Name = A.getName().getValue();
  std::string Where = "argument #" + std::to_string(Arg) + ": ";
  if (!isa<FunctionOpInterface>(Op) || Region != 0)
    return Op->emitOpError()
           << "'" << Name << "' belongs on a function argument";
  if (Name == Input) {
    auto Field = dyn_cast<StringAttr>(A.getValue());
    if (!Field)
      return Op->emitOpError() << Where << "'" << Name
                               << "' must be a string, not " << A.getValue();
    if (!isInputField(Field.getValue()))
      return Op->emitOpError()
             << Where << "unknown enc.input field '" << Field.getValue() << "'";
    return success();
  }
  if (Name == RowOffset)
    return verifyCount(Op, A, 0, Where);
  if (Name == InOutput) {
    auto Func = cast<FunctionOpInterface>(Op);
    if (!isa<UnitAttr>(A.getValue()))
      return Op->emitOpError()
             << Where << "'" << Name << "' is a unit attribute";
    if (Func.getArgAttr(Arg, RowOffset))
      return Op->emitOpError()
             << Where << "has both '" << Name << "' and '" << RowOffset << "'";
    return success();
  }
  return Op->emitOpError() << Where << "unknown argument attribute '" << Name
                           << "' of the enc dialect";
}
