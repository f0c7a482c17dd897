//===- EncDialect.td - The enc dialect ---------------------*- tablegen -*-===//
//
// The encoder graph at tensor level. Activations are [batch, seq, width]
// tensors whose batch and sequence dimensions are dynamic; everything else is
// static and decided at compile time.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_DIALECT
#define ENC_DIALECT

include "mlir/IR/OpBase.td"
include "enc/Dialect/EncLowering.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "enc/Dialect/EncChoices.td"

def Enc_Dialect : Dialect {
  let name = "enc";
  let summary = "The graph of a Transformer encoder";
  let description = [{
    Ops for the blocks of a Transformer encoder (embedding, positional data,
    linear layers, multi-head attention with its positional variant, norms,
    residual adds, activations, pooling) on tensors whose batch and sequence
    dimensions are dynamic. Weights are named references (`enc.weight`) that
    the compiled model resolves at load time; positional tables are folded to
    constants at compile time.
  }];
  let cppNamespace = "::enc";
  let useDefaultAttributePrinterParser = 1;

  // The contract between the import, the passes, the header emitter and the
  // lowering, as discardable attributes. EncDialect.cpp verifies them;
  // EncDialect.h reads and writes them with types.
  let discardableAttrs = (ins
    // On an encoder function (its presence makes the function one): the
    // compile-time facts of docs/c-abi.md's header macros.
    "::mlir::IntegerAttr":$d_model,
    "::mlir::IntegerAttr":$max_len,
    "::mlir::IntegerAttr":$vocab,
    "::mlir::IntegerAttr":$type_vocab,
    "::mlir::IntegerAttr":$heads,
    "::mlir::IntegerAttr":$blocks,
    "::mlir::IntegerAttr":$d_ff,
    // On an encoder function: the layout of its weights file's tensor
    // names (families.def), through which the loader finds each
    // enc.weight's canonical name; absent: enc.
    "::mlir::StringAttr":$checkpoint,
    // On an encoder function: the precision of its linear layers' weights
    // (a WeightPrecision spelling); absent: fp32.
    "::mlir::StringAttr":$precision,
    // On a planned encoder function: floats per row of the activation arena.
    "::mlir::IntegerAttr":$arena_row_floats,
    // On an op (or a function argument) given a buffer in the arena: its
    // offset in floats per row.
    "::mlir::IntegerAttr":$row_offset,
    // On an op whose result the planner put in place of one of its operands
    // (InPlaceWritable, EncLowering.td): that operand's number. The result
    // is then that operand's view: its pointer and row stride.
    "::mlir::IntegerAttr":$in_place_of,
    // On an op (or a function argument) whose result the planner put in the
    // caller's `out` instead of the arena: the buffer the encoder's output
    // is unpacked from in place (enc.pool none). Its view is `out` with its
    // own width.
    "::mlir::UnitAttr":$in_output,
    // On a function argument: the enc_input field it reads.
    "::mlir::StringAttr":$input
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

// Every op says how it lowers (EncLowering.td); Enc_HasLowering checks it.
class Enc_Op<string mnemonic, list<Trait> traits = []> :
    Op<Enc_Dialect, mnemonic, !listconcat(traits, [Enc_HasLowering])>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The language's choices (Settings.def, through EncChoices.td), numbered
// in the table's order from First: a value added to the language is a case
// here, and the lowering's exhaustive switch to the runtime's C enum
// (enc/ABI/RuntimeEnums.h) fails to compile until its table
// (enc/ABI/RuntimeEnums.def) maps it.
class Enc_ChoiceCases<list<string> Spellings, int First> {
  list<I32EnumAttrCase> Cases =
      !foreach(i, !range(!size(Spellings)),
               I32EnumAttrCase<Spellings[i], !add(i, First)>);
}

def Enc_ActivationKind : I32EnumAttr<"ActivationKind", "activation function",
    !listconcat([I32EnumAttrCase<"none", 0>],
                Enc_ChoiceCases<Enc_Activation_Spellings, 1>.Cases)> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_ActivationAttr : EnumAttr<Enc_Dialect, Enc_ActivationKind, "activation">;

def Enc_NormKind : I32EnumAttr<"NormKind", "normalisation",
    Enc_ChoiceCases<Enc_NormType_Spellings, 0>.Cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_NormKindAttr : EnumAttr<Enc_Dialect, Enc_NormKind, "norm_kind">;

def Enc_PoolMode : I32EnumAttr<"PoolMode", "pooling mode",
    Enc_ChoiceCases<Enc_Pooling_Spellings, 0>.Cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_PoolModeAttr : EnumAttr<Enc_Dialect, Enc_PoolMode, "pool_mode">;

def Enc_ScoresKind : I32EnumAttr<"ScoresKind", "a head's scores",
    Enc_ChoiceCases<Enc_Scores_Spellings, 0>.Cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_ScoresAttr : EnumAttr<Enc_Dialect, Enc_ScoresKind, "scores">;

// The `precision` setting: how the linear layers' weights are stored and
// multiplied (enc_precision of the runtime, through enc_weight_desc).
def Enc_WeightPrecision : I32EnumAttr<"WeightPrecision",
    "precision of the linear layers' weights",
    Enc_ChoiceCases<Enc_Precision_Spellings, 0>.Cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}

def Enc_Pos_None : I32EnumAttrCase<"none", 0>;
def Enc_Pos_Rope : I32EnumAttrCase<"rope", 1>;
def Enc_Pos_Alibi : I32EnumAttrCase<"alibi", 2>;
def Enc_Pos_Relative : I32EnumAttrCase<"relative", 3>;
def Enc_AttnPositional : I32EnumAttr<"AttnPositional",
    "positional scheme applied inside attention",
    [Enc_Pos_None, Enc_Pos_Rope, Enc_Pos_Alibi, Enc_Pos_Relative]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_AttnPositionalAttr : EnumAttr<Enc_Dialect, Enc_AttnPositional,
                                      "attn_positional">;

def Enc_RopeStyle : I32EnumAttr<"RopePairing", "pairing of rotary dimensions",
    Enc_ChoiceCases<Enc_RopeStyle_Spellings, 0>.Cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_RopeStyleAttr : EnumAttr<Enc_Dialect, Enc_RopeStyle, "rope_style">;

def Enc_Table_Sinusoidal : I32EnumAttrCase<"sinusoidal", 0>;
def Enc_Table_RopeCos : I32EnumAttrCase<"rope_cos", 1>;
def Enc_Table_RopeSin : I32EnumAttrCase<"rope_sin", 2>;
def Enc_Table_AlibiSlopes : I32EnumAttrCase<"alibi_slopes", 3>;
def Enc_Table_RelativeBuckets : I32EnumAttrCase<"relative_buckets", 4>;
def Enc_TableKind : I32EnumAttr<"TableKind", "compile-time positional table",
    [Enc_Table_Sinusoidal, Enc_Table_RopeCos, Enc_Table_RopeSin,
     Enc_Table_AlibiSlopes, Enc_Table_RelativeBuckets]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_TableKindAttr : EnumAttr<Enc_Dialect, Enc_TableKind, "table">;

#endif // ENC_DIALECT
