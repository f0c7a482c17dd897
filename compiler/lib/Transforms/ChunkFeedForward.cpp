//===- ChunkFeedForward.cpp - Feed-forward sub-layers a chunk at a time ---===//
//
// A feed-forward layer's hidden projection (enc.linear or enc.gated_linear)
// read only by the output projection that adds to the same rows becomes one
// enc.ffn_block: the hidden activations of all rows then never take arena
// memory (docs/c-abi.md#memory).
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

namespace enc {
#define GEN_PASS_DEF_ENCCHUNKFFN
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// Replaces `Out` (x + h W2^T + b2) and `Hidden` (h of x) by one ffn_block.
template <typename HiddenOp>
void fold(LinearOp Out, HiddenOp Hidden, Value Bias, bool Gated) {
  OpBuilder B(Out);
  Location L = B.getFusedLoc({Hidden.getLoc(), Out.getLoc()});
  Value Y = B.create<FfnBlockOp>(
      L, Out.getType(), Hidden.getInput(), Hidden.getWeight(), Out.getWeight(),
      Bias, Out.getBias(), Hidden.getNormGamma(), Hidden.getNormBeta(),
      Hidden.getActivationAttr(), Gated ? B.getUnitAttr() : UnitAttr(),
      Hidden.getNormAttr(), Hidden.getNormEpsAttr());
  Out.getResult().replaceAllUsesWith(Y);
  Out.erase();
  Hidden.erase();
}

void chunk(LinearOp Out) {
  Value X = Out.getResidual();
  if (!X || Out.getNorm() || Out.getActivation() != ActivationKind::none)
    return;
  Operation *Def = Out.getInput().getDefiningOp();
  if (!Def || !Def->hasOneUse())
    return;
  if (auto H = dyn_cast<LinearOp>(Def)) {
    if (H.getInput() == X && !H.getResidual())
      fold(Out, H, H.getBias(), /*Gated=*/false);
    return;
  }
  if (auto G = dyn_cast<GatedLinearOp>(Def))
    if (G.getInput() == X)
      fold(Out, G, G.getBias(), /*Gated=*/true);
}

struct ChunkFeedForwardPass : enc::impl::EncChunkFfnBase<ChunkFeedForwardPass> {
  void runOnOperation() override {
    for (LinearOp L : collectOps<LinearOp>(getOperation()))
      chunk(L);
  }
};
} // namespace
