//===- FoldPositional.cpp - Positional tables become constants ------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"
#include "enc/Transforms/PositionalTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace enc {
#define GEN_PASS_DEF_ENCFOLDPOSITIONAL
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
struct FoldPositionalPass
    : enc::impl::EncFoldPositionalBase<FoldPositionalPass> {
  void runOnOperation() override {
    getOperation().walk([](PositionalTableOp Op) {
      auto Ty = Op.getResult().getType();
      DenseElementsAttr Value = positionalTableValue(Op);
      OpBuilder B(Op);
      auto Constant = B.create<arith::ConstantOp>(Op.getLoc(), Ty, Value);
      Op.getResult().replaceAllUsesWith(Constant.getResult());
      Op.erase();
    });
  }
};
} // namespace
