//===- FoldPositional.cpp - Positional tables become constants ------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"
#include "enc/Transforms/PositionalTables.h"

#include "mlir/IR/BuiltinAttributes.h"

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
      int64_t Rows = Ty.getShape()[0];
      DenseElementsAttr Value;
      switch (Op.getKind()) {
      case TableKind::sinusoidal:
        Value = DenseElementsAttr::get(
            Ty, ArrayRef<float>(sinusoidalTable(Rows, Op.getDim())));
        break;
      case TableKind::rope_cos:
      case TableKind::rope_sin:
        Value = DenseElementsAttr::get(
            Ty, ArrayRef<float>(ropeTable(
                    Rows, Op.getDim(), Op.getBase()->convertToDouble(),
                    Op.getKind() == TableKind::rope_sin)));
        break;
      case TableKind::alibi_slopes:
        Value = DenseElementsAttr::get(
            Ty, ArrayRef<float>(alibiSlopes(Op.getDim())));
        break;
      case TableKind::relative_buckets:
        Value = DenseElementsAttr::get(
            Ty, ArrayRef<int32_t>(t5BucketTable((Rows + 1) / 2, Op.getDim(),
                                                *Op.getMaxDistance())));
        break;
      }
      OpBuilder B(Op);
      auto Constant = B.create<arith::ConstantOp>(Op.getLoc(), Ty, Value);
      Op.getResult().replaceAllUsesWith(Constant.getResult());
      Op.erase();
    });
  }
};
} // namespace
