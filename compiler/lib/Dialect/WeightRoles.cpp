//===- WeightRoles.cpp - How each op holds its weight operands ------------===//
//
// ReadsWeights (EncLowering.td), once per op: which operand is a matrix the
// GEMM reads packed, which a vector, which a table. The slot table of the
// loaded model and the header's bytes per precision both follow from it;
// enc.weight and enc.concat_weights reject a user that does not implement it.
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"

using namespace mlir;
using namespace enc;

namespace {
/// Whether operand `Index` of `Op` is `V` (a null optional operand is not).
bool is(Operation *Op, unsigned Index, Value V) {
  return V && Op->getOperand(Index) == V;
}

/// An op whose weight is the matrix a GEMM reads and whose other weight
/// operands (biases, norms) are vectors.
template <typename OpT> WeightRole matrixAndVectors(OpT Op, unsigned Index) {
  return is(Op, Index, Op.getWeight()) ? WeightRole::Matrix
                                       : WeightRole::Vector;
}
} // namespace

LogicalResult enc::verifyWeightUsers(Operation *Weight) {
  for (OpOperand &Use : Weight->getUses()) {
    if (!isa<ReadsWeights>(Use.getOwner()))
      return Weight->emitOpError()
             << "is used by '" << Use.getOwner()->getName()
             << "', which does not say how it holds a weight (ReadsWeights)";
  }
  return success();
}

WeightRole ConcatWeightsOp::getWeightRole(unsigned) { return WeightRole::Part; }

WeightRole EmbedTokensOp::getWeightRole(unsigned) { return WeightRole::Table; }

WeightRole AddPositionsOp::getWeightRole(unsigned) { return WeightRole::Table; }

WeightRole AttentionOp::getWeightRole(unsigned) { return WeightRole::Table; }

WeightRole LinearOp::getWeightRole(unsigned Index) {
  return matrixAndVectors(*this, Index);
}

WeightRole GatedLinearOp::getWeightRole(unsigned Index) {
  return is(*this, Index, getWeight()) ? WeightRole::GatedMatrix
                                       : WeightRole::Vector;
}

WeightRole NormOp::getWeightRole(unsigned) { return WeightRole::Vector; }

WeightRole AttentionBlockOp::getWeightRole(unsigned Index) {
  if (is(*this, Index, getQWeight()) || is(*this, Index, getKvWeight()) ||
      is(*this, Index, getOutWeight()))
    return WeightRole::Matrix;
  if (is(*this, Index, getQBias()) || is(*this, Index, getKvBias()) ||
      is(*this, Index, getOutBias()) || is(*this, Index, getNormGamma()) ||
      is(*this, Index, getNormBeta()))
    return WeightRole::Vector;
  return WeightRole::Table; // the positional tables
}

WeightRole FfnBlockOp::getWeightRole(unsigned Index) {
  if (is(*this, Index, getHiddenWeight()))
    return getGated() ? WeightRole::GatedMatrix : WeightRole::Matrix;
  return is(*this, Index, getOutWeight()) ? WeightRole::Matrix
                                          : WeightRole::Vector;
}

WeightRole ClassifierOp::getWeightRole(unsigned Index) {
  return is(*this, Index, getWeight()) || is(*this, Index, getDenseWeight())
             ? WeightRole::Matrix
             : WeightRole::Vector;
}

WeightRole ColbertOp::getWeightRole(unsigned) { return WeightRole::Matrix; }

WeightRole DenseHeadOp::getWeightRole(unsigned Index) {
  return matrixAndVectors(*this, Index);
}

WeightRole MlmOp::getWeightRole(unsigned Index) {
  return matrixAndVectors(*this, Index);
}

WeightRole SpladeOp::getWeightRole(unsigned Index) {
  return matrixAndVectors(*this, Index);
}
