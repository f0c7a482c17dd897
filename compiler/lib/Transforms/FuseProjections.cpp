//===- FuseProjections.cpp - Q, K and V as one GEMM -----------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

namespace enc {
#define GEN_PASS_DEF_ENCFUSEPROJECTIONS
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// The plain projection feeding one attention operand: a linear with no
/// epilogue whose only use is that attention.
LinearOp plainProjection(Value V, AttentionOp Attn) {
  auto L = V.getDefiningOp<LinearOp>();
  if (!L || L.getResidual() || L.getNorm() ||
      L.getActivation() != ActivationKind::none || !L->hasOneUse() ||
      *L->user_begin() != Attn.getOperation())
    return nullptr;
  return L;
}

struct FuseProjectionsPass
    : enc::impl::EncFuseProjectionsBase<FuseProjectionsPass> {
  void runOnOperation() override {
    getOperation().walk([](AttentionOp Attn) {
      LinearOp Q = plainProjection(Attn.getQ(), Attn);
      LinearOp K = plainProjection(Attn.getK(), Attn);
      LinearOp V = plainProjection(Attn.getV(), Attn);
      if (!Q || !K || !V || Q == K || K == V || Q == V)
        return;
      Value X = Q.getInput();
      if (K.getInput() != X || V.getInput() != X)
        return;
      bool Biased = Q.getBias() && K.getBias() && V.getBias();
      if (!Biased && (Q.getBias() || K.getBias() || V.getBias()))
        return; // mixed: leave them be

      // Build the fused op after the last of the three, where every operand
      // is defined.
      Operation *Last = Q;
      for (Operation *Op : {K.getOperation(), V.getOperation()})
        if (Last->isBeforeInBlock(Op))
          Last = Op;
      OpBuilder B(Last->getNextNode());
      Location L = B.getFusedLoc({Q.getLoc(), K.getLoc(), V.getLoc()});
      auto stack = [&](ValueRange Parts) -> Value {
        auto First = cast<RankedTensorType>(Parts[0].getType());
        SmallVector<int64_t> Shape(First.getShape());
        Shape[0] = 0;
        for (Value P : Parts)
          Shape[0] += cast<RankedTensorType>(P.getType()).getShape()[0];
        auto Ty = RankedTensorType::get(Shape, First.getElementType());
        return B.create<ConcatWeightsOp>(L, Ty, Parts);
      };
      Value W = stack({Q.getWeight(), K.getWeight(), V.getWeight()});
      Value Bias =
          Biased ? stack({Q.getBias(), K.getBias(), V.getBias()}) : Value();
      auto QTy = cast<RankedTensorType>(Q.getType());
      int64_t D = QTy.getShape()[2];
      auto FusedTy = RankedTensorType::get(
          {QTy.getShape()[0], QTy.getShape()[1], 3 * D}, QTy.getElementType());
      Value QKV = B.create<LinearOp>(L, FusedTy, X, W, Bias, Value(), Value(),
                                     Value(), Q.getActivationAttr(),
                                     NormKindAttr(), FloatAttr());
      LinearOp Projections[3] = {Q, K, V};
      for (int64_t I = 0; I < 3; ++I) {
        LinearOp Proj = Projections[I];
        Value Slice = B.create<SliceColumnsOp>(Proj.getLoc(), QTy, QKV,
                                               B.getI64IntegerAttr(I * D));
        Proj.getResult().replaceAllUsesWith(Slice);
      }
      Q.erase();
      K.erase();
      V.erase();
    });
  }
};
} // namespace
