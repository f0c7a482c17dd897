//===- FoldPositional.cpp - Positional tables become constants ------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"
#include "enc/Transforms/PositionalTables.h"

#include "enc/kernels/embed.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace enc {
#define GEN_PASS_DEF_ENCFOLDPOSITIONAL
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// Whether a sinusoidal table longer than ENC_SINUSOID_OBJECT_ROWS feeds only
/// enc.add_positions from row 0: then the object keeps its first rows and
/// the runtime computes the rest (enc_embed_floats_sinusoidal), so that a
/// max_len of 8,192 does not put 24 MiB of constants in the object.
bool keepsHeadOnly(PositionalTableOp Op) {
  if (Op.getKind() != TableKind::sinusoidal ||
      Op.getType().getShape()[0] <= ENC_SINUSOID_OBJECT_ROWS)
    return false;
  return llvm::all_of(Op->getUsers(), [](Operation *User) {
    auto Add = dyn_cast<AddPositionsOp>(User);
    return Add && Add.getPositionOffset() == 0;
  });
}

struct FoldPositionalPass
    : enc::impl::EncFoldPositionalBase<FoldPositionalPass> {
  void runOnOperation() override {
    getOperation().walk([](PositionalTableOp Op) {
      auto Ty = cast<RankedTensorType>(Op.getResult().getType());
      if (keepsHeadOnly(Op)) {
        Ty = RankedTensorType::get({ENC_SINUSOID_OBJECT_ROWS, Ty.getShape()[1]},
                                   Ty.getElementType());
        for (Operation *User : Op->getUsers())
          cast<AddPositionsOp>(User).setSinusoidalTail(true);
      }
      DenseElementsAttr Value = positionalTableValue(Op, Ty);
      OpBuilder B(Op);
      auto Constant = B.create<arith::ConstantOp>(Op.getLoc(), Ty, Value);
      Op.getResult().replaceAllUsesWith(Constant.getResult());
      Op.erase();
    });
  }
};
} // namespace
