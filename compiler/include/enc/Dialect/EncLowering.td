//===- EncLowering.td - How each enc op reaches runtime calls -*- tablegen -*-===//
//
// Every enc op says how enc-lower-to-runtime treats it, by one of:
//
//   Enc_WritesArena        a kernel call writing a fresh activation: the
//                          op gets a buffer of the arena (enc-plan-buffers)
//                          and lowers through RuntimeLowerable
//   Enc_ViewsArena         a view of another op's buffer or the output
//                          (slice_columns, pool), through RuntimeLowerable
//   Enc_LoweredInPrologue  a weight or constant: a view made before the first
//                          op (ForwardPrologue.cpp)
//   Enc_FoldedBeforeLowering  must be gone (enc-fold-positional) by then
//
// An op with none of them fails to compile (Enc_HasLowering's static_assert),
// and one that claims RuntimeLowerable without defining lowerToRuntime does
// not link: a new op cannot be skipped silently.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LOWERING_TD
#define ENC_LOWERING_TD

include "mlir/IR/OpBase.td"

def Enc_RuntimeLowerable : OpInterface<"RuntimeLowerable"> {
  let description = [{
    An op that enc-lower-to-runtime turns into code of NAME_forward: its
    kernel call on views of the arena, the slots and the tables
    (compiler/lib/Conversion/OpLowerings.cpp, one definition per op).
  }];
  let cppNamespace = "::enc";
  let methods = [
    InterfaceMethod<"Emits this op's part of NAME_forward.",
      "::mlir::LogicalResult", "lowerToRuntime",
      (ins "::enc::EncoderLowering &":$lowering)>,
  ];
}

def Enc_InPlaceWritable : OpInterface<"InPlaceWritable"> {
  let description = [{
    An op whose runtime kernel may write its result over one of its operands
    (the same pointer and row stride): enc-plan-buffers then gives the
    result that operand's memory, recorded as `enc.in_place_of`, when
    nothing after the op reads it. This is the kernels' contract
    (enc/kernels/*.h), stated once per op in EncOps.cpp.
  }];
  let cppNamespace = "::enc";
  let methods = [
    InterfaceMethod<"The operand the result may replace, or null when this "
      "op, as configured, must write fresh memory.",
      "::mlir::OpOperand *", "getReplaceableOperand">,
    InterfaceMethod<"Whether other operands may then be other columns of the "
      "replaced operand's buffer (the kernel reads them before it writes).",
      "bool", "allowsColumnSiblings">,
  ];
}

def Enc_ReadsWeights : OpInterface<"ReadsWeights"> {
  let description = [{
    An op with weight operands (results of enc.weight or enc.concat_weights):
    how the compiled model holds each of them once loaded, as a WeightRole
    (EncLowering.h): a packed matrix, a packed gated matrix, a vector, a
    table, or a part of a concatenation (which is the slot). Stated once per
    op in EncOps.cpp; the slot table (WeightSlots.cpp) and the header's byte
    counts per precision (HeaderEmitter.cpp) both read it, and enc.weight's
    verifier rejects a user that does not say.
  }];
  let cppNamespace = "::enc";
  let methods = [
    InterfaceMethod<"How operand `index`, a weight, is held.",
      "::enc::WeightRole", "getWeightRole", (ins "unsigned":$index)>,
  ];
}

// On an op with weight operands; its getWeightRole in WeightRoles.cpp.
defvar Enc_TakesWeights = DeclareOpInterfaceMethods<Enc_ReadsWeights>;

class Enc_LoweringTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::enc::OpTrait";
}
def Enc_WritesArenaTrait : Enc_LoweringTrait<"WritesArena">;
def Enc_ViewsArenaTrait : Enc_LoweringTrait<"ViewsArena">;
def Enc_LoweredInPrologue : Enc_LoweringTrait<"LoweredInPrologue">;
def Enc_FoldedBeforeLowering : Enc_LoweringTrait<"FoldedBeforeLowering">;
def Enc_HasLowering : Enc_LoweringTrait<"HasLowering">;

defvar Enc_WritesArena = [Enc_WritesArenaTrait,
                          DeclareOpInterfaceMethods<Enc_RuntimeLowerable>];
defvar Enc_ViewsArena = [Enc_ViewsArenaTrait,
                         DeclareOpInterfaceMethods<Enc_RuntimeLowerable>];

#endif // ENC_LOWERING_TD
