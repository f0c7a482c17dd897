//===- EncLowering.h - How each enc op reaches runtime calls ----*- C++ -*-===//
//
// The traits of EncLowering.td; RuntimeLowerable is generated from it.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_DIALECT_ENCLOWERING_H
#define ENC_DIALECT_ENCLOWERING_H

#include "mlir/IR/OpDefinition.h"

#include <type_traits>

namespace enc {
struct EncoderLowering;

/// How a weight operand is held once the model is loaded (ReadsWeights).
enum class WeightRole {
  Matrix,      ///< a linear layer's [out, in] weights, packed for the GEMM
  GatedMatrix, ///< a gate and an up projection packed together
  Vector,      ///< a bias or a norm's gain or shift, converted
  Table,       ///< rows gathered or read whole (embeddings, positions, biases)
  Part,        ///< a part of enc.concat_weights: the concatenation is held
};
} // namespace enc

#include "enc/Dialect/EncLowering.h.inc"

namespace enc {
namespace OpTrait {
template <typename ConcreteType>
class WritesArena : public mlir::OpTrait::TraitBase<ConcreteType, WritesArena> {
};
template <typename ConcreteType>
class ViewsArena : public mlir::OpTrait::TraitBase<ConcreteType, ViewsArena> {};
template <typename ConcreteType>
class LoweredInPrologue
    : public mlir::OpTrait::TraitBase<ConcreteType, LoweredInPrologue> {};
template <typename ConcreteType>
class FoldedBeforeLowering
    : public mlir::OpTrait::TraitBase<ConcreteType, FoldedBeforeLowering> {};

/// On every enc op (Enc_Op): it must say how it lowers, exactly once.
template <typename ConcreteType>
class HasLowering : public mlir::OpTrait::TraitBase<ConcreteType, HasLowering> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *) {
    constexpr int Kinds =
        ConcreteType::template hasTrait<WritesArena>() +
        ConcreteType::template hasTrait<ViewsArena>() +
        ConcreteType::template hasTrait<LoweredInPrologue>() +
        ConcreteType::template hasTrait<FoldedBeforeLowering>();
    static_assert(Kinds == 1, "an enc op needs exactly one of Enc_WritesArena, "
                              "Enc_ViewsArena, Enc_LoweredInPrologue and "
                              "Enc_FoldedBeforeLowering (EncLowering.td)");
    constexpr bool Lowerable =
        std::is_base_of_v<RuntimeLowerable::Trait<ConcreteType>, ConcreteType>;
    constexpr bool NeedsLowering =
        ConcreteType::template hasTrait<WritesArena>() ||
        ConcreteType::template hasTrait<ViewsArena>();
    static_assert(Lowerable == NeedsLowering,
                  "an op that writes or views the arena lowers through "
                  "RuntimeLowerable, and only those do");
    return mlir::success();
  }
};
} // namespace OpTrait
} // namespace enc

#endif // ENC_DIALECT_ENCLOWERING_H
