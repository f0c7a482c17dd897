//===- FuseNorms.cpp - A pre-norm into the projection that reads it -------===//
//
// A pre-norm block computes norm(x) for one projection (the fused QKV, or the
// feed-forward layer's first): the normed rows are read once, right there.
// Folded into that op as its `norm` prologue, they are normed and multiplied
// a chunk of rows at a time by the runtime (enc/kernels/norm_gemm.h) and
// never take arena memory: at long lengths that is d_model floats per token
// off the forward's peak (docs/c-abi.md#memory).
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace enc {
#define GEN_PASS_DEF_ENCFUSENORMS
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// The norm that `Op`'s input is, when `Op` is its only user and has no
/// prologue yet; else null.
template <typename OpT> NormOp foldableNorm(OpT Op) {
  auto Norm = Op.getInput().template getDefiningOp<NormOp>();
  if (!Norm || Op.getNorm() || !Norm->hasOneUse())
    return NormOp();
  return Norm;
}

/// linear(norm(x)) -> linear(x) {norm}, the norm read by nothing else.
struct NormIntoLinear : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp Op,
                                PatternRewriter &Rewriter) const override {
    NormOp Norm = foldableNorm(Op);
    if (!Norm)
      return failure();
    Value Fused = Rewriter.create<LinearOp>(
        Rewriter.getFusedLoc({Norm.getLoc(), Op.getLoc()}), Op.getType(),
        Norm.getInput(), Op.getWeight(), Op.getBias(), Op.getResidual(),
        Norm.getGamma(), Norm.getBeta(), Op.getActivationAttr(),
        Norm.getKindAttr(), Norm.getEpsAttr());
    Rewriter.replaceOp(Op, Fused);
    Rewriter.eraseOp(Norm);
    return success();
  }
};

/// gated_linear(norm(x)) -> gated_linear(x) {norm}, likewise.
struct NormIntoGatedLinear : OpRewritePattern<GatedLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatedLinearOp Op,
                                PatternRewriter &Rewriter) const override {
    NormOp Norm = foldableNorm(Op);
    if (!Norm)
      return failure();
    Value Fused = Rewriter.create<GatedLinearOp>(
        Rewriter.getFusedLoc({Norm.getLoc(), Op.getLoc()}), Op.getType(),
        Norm.getInput(), Op.getWeight(), Op.getBias(), Norm.getGamma(),
        Norm.getBeta(), Op.getActivationAttr(), Norm.getKindAttr(),
        Norm.getEpsAttr());
    Rewriter.replaceOp(Op, Fused);
    Rewriter.eraseOp(Norm);
    return success();
  }
};

struct FuseNormsPass : enc::impl::EncFuseNormsBase<FuseNormsPass> {
  void runOnOperation() override {
    RewritePatternSet Patterns(&getContext());
    Patterns.add<NormIntoLinear, NormIntoGatedLinear>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(Patterns))))
      signalPassFailure();
  }
};
} // namespace
