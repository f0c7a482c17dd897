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
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

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
}

class Enc_Op<string mnemonic, list<Trait> traits = []> :
    Op<Enc_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Enc_Act_None : I32EnumAttrCase<"none", 0>;
def Enc_Act_Relu : I32EnumAttrCase<"relu", 1>;
def Enc_Act_Gelu : I32EnumAttrCase<"gelu", 2>;
def Enc_Act_GeluTanh : I32EnumAttrCase<"gelu_tanh", 3>;
def Enc_ActivationKind : I32EnumAttr<"ActivationKind", "activation function",
    [Enc_Act_None, Enc_Act_Relu, Enc_Act_Gelu, Enc_Act_GeluTanh]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_ActivationAttr : EnumAttr<Enc_Dialect, Enc_ActivationKind, "activation">;

def Enc_Norm_Layer : I32EnumAttrCase<"layernorm", 0>;
def Enc_Norm_RMS : I32EnumAttrCase<"rmsnorm", 1>;
def Enc_NormKind : I32EnumAttr<"NormKind", "normalisation",
    [Enc_Norm_Layer, Enc_Norm_RMS]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_NormKindAttr : EnumAttr<Enc_Dialect, Enc_NormKind, "norm_kind">;

def Enc_Pool_None : I32EnumAttrCase<"none", 0>;
def Enc_Pool_Cls : I32EnumAttrCase<"cls", 1>;
def Enc_Pool_Mean : I32EnumAttrCase<"mean", 2>;
def Enc_PoolMode : I32EnumAttr<"PoolMode", "pooling mode",
    [Enc_Pool_None, Enc_Pool_Cls, Enc_Pool_Mean]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::enc";
}
def Enc_PoolModeAttr : EnumAttr<Enc_Dialect, Enc_PoolMode, "pool_mode">;

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

def Enc_Rope_Halves : I32EnumAttrCase<"halves", 1>;
def Enc_Rope_Interleaved : I32EnumAttrCase<"interleaved", 2>;
def Enc_RopeStyle : I32EnumAttr<"RopePairing", "pairing of rotary dimensions",
    [Enc_Rope_Halves, Enc_Rope_Interleaved]> {
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
