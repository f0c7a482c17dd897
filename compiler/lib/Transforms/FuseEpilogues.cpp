//===- FuseEpilogues.cpp - Epilogues into the op that produces them -------===//

#include "enc/Dialect/EncDialect.h"
#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace enc {
#define GEN_PASS_DEF_ENCFUSEEPILOGUES
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// activation(linear(x)) -> linear(x) {activation}
struct ActivationIntoLinear : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ActivationOp Act,
                                PatternRewriter &Rewriter) const override {
    auto L = Act.getInput().getDefiningOp<LinearOp>();
    if (!L || !L->hasOneUse() || L.getResidual() ||
        L.getActivation() != ActivationKind::none)
      return failure();
    Rewriter.modifyOpInPlace(L,
                             [&] { L.setActivationAttr(Act.getKindAttr()); });
    Rewriter.replaceOp(Act, L.getResult());
    return success();
  }
};

/// add(linear(x), r) -> linear(x) {residual = r}; the linear moves to the
/// add, where r is known to be defined.
struct ResidualIntoLinear : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp Add,
                                PatternRewriter &Rewriter) const override {
    for (auto [Mine, Other] : {std::pair(Add.getLhs(), Add.getRhs()),
                               std::pair(Add.getRhs(), Add.getLhs())}) {
      auto L = Mine.getDefiningOp<LinearOp>();
      if (!L || !L->hasOneUse() || L.getResidual() || Mine == Other)
        continue;
      Location Loc = Rewriter.getFusedLoc({L.getLoc(), Add.getLoc()});
      Value Fused = Rewriter.create<LinearOp>(
          Loc, L.getType(), L.getInput(), L.getWeight(), L.getBias(), Other,
          L.getNormGamma(), L.getNormBeta(), L.getActivationAttr(),
          L.getNormAttr(), L.getNormEpsAttr());
      Rewriter.replaceOp(Add, Fused);
      Rewriter.eraseOp(L);
      return success();
    }
    return failure();
  }
};

/// add_positions(embed_tokens(ids)) -> embed_tokens(ids) with the table,
/// added in the same gather.
struct PositionsIntoEmbedding : OpRewritePattern<AddPositionsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPositionsOp Add,
                                PatternRewriter &Rewriter) const override {
    auto E = Add.getInput().getDefiningOp<EmbedTokensOp>();
    // The gather reads every position from its table: not a sinusoidal one
    // whose rows past the object's the runtime computes.
    if (!E || !E->hasOneUse() || E.getPositions() || Add.getSinusoidalTail())
      return failure();
    Operation *Table = Add.getTable().getDefiningOp();
    if (Table && !Table->isBeforeInBlock(E))
      return failure(); // the table must dominate the embedding
    Rewriter.modifyOpInPlace(E, [&] {
      E.getPositionsMutable().assign(Add.getTable());
      E.setPositionOffset(Add.getPositionOffset());
    });
    Rewriter.replaceOp(Add, E.getResult());
    return success();
  }
};

/// Whether mul(Gate, Up) may become one enc.gated_linear: both projections
/// read the same input, feed only this product, carry no residual, and their
/// weights (and biases, both or neither) are enc.weight ops, which the loader
/// packs together as one gated slot. The up projection has no activation.
/// The encoder's precision is fp32: the gated kernel packs and multiplies
/// fp32 weights only, so an int8 or bf16 encoder keeps its two projections
/// (each in its precision) and the product. Every condition on a
/// projection's form belongs here.
bool canFuseGated(LinearOp Gate, LinearOp Up, MulOp Mul) {
  auto Func = Mul->getParentOfType<func::FuncOp>();
  if (!Func || getPrecision(Func) != WeightPrecision::fp32)
    return false;
  auto Plain = [&](LinearOp L) {
    return L && L->hasOneUse() && *L->user_begin() == Mul.getOperation() &&
           !L.getResidual() && !L.getNorm() &&
           L.getWeight().getDefiningOp<WeightOp>();
  };
  if (!Plain(Gate) || !Plain(Up) || Gate == Up ||
      Gate.getInput() != Up.getInput() ||
      Up.getActivation() != ActivationKind::none ||
      Gate.getWeight().getType() != Up.getWeight().getType())
    return false;
  if (!Gate.getBias() && !Up.getBias())
    return true;
  return Gate.getBias() && Up.getBias() &&
         Gate.getBias().getDefiningOp<WeightOp>() &&
         Up.getBias().getDefiningOp<WeightOp>();
}

/// mul(linear {act}(x, Wg, bg), linear(x, Wu, bu))
///   -> gated_linear {act}(x, [Wg; Wu], [bg; bu])
/// The gate is the operand with the activation (the left one when neither
/// has one); the weights and biases are stacked at load (enc.concat_weights),
/// and the kernel computes both projections and the product in one pass.
struct GatedIntoOneGemm : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp Mul,
                                PatternRewriter &Rewriter) const override {
    auto Lhs = Mul.getLhs().getDefiningOp<LinearOp>();
    auto Rhs = Mul.getRhs().getDefiningOp<LinearOp>();
    if (!Lhs || !Rhs)
      return failure();
    bool RhsIsGate = Lhs.getActivation() == ActivationKind::none &&
                     Rhs.getActivation() != ActivationKind::none;
    LinearOp Gate = RhsIsGate ? Rhs : Lhs, Up = RhsIsGate ? Lhs : Rhs;
    if (!canFuseGated(Gate, Up, Mul))
      return failure();
    Location Loc =
        Rewriter.getFusedLoc({Gate.getLoc(), Up.getLoc(), Mul.getLoc()});
    auto Stack = [&](Value G, Value U) -> Value {
      auto Ty = cast<RankedTensorType>(G.getType());
      SmallVector<int64_t> Shape(Ty.getShape());
      Shape[0] *= 2;
      return Rewriter.create<ConcatWeightsOp>(
          Loc, RankedTensorType::get(Shape, Ty.getElementType()),
          ValueRange{G, U});
    };
    Value W = Stack(Gate.getWeight(), Up.getWeight());
    Value Bias = Gate.getBias() ? Stack(Gate.getBias(), Up.getBias()) : Value();
    Value Fused = Rewriter.create<GatedLinearOp>(
        Loc, Mul.getType(), Gate.getInput(), W, Bias, Value(), Value(),
        Gate.getActivationAttr(), NormKindAttr(), FloatAttr());
    Rewriter.replaceOp(Mul, Fused);
    Rewriter.eraseOp(Gate);
    Rewriter.eraseOp(Up);
    return success();
  }
};

struct FuseEpiloguesPass : enc::impl::EncFuseEpiloguesBase<FuseEpiloguesPass> {
  void runOnOperation() override {
    RewritePatternSet Patterns(&getContext());
    Patterns.add<ActivationIntoLinear, ResidualIntoLinear,
                 PositionsIntoEmbedding, GatedIntoOneGemm>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(Patterns))))
      signalPassFailure();
  }
};
} // namespace
