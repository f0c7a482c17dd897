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

/// linear(norm(x)) -> linear(x) {norm}: the linear op reading Norm's input
/// with Norm as its prologue.
Value withNorm(PatternRewriter &Rewriter, Location Loc, LinearOp Op,
               NormOp Norm) {
  return Rewriter.create<LinearOp>(
      Loc, Op.getType(), Norm.getInput(), Op.getWeight(), Op.getBias(),
      Op.getResidual(), Norm.getGamma(), Norm.getBeta(), Op.getActivationAttr(),
      Norm.getKindAttr(), Norm.getEpsAttr());
}

/// gated_linear(norm(x)) -> gated_linear(x) {norm}, likewise.
Value withNorm(PatternRewriter &Rewriter, Location Loc, GatedLinearOp Op,
               NormOp Norm) {
  return Rewriter.create<GatedLinearOp>(
      Loc, Op.getType(), Norm.getInput(), Op.getWeight(), Op.getBias(),
      Norm.getGamma(), Norm.getBeta(), Op.getActivationAttr(),
      Norm.getKindAttr(), Norm.getEpsAttr());
}

/// Folds the norm an OpT reads (and nothing else does) into it.
template <typename OpT> struct NormInto : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT Op,
                                PatternRewriter &Rewriter) const override {
    NormOp Norm = foldableNorm(Op);
    if (!Norm)
      return failure();
    Location Loc = Rewriter.getFusedLoc({Norm.getLoc(), Op.getLoc()});
    Rewriter.replaceOp(Op, withNorm(Rewriter, Loc, Op, Norm));
    Rewriter.eraseOp(Norm);
    return success();
  }
};

struct FuseNormsPass : enc::impl::EncFuseNormsBase<FuseNormsPass> {
  void runOnOperation() override {
    RewritePatternSet Patterns(&getContext());
    Patterns.add<NormInto<LinearOp>, NormInto<GatedLinearOp>>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(Patterns))))
      signalPassFailure();
  }
};
} // namespace
