//===- PositionalTables.h - Compile-time positional data --------*- C++ -*-===//
//
// The tables docs/numerics.md#positions defines by formula, computed in double
// precision and rounded once to float (the T5 bucket map follows the
// reference's own float32 arithmetic, so that boundary positions land in the
// same bucket).
//
//===----------------------------------------------------------------------===//
#ifndef ENC_TRANSFORMS_POSITIONALTABLES_H
#define ENC_TRANSFORMS_POSITIONALTABLES_H

#include "enc/Dialect/EncOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cstdint>
#include <vector>

namespace enc {

/// The table an enc.positional_table stands for, as a constant of its
/// result type (or `Ty`): the one switch over TableKind that folding needs, so
/// a new kind of table is its formula below and its case there. The table as
/// `Ty` (the op's type, or for the sinusoidal table fewer rows: its first
/// rows).
mlir::DenseElementsAttr positionalTableValue(PositionalTableOp Op,
                                             mlir::RankedTensorType Ty);

/// [rows, dModel]: sin(p / 10000^(2 floor(i/2) / dModel)) at even i, cos at
/// odd i (interleaved, as in the seed article).
std::vector<float> sinusoidalTable(int64_t Rows, int64_t DModel);

/// [rows, dK/2]: cos (or sin) of p * base^(-2k/dK).
std::vector<float> ropeTable(int64_t Rows, int64_t DK, double Base, bool Sin);

/// Press et al.'s get_slopes(heads), with its rule for a head count that is
/// not a power of two.
std::vector<float> alibiSlopes(int64_t Heads);

/// T5's bidirectional _relative_position_bucket(relative_position).
int32_t t5Bucket(int64_t RelativePosition, int64_t Buckets,
                 int64_t MaxDistance);

/// [2 rows - 1]: the bucket of every relative position j - i in
/// (-rows, rows), indexed by (j - i) + rows - 1.
std::vector<int32_t> t5BucketTable(int64_t Rows, int64_t Buckets,
                                   int64_t MaxDistance);

} // namespace enc

#endif // ENC_TRANSFORMS_POSITIONALTABLES_H
