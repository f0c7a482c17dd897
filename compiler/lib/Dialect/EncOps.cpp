//===- EncOps.cpp - Verifiers and custom syntax of the enc ops ------------===//
//
// Verifiers name the values they compare, as in "input width (512) does not
// match the weight's in_features (768)".
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace enc;

namespace {
/// The size of the last dimension.
int64_t width(Type T) { return cast<RankedTensorType>(T).getShape().back(); }
int64_t rank(Type T) { return cast<RankedTensorType>(T).getRank(); }
ArrayRef<int64_t> shape(Type T) { return cast<RankedTensorType>(T).getShape(); }

std::string str(ArrayRef<int64_t> Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    S += ShapedType::isDynamic(Shape[I]) ? "?" : std::to_string(Shape[I]);
  }
  return S + "]";
}

/// Activations are [batch, seq, width] with a static width.
LogicalResult verifyActivation(Operation *Op, Type T, StringRef What) {
  auto Ty = cast<RankedTensorType>(T);
  if (Ty.getRank() != 3 || ShapedType::isDynamic(Ty.getShape()[2]))
    return Op->emitOpError() << What << " must be a [batch, seq, width] tensor "
                             << "with a static width, but is " << T;
  return success();
}

LogicalResult verifyVector(Operation *Op, Type T, int64_t Size,
                           StringRef What) {
  if (rank(T) != 1 || shape(T)[0] != Size)
    return Op->emitOpError()
           << What << " must be [" << Size << "], but is " << str(shape(T));
  return success();
}

/// A head reading the pooled vector of its [batch, seq, width] input, which
/// it `Does` (in an error).
LogicalResult verifyPooledInput(Operation *Op, Type In, PoolMode Mode,
                                StringRef Does) {
  if (failed(verifyActivation(Op, In, "input")))
    return failure();
  if (Mode == PoolMode::none)
    return Op->emitOpError()
           << Does << " a pooled vector: pooling none has none";
  return success();
}

/// A head's last projection of a pooled vector of `In` floats: its weight
/// [Out, In] (`Prefix` "weight" in errors, Out called `Rows`), its bias [Out]
/// if any, its result [batch, Out].
LogicalResult verifyPooledProjection(Operation *Op, Value Weight, Value Bias,
                                     int64_t In, StringRef Prefix,
                                     StringRef Rows) {
  auto W = cast<RankedTensorType>(Weight.getType());
  if (W.getRank() != 2 || W.getShape()[1] != In || W.getShape()[0] < 1)
    return Op->emitOpError() << Prefix << "weight is " << str(W.getShape())
                             << ", not [" << Rows << ", " << In << "]";
  const int64_t Out = W.getShape()[0];
  if (Bias &&
      failed(verifyVector(Op, Bias.getType(), Out, (Prefix + "bias").str())))
    return failure();
  Type R = Op->getResult(0).getType();
  if (rank(R) != 2 || width(R) != Out)
    return Op->emitOpError()
           << "gives [batch, " << Out << "], not " << str(shape(R));
  return success();
}

/// A positional table read from row `Offset` on must have rows past it.
LogicalResult verifyPositionOffset(Operation *Op, Value Table, int64_t Offset) {
  if (Offset < 0)
    return Op->emitOpError()
           << "position_offset (" << Offset << ") must not be negative";
  if (Offset > 0 && !Table)
    return Op->emitOpError()
           << "position_offset (" << Offset << ") needs a positional table";
  if (Table && shape(Table.getType())[0] <= Offset)
    return Op->emitOpError()
           << "positional table has " << shape(Table.getType())[0]
           << " rows, none past position_offset (" << Offset << ")";
  return success();
}

/// The custom<Kind> directives: an enum written as a bare keyword.
template <typename AttrT, typename SymbolizeFn>
ParseResult parseEnumKeyword(OpAsmParser &Parser, AttrT &Attr,
                             SymbolizeFn Symbolize, StringRef What) {
  StringRef Keyword;
  SMLoc Loc = Parser.getCurrentLocation();
  if (Parser.parseKeyword(&Keyword))
    return failure();
  auto Value = Symbolize(Keyword);
  if (!Value)
    return Parser.emitError(Loc)
           << "unknown " << What << " '" << Keyword << "'";
  Attr = AttrT::get(Parser.getContext(), *Value);
  return success();
}
} // namespace

// parseE / printE for the assembly format's custom<E> of dialect enum E: its
// keyword, or an error naming the keywords it takes.
#define ENC_ENUM_KEYWORD(Enum, Noun)                                           \
  static ParseResult parse##Enum(OpAsmParser &P, Enum##Attr &A) {              \
    return parseEnumKeyword(                                                   \
        P, A, [](StringRef S) { return symbolize##Enum(S); }, Noun);           \
  }                                                                            \
  static void print##Enum(OpAsmPrinter &P, Operation *, Enum##Attr A) {        \
    P << stringify##Enum(A.getValue());                                        \
  }
ENC_ENUM_KEYWORD(ActivationKind, "activation")
ENC_ENUM_KEYWORD(NormKind, "norm kind")
ENC_ENUM_KEYWORD(PoolMode, "pool mode")
ENC_ENUM_KEYWORD(TableKind, "table kind")
#undef ENC_ENUM_KEYWORD

#include "enc/Dialect/EncLowering.cpp.inc"

#define GET_OP_CLASSES
#include "enc/Dialect/EncOps.cpp.inc"

LogicalResult WeightOp::verify() {
  auto Ty = getResult().getType();
  if (getName().empty())
    return emitOpError() << "needs the name of a tensor of the weights file";
  if (!Ty.hasStaticShape() || Ty.getRank() < 1 || Ty.getRank() > 2)
    return emitOpError() << "weight '" << getName()
                         << "' must have a static shape of rank 1 or 2, not "
                         << Ty;
  return verifyWeightUsers(*this);
}

LogicalResult ConcatWeightsOp::verify() {
  if (getParts().empty())
    return emitOpError() << "needs at least one part";
  Type First = getParts()[0].getType();
  int64_t Rows = 0;
  for (auto [I, Part] : llvm::enumerate(getParts())) {
    Type T = Part.getType();
    if (rank(T) < 1 || rank(T) > 2)
      return emitOpError() << "part #" << I << " must be a vector or a matrix, "
                           << "not " << T;
    if (rank(T) != rank(First) || (rank(T) == 2 && width(T) != width(First)))
      return emitOpError() << "part #" << I << " is " << str(shape(T))
                           << ", which does not stack under part #0, "
                           << str(shape(First));
    Rows += shape(T)[0];
  }
  Type R = getResult().getType();
  if (rank(R) != rank(First) || rank(R) < 1 || shape(R)[0] != Rows ||
      (rank(R) == 2 && width(R) != width(First)))
    return emitOpError() << "result is " << str(shape(R)) << ", but the parts "
                         << "stack to " << Rows << " rows";
  return verifyWeightUsers(*this);
}

LogicalResult PositionalTableOp::verify() {
  auto Ty = getResult().getType();
  int64_t Dim = getDim();
  bool IsF32 = Ty.getElementType().isF32();
  if (Dim < 1)
    return emitOpError() << "dim (" << Dim << ") must be at least 1";
  switch (getKind()) {
  case TableKind::sinusoidal:
    if (!IsF32 || Ty.getRank() != 2 || Ty.getShape()[1] != Dim)
      return emitOpError() << "sinusoidal table must be f32 [max_len, " << Dim
                           << "], not " << Ty;
    return success();
  case TableKind::rope_cos:
  case TableKind::rope_sin:
    if (Dim % 2 != 0)
      return emitOpError() << "rope needs an even d_k, not " << Dim;
    if (!getBase() || !(getBase()->convertToDouble() > 0))
      return emitOpError() << "rope table needs a base > 0";
    if (!IsF32 || Ty.getRank() != 2 || Ty.getShape()[1] != Dim / 2)
      return emitOpError() << "rope table must be f32 [max_len, " << Dim / 2
                           << "], not " << Ty;
    return success();
  case TableKind::alibi_slopes:
    if (!IsF32 || Ty.getRank() != 1 || Ty.getShape()[0] != Dim)
      return emitOpError() << "alibi slopes must be f32 [" << Dim << "], not "
                           << Ty;
    return success();
  case TableKind::relative_buckets:
    if (Dim < 2 || Dim % 2 != 0)
      return emitOpError() << "bucket count (" << Dim
                           << ") must be even and at least 2";
    if (!getMaxDistance() || static_cast<int64_t>(*getMaxDistance()) <= Dim / 2)
      return emitOpError() << "max_distance must be greater than buckets / 2 ("
                           << Dim / 2 << ")";
    if (!Ty.getElementType().isInteger(32) || Ty.getRank() != 1 ||
        Ty.getShape()[0] % 2 != 1)
      return emitOpError() << "relative buckets must be i32 [2 * max_len - 1], "
                           << "not " << Ty;
    return success();
  }
  return success();
}

LogicalResult EmbedTokensOp::verify() {
  Type Ids = getIds().getType(), Table = getTable().getType();
  if (rank(Ids) != 2)
    return emitOpError() << "ids must be [batch, seq], not " << str(shape(Ids));
  if (rank(Table) != 2)
    return emitOpError() << "table must be [vocab, d_model], not "
                         << str(shape(Table));
  if (failed(verifyActivation(*this, getType(), "result")))
    return failure();
  if (width(getType()) != width(Table))
    return emitOpError() << "result width (" << width(getType())
                         << ") does not match the table's width ("
                         << width(Table) << ")";
  if (bool(getTypes()) != bool(getTypeTable()))
    return emitOpError() << "token types and their table go together";
  if (getTypeTable() && (rank(getTypeTable().getType()) != 2 ||
                         width(getTypeTable().getType()) != width(Table)))
    return emitOpError() << "type table must be [type_vocab, " << width(Table)
                         << "], not " << str(shape(getTypeTable().getType()));
  if (getPositions() && (rank(getPositions().getType()) != 2 ||
                         width(getPositions().getType()) != width(Table)))
    return emitOpError() << "positional table must be [max_len, "
                         << width(Table) << "], not "
                         << str(shape(getPositions().getType()));
  return verifyPositionOffset(*this, getPositions(), getPositionOffset());
}

LogicalResult AddPositionsOp::verify() {
  if (failed(verifyActivation(*this, getInput().getType(), "input")))
    return failure();
  Type Table = getTable().getType();
  if (rank(Table) != 2 || width(Table) != width(getInput().getType()))
    return emitOpError() << "table must be [max_len, "
                         << width(getInput().getType()) << "], not "
                         << str(shape(Table));
  if (getType() != getInput().getType())
    return emitOpError() << "result type " << getType()
                         << " differs from the input's "
                         << getInput().getType();
  return verifyPositionOffset(*this, getTable(), getPositionOffset());
}

/// The shapes of a projection: input [.., k], weight [rows, k], result
/// [.., rows / RowsPerOutput] (linear 1; gated_linear 2: gate and up rows),
/// bias [rows].
static LogicalResult verifyProjection(Operation *Op, Type In, Type W,
                                      Type Result, Value Bias,
                                      int64_t RowsPerOutput,
                                      llvm::StringRef Rows) {
  if (failed(verifyActivation(Op, In, "input")) ||
      failed(verifyActivation(Op, Result, "result")))
    return failure();
  if (rank(W) != 2)
    return Op->emitOpError() << "weight must be [" << Rows
                             << ", in_features], not " << str(shape(W));
  if (width(In) != width(W))
    return Op->emitOpError()
           << "input width (" << width(In)
           << ") does not match the weight's in_features (" << width(W) << ")";
  if (width(Result) * RowsPerOutput != shape(W)[0])
    return Op->emitOpError() << "result width (" << width(Result)
                             << (RowsPerOutput == 1 ? "" : " per part")
                             << ") does not match the weight's " << Rows << " ("
                             << shape(W)[0] << ")";
  if (Bias && failed(verifyVector(Op, Bias.getType(), shape(W)[0], "bias")))
    return failure();
  return success();
}

/// A projection's pre-norm prologue: all of norm, norm_gamma and norm_eps or
/// none, each as enc.norm would have them over the input's width.
template <typename OpT> LogicalResult verifyNormPrologue(OpT Op) {
  bool Any = Op.getNorm() || Op.getNormGamma() || Op.getNormBeta() ||
             Op.getNormEpsAttr();
  if (!Any)
    return success();
  if (!Op.getNorm() || !Op.getNormGamma() || !Op.getNormEpsAttr())
    return Op.emitOpError()
           << "a norm prologue needs norm, norm_gamma and norm_eps together";
  int64_t D = width(Op.getInput().getType());
  if (failed(verifyVector(Op, Op.getNormGamma().getType(), D, "norm_gamma")))
    return failure();
  if (Op.getNormBeta()) {
    if (*Op.getNorm() == NormKind::rmsnorm)
      return Op.emitOpError() << "rmsnorm has no beta";
    if (failed(verifyVector(Op, Op.getNormBeta().getType(), D, "norm_beta")))
      return failure();
  }
  if (float Eps = Op.getNormEps()->convertToFloat(); !(Eps > 0))
    return Op.emitOpError()
           << "norm_eps (" << Eps << ") must be greater than 0";
  return success();
}

LogicalResult LinearOp::verify() {
  if (failed(verifyProjection(*this, getInput().getType(),
                              getWeight().getType(), getType(), getBias(), 1,
                              "out_features")) ||
      failed(verifyNormPrologue(*this)))
    return failure();
  if (getResidual() && getResidual().getType() != getType())
    return emitOpError() << "residual type " << getResidual().getType()
                         << " differs from the result's " << getType();
  return success();
}

/// enc_gemm keeps partial sums in y, so y may be the residual only when no
/// activation follows the sum (enc/kernels/gemm.h).
OpOperand *LinearOp::getReplaceableOperand() {
  if (!getResidual() || getActivation() != ActivationKind::none)
    return nullptr;
  return &getResidualMutable()[0];
}
bool LinearOp::allowsColumnSiblings() { return false; }

LogicalResult GatedLinearOp::verify() {
  if (failed(verifyProjection(*this, getInput().getType(),
                              getWeight().getType(), getType(), getBias(), 2,
                              "gate and up rows")))
    return failure();
  return verifyNormPrologue(*this);
}

/// enc_norm works row by row, so y may be x itself (enc/kernels/norm.h).
OpOperand *NormOp::getReplaceableOperand() { return &getInputMutable(); }
bool NormOp::allowsColumnSiblings() { return false; }

/// The elementwise kernels write y in place of an input of the same stride
/// (enc/kernels/elementwise.h).
OpOperand *ActivationOp::getReplaceableOperand() { return &getInputMutable(); }
bool ActivationOp::allowsColumnSiblings() { return false; }
OpOperand *AddOp::getReplaceableOperand() { return &getLhsMutable(); }
bool AddOp::allowsColumnSiblings() { return false; }
OpOperand *MulOp::getReplaceableOperand() { return &getLhsMutable(); }
bool MulOp::allowsColumnSiblings() { return false; }

LogicalResult NormOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyActivation(*this, In, "input")))
    return failure();
  if (failed(verifyVector(*this, getGamma().getType(), width(In), "gamma")))
    return failure();
  if (getBeta()) {
    if (getKind() == NormKind::rmsnorm)
      return emitOpError() << "rmsnorm has no beta";
    if (failed(verifyVector(*this, getBeta().getType(), width(In), "beta")))
      return failure();
  }
  if (!(getEps().convertToFloat() > 0))
    return emitOpError() << "eps (" << getEps().convertToFloat()
                         << ") must be greater than 0";
  if (getType() != In)
    return emitOpError() << "result type " << getType()
                         << " differs from the input's " << In;
  return success();
}

LogicalResult SliceColumnsOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyActivation(*this, In, "input")) ||
      failed(verifyActivation(*this, getType(), "result")))
    return failure();
  int64_t Offset = getOffset(), Size = width(getType());
  if (Offset < 0 || Offset + Size > width(In))
    return emitOpError() << "columns [" << Offset << ", " << Offset + Size
                         << ") are outside the input's " << width(In);
  return success();
}

/// enc_attention may write over q when k and v are other columns of the
/// same rows (enc/kernels/attention.h).
OpOperand *AttentionOp::getReplaceableOperand() { return &getQMutable(); }
bool AttentionOp::allowsColumnSiblings() { return true; }

/// The checks enc.attention and enc.attention_block share: heads dividing
/// the query width D, lengths, window and the positional tables.
template <typename OpT>
static LogicalResult verifyAttention(OpT Op, int64_t D) {
  int64_t Heads = Op.getHeads();
  if (Heads < 1 || D % Heads != 0)
    return Op.emitOpError()
           << "width (" << D << ") is not divisible by heads (" << Heads << ")";
  if (rank(Op.getLengths().getType()) != 1)
    return Op.emitOpError() << "lengths must be [batch]";
  if (int64_t Window = Op.getWindow(); Window < 0)
    return Op.emitOpError()
           << "window (" << Window << ") must not be negative (0: every key)";
  int64_t DK = D / Heads;
  auto Tables = Op.getTables();
  auto expectTables = [&](size_t N, StringRef What) -> LogicalResult {
    if (Tables.size() != N)
      return Op.emitOpError()
             << "positional " << What << " takes " << N
             << (N == 1 ? " table" : " tables") << ", not " << Tables.size();
    return success();
  };
  switch (Op.getPositional()) {
  case AttnPositional::none:
    return expectTables(0, "none");
  case AttnPositional::rope: {
    if (failed(expectTables(2, "rope")))
      return failure();
    if (!Op.getRopeStyle())
      return Op.emitOpError() << "rope needs a rope_style";
    for (Value T : Tables)
      if (rank(T.getType()) != 2 || width(T.getType()) != DK / 2)
        return Op.emitOpError() << "rope tables must be [max_len, " << DK / 2
                                << "], not " << str(shape(T.getType()));
    return success();
  }
  case AttnPositional::alibi:
    if (failed(expectTables(1, "alibi")))
      return failure();
    return verifyVector(Op, Tables[0].getType(), Heads, "alibi slopes");
  case AttnPositional::relative: {
    if (failed(expectTables(2, "relative")))
      return failure();
    Type Buckets = Tables[0].getType(), Table = Tables[1].getType();
    if (rank(Buckets) != 1 ||
        !cast<RankedTensorType>(Buckets).getElementType().isInteger(32))
      return Op.emitOpError()
             << "relative buckets must be i32 [2 * max_len - 1]";
    if (rank(Table) != 2 || width(Table) != Heads)
      return Op.emitOpError() << "relative bias table must be [buckets, "
                              << Heads << "], not " << str(shape(Table));
    return success();
  }
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  Type Q = getQ().getType();
  if (failed(verifyActivation(*this, Q, "q")))
    return failure();
  if (getK().getType() != Q || getV().getType() != Q || getType() != Q)
    return emitOpError() << "q, k, v and the result must have one type; got "
                         << Q << ", " << getK().getType() << ", "
                         << getV().getType() << " -> " << getType();
  return verifyAttention(*this, width(Q));
}

std::optional<AttentionFacts> enc::attentionFacts(Operation *Op) {
  if (auto A = dyn_cast<AttentionOp>(Op))
    return AttentionFacts{
        static_cast<int64_t>(A.getHeads()), width(A.getQ().getType()),
        static_cast<int64_t>(A.getWindow()), A.getScale().convertToFloat()};
  if (auto A = dyn_cast<AttentionBlockOp>(Op))
    return AttentionFacts{
        static_cast<int64_t>(A.getHeads()), shape(A.getQWeight().getType())[0],
        static_cast<int64_t>(A.getWindow()), A.getScale().convertToFloat()};
  return std::nullopt;
}

/// enc_attention_block reads each chunk's rows of x before it writes them
/// (enc/kernels/attention_block.h).
OpOperand *AttentionBlockOp::getReplaceableOperand() {
  return &getInputMutable();
}
bool AttentionBlockOp::allowsColumnSiblings() { return false; }

LogicalResult AttentionBlockOp::verify() {
  Type X = getInput().getType();
  if (getType() != X)
    return emitOpError() << "result type " << getType()
                         << " differs from the input's " << X;
  if (failed(verifyActivation(*this, X, "input")))
    return failure();
  auto WQ = cast<RankedTensorType>(getQWeight().getType());
  if (rank(WQ) != 2)
    return emitOpError() << "q_weight must be a matrix, not " << str(shape(WQ));
  // The queries [.., D] (D: Wq's rows), the keys and values [.., 2D] and the
  // output projection back to x's width.
  auto AsRows = [&](int64_t D) {
    SmallVector<int64_t> S(shape(X));
    S.back() = D;
    return RankedTensorType::get(S, WQ.getElementType());
  };
  int64_t D = WQ.getShape()[0];
  if (failed(verifyProjection(*this, X, WQ, AsRows(D), getQBias(), 1,
                              "heads * d_k")) ||
      failed(verifyProjection(*this, X, getKvWeight().getType(), AsRows(2 * D),
                              getKvBias(), 1, "2 * heads * d_k")) ||
      failed(verifyProjection(*this, AsRows(D), getOutWeight().getType(), X,
                              getOutBias(), 1, "d_model")) ||
      failed(verifyNormPrologue(*this)))
    return failure();
  return verifyAttention(*this, D);
}

/// enc_ffn_block reads each chunk's rows of x before it writes them
/// (enc/kernels/ffn_block.h).
OpOperand *FfnBlockOp::getReplaceableOperand() { return &getInputMutable(); }
bool FfnBlockOp::allowsColumnSiblings() { return false; }

LogicalResult FfnBlockOp::verify() {
  Type X = getInput().getType();
  if (getType() != X)
    return emitOpError() << "result type " << getType()
                         << " differs from the input's " << X;
  auto W1 = cast<RankedTensorType>(getHiddenWeight().getType());
  if (failed(verifyActivation(*this, X, "input")))
    return failure();
  // The hidden width: W2's in_features; the hidden weight has it once, or
  // twice (gate and up) when gated.
  auto W2 = cast<RankedTensorType>(getOutWeight().getType());
  if (rank(W2) != 2 || rank(W1) != 2)
    return emitOpError() << "weights must be matrices, not " << str(shape(W1))
                         << " and " << str(shape(W2));
  int64_t Hidden = W2.getShape()[1], Parts = getGated() ? 2 : 1;
  if (W1.getShape()[0] != Parts * Hidden || W1.getShape()[1] != width(X) ||
      W2.getShape()[0] != width(X))
    return emitOpError() << "hidden_weight " << str(shape(W1))
                         << " and out_weight " << str(shape(W2))
                         << " do not fit a " << (getGated() ? "gated " : "")
                         << "hidden layer of " << Hidden << " over width "
                         << width(X);
  if (getHiddenBias() && failed(verifyVector(*this, getHiddenBias().getType(),
                                             Parts * Hidden, "hidden_bias")))
    return failure();
  if (getOutBias() &&
      failed(verifyVector(*this, getOutBias().getType(), width(X), "out_bias")))
    return failure();
  return verifyNormPrologue(*this);
}

LogicalResult PoolOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyActivation(*this, In, "input")))
    return failure();
  Type R = getType();
  if (getMode() == PoolMode::none) {
    if (R != In)
      return emitOpError() << "pooling none keeps the input type " << In
                           << ", not " << R;
    return success();
  }
  // A narrower result keeps the first columns (output_dim, Matryoshka).
  if (rank(R) != 2 || width(R) > width(In) || width(R) < 1)
    return emitOpError() << "pooling " << stringifyPoolMode(getMode())
                         << " gives [batch, n] with 1 <= n <= " << width(In)
                         << ", not " << str(shape(R));
  return success();
}

LogicalResult ClassifierOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyPooledInput(*this, In, getMode(), "classifies")))
    return failure();
  const int64_t D = width(In);
  if (getDenseWeight()) {
    auto W = cast<RankedTensorType>(getDenseWeight().getType());
    if (W.getRank() != 2 || W.getShape()[0] != D || W.getShape()[1] != D)
      return emitOpError() << "dense weight is " << str(W.getShape())
                           << ", not [" << D << ", " << D << "]";
    if (getDenseBias() &&
        failed(verifyVector(*this, getDenseBias().getType(), D, "dense bias")))
      return failure();
  } else if (getDenseBias()) {
    return emitOpError() << "has a dense bias but no dense weight";
  }
  if (getNormGamma()) {
    if (!getDenseWeight())
      return emitOpError() << "normalises the dense layer's output, but has "
                              "no dense layer";
    if (!getNormKind() || !getEps())
      return emitOpError() << "has a norm without norm_kind and eps";
    if (failed(verifyVector(*this, getNormGamma().getType(), D, "norm gamma")))
      return failure();
    if (getNormBeta() &&
        failed(verifyVector(*this, getNormBeta().getType(), D, "norm beta")))
      return failure();
  } else if (getNormBeta()) {
    return emitOpError() << "has a norm beta but no norm gamma";
  }
  return verifyPooledProjection(*this, getWeight(), getBias(), D, "output ",
                                "labels");
}

LogicalResult DenseHeadOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyPooledInput(*this, In, getMode(), "projects")))
    return failure();
  return verifyPooledProjection(*this, getWeight(), getBias(), width(In), "",
                                "dim");
}

LogicalResult ColbertOp::verify() {
  Type In = getInput().getType();
  if (failed(verifyActivation(*this, In, "input")) ||
      failed(verifyActivation(*this, getType(), "result")))
    return failure();
  auto W = cast<RankedTensorType>(getWeight().getType());
  if (W.getRank() != 2 || W.getShape()[1] != width(In) ||
      W.getShape()[0] != width(getType()))
    return emitOpError() << "weight is " << str(W.getShape()) << ", not ["
                         << width(getType()) << ", " << width(In) << "]";
  return success();
}

namespace {
/// enc.mlm and enc.splade: W [vocab, d] and b [vocab] over the input's d;
/// the result per token (mlm) or per sequence (splade), vocab wide.
template <typename DecoderOp>
LogicalResult verifyDecoder(DecoderOp Op, bool PerToken) {
  Type In = Op.getInput().getType();
  if (failed(verifyActivation(Op, In, "input")))
    return failure();
  auto W = cast<RankedTensorType>(Op.getWeight().getType());
  if (W.getRank() != 2 || W.getShape()[1] != width(In) || W.getShape()[0] < 1)
    return Op.emitOpError() << "decoder weight is " << str(W.getShape())
                            << ", not [vocab, " << width(In) << "]";
  const int64_t Vocab = W.getShape()[0];
  if (failed(verifyVector(Op, Op.getBias().getType(), Vocab, "decoder bias")))
    return failure();
  Type R = Op.getType();
  if (rank(R) != (PerToken ? 3 : 2) || width(R) != Vocab)
    return Op.emitOpError()
           << "gives " << (PerToken ? "[batch, seq, " : "[batch, ") << Vocab
           << "], not " << str(shape(R));
  return success();
}
} // namespace

LogicalResult MlmOp::verify() { return verifyDecoder(*this, true); }

LogicalResult SpladeOp::verify() { return verifyDecoder(*this, false); }

LogicalResult ActivationOp::verify() {
  return verifyActivation(*this, getType(), "input");
}

LogicalResult AddOp::verify() {
  return verifyActivation(*this, getType(), "operands");
}

LogicalResult MulOp::verify() {
  return verifyActivation(*this, getType(), "operands");
}
