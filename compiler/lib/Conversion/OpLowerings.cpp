//===- OpLowerings.cpp - One kernel call per enc op -----------------------===//
//
// Each op of a planned encoder becomes one call into the runtime on views of
// the arena, the loaded slots and the constant tables, through its own
// definition of RuntimeLowerable::lowerToRuntime (EncLowering.td says which
// ops have one); a failing call returns its status from NAME_forward. Enum
// operands go through the exhaustive maps of enc/ABI/RuntimeEnums.h.
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

#include "enc/ABI/RuntimeEnums.h"

using namespace mlir;
using namespace enc;

View EncoderLowering::resultView(Operation *Op) {
  // In place (enc-plan-buffers): the replaced operand's pointer and stride.
  if (std::optional<unsigned> N = getInPlaceOf(Op))
    return Views[Op->getResult(0)] = view(Op->getOperand(*N));
  const int64_t Width =
      cast<RankedTensorType>(Op->getResult(0).getType()).getShape().back();
  // In the caller's output (enc-plan-buffers): `out`, as wide as the result.
  if (isInOutput(Op))
    return Views[Op->getResult(0)] = View{Out, Width};
  Location L = Op->getLoc();
  Value Floats = B.create<LLVM::MulOp>(L, Rows, B.i64(*getRowOffset(Op), L));
  View V{B.offset(Workspace, Floats, L), Width};
  Views[Op->getResult(0)] = V;
  return V;
}

namespace {
int64_t width(Value V) {
  return cast<RankedTensorType>(V.getType()).getShape().back();
}
int64_t rows(Value V) {
  return cast<RankedTensorType>(V.getType()).getShape().front();
}

/// The rows of a positional table from `Offset` on (position p is row
/// p + Offset): a pointer offset and the rows left, or null and 0.
std::pair<Value, int64_t> positionRows(EncoderLowering &E, Value Table,
                                       int64_t Offset, Location L) {
  if (!Table)
    return {E.B.null(L), 0};
  Value Ptr = E.view(Table).Ptr;
  if (Offset > 0)
    Ptr = E.B.offset(Ptr, E.B.i64(Offset * width(Table), L), L);
  return {Ptr, rows(Table) - Offset};
}

} // namespace

// One definition per op of RuntimeLowerable (EncLowering.td).

LogicalResult EmbedTokensOp::lowerToRuntime(EncoderLowering &E) {
  EmbedTokensOp Op = *this;
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  View Y = E.resultView(Op);
  int64_t TypeVocab = Op.getTypeTable() ? rows(Op.getTypeTable()) : 0;
  auto [Pos, PosRows] =
      positionRows(E, Op.getPositions(), Op.getPositionOffset(), L);
  B.callChecked(ENC_RUNTIME_CALLEE(enc_embed_tokens),
                {E.Batch, E.SeqLen, E.view(Op.getIds()).Ptr,
                 E.ptrOrNull(Op.getTypes(), L), E.Lengths,
                 E.view(Op.getTable()).Ptr, B.i32(rows(Op.getTable()), L),
                 B.f32(Op.getScale().convertToFloat(), L),
                 E.ptrOrNull(Op.getTypeTable(), L), B.i32(TypeVocab, L), Pos,
                 B.i64(PosRows, L), B.i64(width(Op.getTable()), L), Y.Ptr,
                 B.i64(Y.Ld, L)},
                L);
  return success();
}

LogicalResult AddPositionsOp::lowerToRuntime(EncoderLowering &E) {
  AddPositionsOp Op = *this;
  auto [B, L, Y, X] = E.unaryOp(Op);
  auto [Pos, PosRows] =
      positionRows(E, Op.getTable(), Op.getPositionOffset(), L);
  B.callChecked(Op.getSinusoidalTail()
                    ? ENC_RUNTIME_CALLEE(enc_embed_floats_sinusoidal)
                    : ENC_RUNTIME_CALLEE(enc_embed_floats),
                {E.Batch, E.SeqLen, X.Ptr, B.i64(X.Ld, L), E.Lengths, Pos,
                 B.i64(PosRows, L), B.i64(width(Op.getInput()), L), Y.Ptr,
                 B.i64(Y.Ld, L)},
                L);
  return success();
}

namespace {
/// The leading arguments of enc_gemm_normed and enc_gemm_gated_normed: the
/// op's norm prologue (EncOps.td), or none when it has no prologue.
template <typename OpT>
SmallVector<Value> normPrologue(EncoderLowering &E, OpT Op, Location L) {
  if (!Op.getNorm())
    return {};
  RuntimeBuilder &B = E.B;
  return {B.i32(abi::toRuntime(*Op.getNorm()), L),
          E.view(Op.getNormGamma()).Ptr, E.ptrOrNull(Op.getNormBeta(), L),
          B.f32(Op.getNormEps()->convertToFloat(), L)};
}

/// The same for a kernel that takes the prologue's arguments always
/// (enc_attention_block, enc_ffn_block): zeros and nulls when there is none.
template <typename OpT>
SmallVector<Value> normPrologueOrNone(EncoderLowering &E, OpT Op, Location L) {
  if (Op.getNorm())
    return normPrologue(E, Op, L);
  RuntimeBuilder &B = E.B;
  return {B.i32(0, L), B.null(L), B.null(L), B.f32(0.0f, L)};
}

/// One GEMM entry point (enc/kernels/gemm.h): Normed, its arguments led by
/// Op's norm prologue, when Op has one, else Plain; then the rows, X, the
/// packed weight and Tail, the entry point's own arguments.
template <typename OpT>
void callGemm(EncoderLowering &E, OpT Op, View X, ArrayRef<Value> Tail,
              const abi::Callee &Normed, const abi::Callee &Plain, Location L) {
  SmallVector<Value> Args = normPrologue(E, Op, L);
  Args.append(
      {E.ValidRows, X.Ptr, E.B.i64(X.Ld, L), E.view(Op.getWeight()).Ptr});
  Args.append(Tail.begin(), Tail.end());
  E.B.callChecked(Op.getNorm() ? Normed : Plain, Args, L);
}
} // namespace

LogicalResult LinearOp::lowerToRuntime(EncoderLowering &E) {
  LinearOp Op = *this;
  auto [B, L, Y, X] = E.unaryOp(Op);
  View R = Op.getResidual() ? E.view(Op.getResidual()) : View{B.null(L), 0};
  callGemm(E, Op, X,
           {E.ptrOrNull(Op.getBias(), L),
            B.i32(abi::toRuntime(Op.getActivation()), L), R.Ptr, B.i64(R.Ld, L),
            Y.Ptr, B.i64(Y.Ld, L)},
           ENC_RUNTIME_CALLEE(enc_gemm_normed), ENC_RUNTIME_CALLEE(enc_gemm),
           L);
  return success();
}

/// One GEMM for both projections of a gated FFN; the bias slot is [bg; bu],
/// so the up bias starts n floats in.
LogicalResult GatedLinearOp::lowerToRuntime(EncoderLowering &E) {
  GatedLinearOp Op = *this;
  auto [B, L, Y, X] = E.unaryOp(Op);
  Value BiasGate = E.ptrOrNull(Op.getBias(), L), BiasUp = BiasGate;
  if (Op.getBias())
    BiasUp = B.offset(BiasGate, B.i64(width(Op.getResult()), L), L);
  callGemm(E, Op, X,
           {BiasGate, BiasUp, B.i32(abi::toRuntime(Op.getActivation()), L),
            Y.Ptr, B.i64(Y.Ld, L)},
           ENC_RUNTIME_CALLEE(enc_gemm_gated_normed),
           ENC_RUNTIME_CALLEE(enc_gemm_gated), L);
  return success();
}

LogicalResult ActivationOp::lowerToRuntime(EncoderLowering &E) {
  ActivationOp Op = *this;
  auto [B, L, Y, X] = E.unaryOp(Op);
  B.callChecked(ENC_RUNTIME_CALLEE(enc_activation_rows),
                {B.i32(abi::toRuntime(Op.getKind()), L), E.ValidRows,
                 B.i64(width(Op.getInput()), L), X.Ptr, B.i64(X.Ld, L), Y.Ptr,
                 B.i64(Y.Ld, L)},
                L);
  return success();
}

namespace {

/// enc.add and enc.mul: y = lhs (op) rhs over the valid rows, one runtime
/// call with the same signature (enc_add_rows, enc_mul_rows).
template <typename BinaryOp>
LogicalResult lowerBinary(EncoderLowering &E, BinaryOp Op,
                          const abi::Callee &Callee) {
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  View Y = E.resultView(Op);
  View A = E.view(Op.getLhs()), C = E.view(Op.getRhs());
  B.callChecked(Callee,
                {E.ValidRows, B.i64(width(Op.getLhs()), L), A.Ptr,
                 B.i64(A.Ld, L), C.Ptr, B.i64(C.Ld, L), Y.Ptr, B.i64(Y.Ld, L)},
                L);
  return success();
}

} // namespace

LogicalResult AddOp::lowerToRuntime(EncoderLowering &E) {
  AddOp Op = *this;
  return lowerBinary(E, Op, ENC_RUNTIME_CALLEE(enc_add_rows));
}

LogicalResult MulOp::lowerToRuntime(EncoderLowering &E) {
  MulOp Op = *this;
  return lowerBinary(E, Op, ENC_RUNTIME_CALLEE(enc_mul_rows));
}

LogicalResult NormOp::lowerToRuntime(EncoderLowering &E) {
  NormOp Op = *this;
  auto [B, L, Y, X] = E.unaryOp(Op);
  B.callChecked(ENC_RUNTIME_CALLEE(enc_norm),
                {B.i32(abi::toRuntime(Op.getKind()), L), E.ValidRows,
                 B.i64(width(Op.getInput()), L), X.Ptr, B.i64(X.Ld, L),
                 E.view(Op.getGamma()).Ptr, E.ptrOrNull(Op.getBeta(), L),
                 B.f32(Op.getEps().convertToFloat(), L), Y.Ptr, B.i64(Y.Ld, L)},
                L);
  return success();
}

/// A view of the input's columns: a pointer offset, never a copy.
LogicalResult SliceColumnsOp::lowerToRuntime(EncoderLowering &E) {
  SliceColumnsOp Op = *this;
  View X = E.view(Op.getInput());
  E.Views[Op.getResult()] = {
      E.B.offset(X.Ptr, E.B.i64(Op.getOffset(), Op.getLoc()), Op.getLoc()),
      X.Ld};
  return success();
}

namespace {
/// Fills E.AttentionParams (enc_attention_params) from the attention
/// attributes and tables enc.attention and enc.attention_block share, for
/// queries `Width` columns wide, and this block's probabilities when the
/// caller asks for them.
template <typename OpT>
void storeAttentionParams(EncoderLowering &E, OpT Op, int64_t Width) {
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  // enc_attention_params, every field zero unless set below.
  auto ParamsTy = abi::structType<enc_attention_params>(B.getContext());
  SmallVector<Value> Fields;
  for (Type T : ParamsTy.getBody())
    Fields.push_back(B.zero(T, L));
  auto Set = [&](unsigned Field, Value V) { Fields[Field] = V; };
  int64_t Heads = Op.getHeads();
  Set(ENC_FIELD(enc_attention_params, heads), B.i32(Heads, L));
  Set(ENC_FIELD(enc_attention_params, d_k), B.i32(Width / Heads, L));
  Set(ENC_FIELD(enc_attention_params, max_len),
      B.i32(getEncoderFacts(E.Func).MaxLen, L));
  Set(ENC_FIELD(enc_attention_params, scale),
      B.f32(Op.getScale().convertToFloat(), L));
  Set(ENC_FIELD(enc_attention_params, window), B.i32(Op.getWindow(), L));
  auto Tables = Op.getTables();
  switch (Op.getPositional()) {
  case AttnPositional::none:
    break;
  case AttnPositional::rope:
    Set(ENC_FIELD(enc_attention_params, rope_style),
        B.i32(abi::toRuntime(*Op.getRopeStyle()), L));
    Set(ENC_FIELD(enc_attention_params, rope_cos), E.view(Tables[0]).Ptr);
    Set(ENC_FIELD(enc_attention_params, rope_sin), E.view(Tables[1]).Ptr);
    break;
  case AttnPositional::alibi:
    Set(ENC_FIELD(enc_attention_params, alibi_slopes), E.view(Tables[0]).Ptr);
    break;
  case AttnPositional::relative:
    Set(ENC_FIELD(enc_attention_params, rel_bucket), E.view(Tables[0]).Ptr);
    Set(ENC_FIELD(enc_attention_params, rel_table), E.view(Tables[1]).Ptr);
    Set(ENC_FIELD(enc_attention_params, rel_buckets),
        B.i32(rows(Tables[1]), L));
    break;
  }
  // Block n's probabilities, [batch, heads, seq_len, seq_len] at
  // probs + n * batch * heads * seq_len^2, when the caller wants them.
  Value PerBlock = B.create<LLVM::MulOp>(
      L, E.Rows,
      B.create<LLVM::MulOp>(L, B.create<LLVM::SExtOp>(L, B.i64Type(), E.SeqLen),
                            B.i64(Heads, L)));
  Value BlockProbs = B.offset(
      E.Probs, B.create<LLVM::MulOp>(L, PerBlock, B.i64(E.Attentions++, L)), L);
  Value NoProbs =
      B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::eq, E.Probs, B.null(L));
  Set(ENC_FIELD(enc_attention_params, probs),
      B.create<LLVM::SelectOp>(L, NoProbs, B.null(L), BlockProbs));
  for (auto [I, F] : llvm::enumerate(Fields)) {
    Value P = B.create<LLVM::GEPOp>(
        L, B.ptrType(), ParamsTy, E.AttentionParams,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(I)});
    B.create<LLVM::StoreOp>(L, F, P);
  }
}
} // namespace

LogicalResult AttentionOp::lowerToRuntime(EncoderLowering &E) {
  AttentionOp Op = *this;
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  View Y = E.resultView(Op);
  View Q = E.view(Op.getQ()), K = E.view(Op.getK()), V = E.view(Op.getV());
  if (Q.Ld != K.Ld || Q.Ld != V.Ld)
    return Op.emitError("q, k and v must share a row stride, not ")
           << Q.Ld << ", " << K.Ld << " and " << V.Ld;
  storeAttentionParams(E, Op, width(Op.getQ()));
  B.callChecked(ENC_RUNTIME_CALLEE(enc_attention),
                {E.AttentionParams, E.Batch, E.SeqLen,
                 E.view(Op.getLengths()).Ptr, Q.Ptr, K.Ptr, V.Ptr,
                 B.i64(Q.Ld, L), Y.Ptr, B.i64(Y.Ld, L)},
                L);
  return success();
}

LogicalResult AttentionBlockOp::lowerToRuntime(EncoderLowering &E) {
  AttentionBlockOp Op = *this;
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  View X = E.view(Op.getInput());
  View Y = E.resultView(Op);
  storeAttentionParams(E, Op, rows(Op.getQWeight()));
  SmallVector<Value> Args = {E.AttentionParams, E.Batch, E.SeqLen,
                             E.view(Op.getLengths()).Ptr};
  Args.append(normPrologueOrNone(E, Op, L));
  Args.append({X.Ptr, B.i64(X.Ld, L), E.view(Op.getQWeight()).Ptr,
               E.ptrOrNull(Op.getQBias(), L), E.view(Op.getKvWeight()).Ptr,
               E.ptrOrNull(Op.getKvBias(), L), E.view(Op.getOutWeight()).Ptr,
               E.ptrOrNull(Op.getOutBias(), L), Y.Ptr, B.i64(Y.Ld, L)});
  B.callChecked(ENC_RUNTIME_CALLEE(enc_attention_block), Args, L);
  return success();
}

LogicalResult FfnBlockOp::lowerToRuntime(EncoderLowering &E) {
  FfnBlockOp Op = *this;
  RuntimeBuilder &B = E.B;
  Location L = Op.getLoc();
  View X = E.view(Op.getInput());
  View Y = E.resultView(Op);
  SmallVector<Value> Args = normPrologueOrNone(E, Op, L);
  Value W1 = E.view(Op.getHiddenWeight()).Ptr;
  // A gated layer's bias slot is [bg; bu]: the up bias starts d_ff in.
  Value BiasGate = E.ptrOrNull(Op.getHiddenBias(), L), BiasUp = B.null(L);
  if (Op.getGated() && Op.getHiddenBias())
    BiasUp = B.offset(BiasGate, B.i64(width(Op.getHiddenBias()) / 2, L), L);
  Args.append({E.ValidRows, X.Ptr, B.i64(X.Ld, L),
               Op.getGated() ? B.null(L) : W1, Op.getGated() ? W1 : B.null(L),
               BiasGate, BiasUp, B.i32(abi::toRuntime(Op.getActivation()), L),
               E.view(Op.getOutWeight()).Ptr, E.ptrOrNull(Op.getOutBias(), L),
               Y.Ptr, B.i64(Y.Ld, L)});
  B.callChecked(ENC_RUNTIME_CALLEE(enc_ffn_block), Args, L);
  return success();
}

namespace {
/// The arguments of an output kernel, in order: the op's own leading ones,
/// the rows every output kernel reads, its trailing ones.
SmallVector<Value> joinArgs(ArrayRef<Value> Leading, ArrayRef<Value> Rows,
                            ArrayRef<Value> Trailing) {
  SmallVector<Value> Args(Leading);
  Args.append(Rows.begin(), Rows.end());
  Args.append(Trailing.begin(), Trailing.end());
  return Args;
}

/// An op that writes the encoder's output (enc.pool and the heads): one
/// kernel call into the caller's `out`. Every such kernel reads its input
/// rows as (batch, seq, width, lengths, x, ldx); `Args(B, L, Rows)` places
/// them among the op's own arguments.
template <typename OutputOp, typename ArgsFn>
LogicalResult lowerOutput(EncoderLowering &E, OutputOp Op,
                          const abi::Callee &Callee, int64_t InputWidth,
                          ArgsFn Args) {
  Location L = Op.getLoc();
  RuntimeBuilder &B = E.B;
  View X = E.view(Op.getInput());
  const Value Rows[] = {
      E.Batch, E.SeqLen,      B.i64(InputWidth, L), E.view(Op.getLengths()).Ptr,
      X.Ptr,   B.i64(X.Ld, L)};
  B.callChecked(Callee, Args(B, L, ArrayRef<Value>(Rows)), L);
  E.Views[Op.getResult()] = {E.Out, width(Op.getResult())};
  return success();
}
} // namespace

/// The encoder's output, from the packed arena into the caller's `out`.
LogicalResult PoolOp::lowerToRuntime(EncoderLowering &E) {
  PoolOp Op = *this;
  // The result's width: the input's, or its first output_dim columns.
  const int64_t D = width(Op.getResult());
  return lowerOutput(E, Op, ENC_RUNTIME_CALLEE(enc_pool), D,
                     [&](RuntimeBuilder &B, Location L, ArrayRef<Value> Rows) {
                       return joinArgs({B.i32(abi::toRuntime(Op.getMode()), L),
                                        B.i32(Op.getNormalize() ? 1 : 0, L)},
                                       Rows, {E.Out, B.i64(D, L)});
                     });
}

/// The encoder's output when it classifies (docs/language.md#heads).
LogicalResult ClassifierOp::lowerToRuntime(EncoderLowering &E) {
  ClassifierOp Op = *this;
  return lowerOutput(
      E, Op, ENC_RUNTIME_CALLEE(enc_classifier), width(Op.getInput()),
      [&](RuntimeBuilder &B, Location L, ArrayRef<Value> Rows) {
        return joinArgs(
            {B.i32(abi::toRuntime(Op.getMode()), L)}, Rows,
            {E.ptrOrNull(Op.getDenseWeight(), L),
             E.ptrOrNull(Op.getDenseBias(), L),
             B.i32(abi::toRuntime(Op.getActivation()), L),
             B.i32(Op.getNormKind() ? abi::toRuntime(*Op.getNormKind()) : 0, L),
             E.ptrOrNull(Op.getNormGamma(), L),
             E.ptrOrNull(Op.getNormBeta(), L),
             B.f32(Op.getEps() ? Op.getEps()->convertToFloat() : 0.0f, L),
             E.view(Op.getWeight()).Ptr, E.view(Op.getBias()).Ptr,
             B.i32(abi::toRuntime(Op.getScores()), L), E.Out,
             B.i64(width(Op.getResult()), L)});
      });
}

/// The encoder's output when it projects the pooled vector (a Dense module).
LogicalResult DenseHeadOp::lowerToRuntime(EncoderLowering &E) {
  DenseHeadOp Op = *this;
  return lowerOutput(
      E, Op, ENC_RUNTIME_CALLEE(enc_dense_head), width(Op.getInput()),
      [&](RuntimeBuilder &B, Location L, ArrayRef<Value> Rows) {
        return joinArgs({B.i32(abi::toRuntime(Op.getMode()), L),
                         B.i32(Op.getNormalize() ? 1 : 0, L)},
                        Rows,
                        {E.view(Op.getWeight()).Ptr,
                         E.ptrOrNull(Op.getBias(), L),
                         B.i32(abi::toRuntime(Op.getActivation()), L), E.Out,
                         B.i64(width(Op.getResult()), L)});
      });
}

/// The encoder's output when it gives ColBERT vectors.
LogicalResult ColbertOp::lowerToRuntime(EncoderLowering &E) {
  ColbertOp Op = *this;
  return lowerOutput(
      E, Op, ENC_RUNTIME_CALLEE(enc_colbert), width(Op.getInput()),
      [&](RuntimeBuilder &, Location, ArrayRef<Value> Rows) {
        return joinArgs({}, Rows, {E.view(Op.getWeight()).Ptr, E.Out});
      });
}

namespace {
/// enc.mlm and enc.splade: the decoder's runtime call, into `out`.
template <typename DecoderOp>
LogicalResult lowerDecoder(EncoderLowering &E, DecoderOp Op,
                           const abi::Callee &Callee) {
  return lowerOutput(E, Op, Callee, width(Op.getInput()),
                     [&](RuntimeBuilder &, Location, ArrayRef<Value> Rows) {
                       return joinArgs({}, Rows,
                                       {E.view(Op.getWeight()).Ptr,
                                        E.view(Op.getBias()).Ptr, E.Out});
                     });
}
} // namespace

/// The encoder's output when it gives masked-LM logits.
LogicalResult MlmOp::lowerToRuntime(EncoderLowering &E) {
  return lowerDecoder(E, *this, ENC_RUNTIME_CALLEE(enc_mlm));
}

/// The encoder's output when it gives SPLADE vectors.
LogicalResult SpladeOp::lowerToRuntime(EncoderLowering &E) {
  return lowerDecoder(E, *this, ENC_RUNTIME_CALLEE(enc_splade));
}

namespace {
LogicalResult lower(EncoderLowering &E, func::ReturnOp Op) {
  if (Op.getNumOperands() != 1 ||
      !isa_and_nonnull<PoolOp, ClassifierOp, DenseHeadOp, ColbertOp, MlmOp,
                       SpladeOp>(Op.getOperand(0).getDefiningOp()))
    return Op.emitError("an encoder must return the result of enc.pool, "
                        "enc.classifier, enc.dense_head, enc.colbert, enc.mlm "
                        "or enc.splade");
  E.B.create<LLVM::ReturnOp>(Op.getLoc(), E.B.i32(ENC_OK, Op.getLoc()));
  return success();
}

/// What an op must have been given before lowering (EncLowering.td).
LogicalResult checkPrepared(Operation &Op) {
  if (Op.hasTrait<enc::OpTrait::FoldedBeforeLowering>())
    return Op.emitError("positional table not folded: run "
                        "enc-fold-positional first");
  if (Op.hasTrait<enc::OpTrait::WritesArena>() && !getRowOffset(&Op) &&
      !getInPlaceOf(&Op) && !isInOutput(&Op))
    return Op.emitError("not planned: run enc-plan-buffers first");
  return success();
}
} // namespace

LogicalResult enc::emitForwardBody(EncoderLowering &E) {
  for (Operation &Op : E.Func.getBody().front()) {
    // Weights and constants are views already (ForwardPrologue.cpp).
    if (Op.hasTrait<enc::OpTrait::LoweredInPrologue>() ||
        isa<arith::ConstantOp>(Op))
      continue;
    if (failed(checkPrepared(Op)))
      return failure();
    LogicalResult Lowered = failure();
    if (auto Lowerable = dyn_cast<RuntimeLowerable>(Op))
      Lowered = Lowerable.lowerToRuntime(E);
    else if (auto Return = dyn_cast<func::ReturnOp>(Op))
      Lowered = lower(E, Return);
    else
      return Op.emitError("cannot lower this op to runtime calls");
    if (failed(Lowered))
      return failure();
  }
  return success();
}
