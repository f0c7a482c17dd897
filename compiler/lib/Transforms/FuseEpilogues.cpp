//===- FuseEpilogues.cpp - Epilogues into the op that produces them -------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

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
    Rewriter.modifyOpInPlace(L, [&] { L.setActivationAttr(Act.getKindAttr()); });
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
          L.getActivationAttr());
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
    if (!E || !E->hasOneUse() || E.getPositions())
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

struct FuseEpiloguesPass : enc::impl::EncFuseEpiloguesBase<FuseEpiloguesPass> {
  void runOnOperation() override {
    RewritePatternSet Patterns(&getContext());
    Patterns.add<ActivationIntoLinear, ResidualIntoLinear,
                 PositionsIntoEmbedding>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(Patterns))))
      signalPassFailure();
  }
};
} // namespace
