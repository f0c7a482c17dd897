//===- ChunkQueries.cpp - Attention sub-layers a chunk of queries at a time
//===//
//
// A fused QKV projection, its attention and the output projection that adds
// to the same rows become one enc.attention_block: the queries, keys, values
// and attention outputs of all rows then never take arena memory
// (docs/c-abi.md#memory).
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

namespace enc {
#define GEN_PASS_DEF_ENCCHUNKQUERIES
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
int64_t width(Value V) {
  return cast<RankedTensorType>(V.getType()).getShape().back();
}

/// The slice of `QKV` at column `Offset` that only `Attn` reads, or null.
SliceColumnsOp sliceFor(Value V, Value QKV, int64_t Offset, AttentionOp Attn) {
  auto S = V.getDefiningOp<SliceColumnsOp>();
  if (!S || S.getInput() != QKV ||
      static_cast<int64_t>(S.getOffset()) != Offset || !S->hasOneUse() ||
      *S->user_begin() != Attn.getOperation())
    return nullptr;
  return S;
}

/// The three parts of a weight (or bias) enc-fuse-projections stacked.
ConcatWeightsOp threeParts(Value V) {
  auto C = V ? V.getDefiningOp<ConcatWeightsOp>() : nullptr;
  return C && C.getParts().size() == 3 ? C : nullptr;
}

void chunk(AttentionOp Attn) {
  const int64_t D = width(Attn.getQ());
  auto QS = Attn.getQ().getDefiningOp<SliceColumnsOp>();
  if (!QS)
    return;
  Value QKVValue = QS.getInput();
  auto QKV = QKVValue.getDefiningOp<LinearOp>();
  if (!QKV || QKV.getResidual() ||
      QKV.getActivation() != ActivationKind::none || width(QKVValue) != 3 * D)
    return;
  SliceColumnsOp Slices[3] = {sliceFor(Attn.getQ(), QKVValue, 0, Attn),
                              sliceFor(Attn.getK(), QKVValue, D, Attn),
                              sliceFor(Attn.getV(), QKVValue, 2 * D, Attn)};
  if (!Slices[0] || !Slices[1] || !Slices[2] ||
      std::distance(QKVValue.use_begin(), QKVValue.use_end()) != 3)
    return;
  ConcatWeightsOp W = threeParts(QKV.getWeight());
  ConcatWeightsOp Bias = threeParts(QKV.getBias());
  if (!W || (QKV.getBias() && !Bias))
    return;
  // The output projection adds to the rows the queries came from.
  if (!Attn->hasOneUse())
    return;
  auto Out = dyn_cast<LinearOp>(*Attn->user_begin());
  Value X = QKV.getInput();
  if (!Out || Out.getInput() != Attn.getResult() || Out.getResidual() != X ||
      Out.getNorm() || Out.getActivation() != ActivationKind::none)
    return;

  // The keys' and values' weights stacked, where the QKV projection was.
  OpBuilder B(QKV);
  auto stack = [&](ConcatWeightsOp C) -> Value {
    if (!C)
      return Value();
    auto First = cast<RankedTensorType>(C.getParts()[1].getType());
    SmallVector<int64_t> Shape(First.getShape());
    Shape[0] *= 2;
    return B.create<ConcatWeightsOp>(
        C.getLoc(), RankedTensorType::get(Shape, First.getElementType()),
        ValueRange{C.getParts()[1], C.getParts()[2]});
  };
  // In this order, whatever the compiler's order of argument evaluation: the
  // slots follow the ops.
  Value KVWeight = stack(W);
  Value KVBias = stack(Bias);

  // The projections, attention and output projection in one op.
  B.setInsertionPoint(Out);
  Location L = B.getFusedLoc({QKV.getLoc(), Attn.getLoc(), Out.getLoc()});
  Value Y = B.create<AttentionBlockOp>(
      L, Out.getType(), X, W.getParts()[0], KVWeight, Attn.getLengths(),
      Out.getWeight(), Bias ? Bias.getParts()[0] : Value(), KVBias,
      Out.getBias(), QKV.getNormGamma(), QKV.getNormBeta(), Attn.getTables(),
      Attn.getHeadsAttr(), Attn.getScaleAttr(), Attn.getPositionalAttr(),
      Attn.getRopeStyleAttr(), Attn.getWindowAttr(), QKV.getNormAttr(),
      QKV.getNormEpsAttr());
  Out.getResult().replaceAllUsesWith(Y);
  Out.erase();
  Attn.erase();
  for (SliceColumnsOp S : Slices)
    S.erase();
  QKV.erase();
  for (ConcatWeightsOp C : {W, Bias})
    if (C && C->use_empty())
      C.erase();
}

struct ChunkQueriesPass : enc::impl::EncChunkQueriesBase<ChunkQueriesPass> {
  void runOnOperation() override {
    for (AttentionOp A : collectOps<AttentionOp>(getOperation()))
      chunk(A);
  }
};
} // namespace
