//===- EncOps.td - Operations of the enc dialect -----------*- tablegen -*-===//
#ifndef ENC_OPS
#define ENC_OPS

include "enc/Dialect/EncDialect.td"
include "enc/Dialect/EncLowering.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// [batch, seq, width] activations and the like.
def Enc_F32Tensor : RankedTensorOf<[F32]>;
def Enc_I32Tensor : RankedTensorOf<[I32]>;

def Enc_WeightOp : Enc_Op<"weight", [Enc_LoweredInPrologue, Pure]> {
  let summary = "a tensor of the weights file, resolved when the model loads";
  let description = [{
    Names a tensor of the safetensors file by its canonical name
    (docs/weights.md). With a checkpoint layout on the function, the loader
    finds it in the file through the layout's table (a tensor, or a row
    slice of a fused tensor). The compiled model loads, converts and packs
    it once, in `NAME_load`. With
    `allow_extra_rows` the file's tensor may have more rows than the result,
    which holds its first ones (a learned position table longer than
    max_len).

    Example:
    ```mlir
    %wq = enc.weight "blocks.0.attn.q.weight" : tensor<768x768xf32>
    %pe = enc.weight "embed.positions" {allow_extra_rows} : tensor<512x768xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$allow_extra_rows);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Enc_ConcatWeightsOp : Enc_Op<"concat_weights", [Enc_LoweredInPrologue, Pure,
    Enc_TakesWeights]> {
  let summary = "weights stacked along their first dimension, at load time";
  let description = [{
    The row-concatenation of weights, made once when the model loads; the
    projection fusion uses it to turn the Q, K and V projections into one
    GEMM over one packed matrix.

    Example:
    ```mlir
    %wqkv = enc.concat_weights %wq, %wk, %wv
        : tensor<768x768xf32>, tensor<768x768xf32>, tensor<768x768xf32>
        -> tensor<2304x768xf32>
    ```
  }];
  let arguments = (ins Variadic<Enc_F32Tensor>:$parts);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$parts attr-dict `:` type($parts) `->` type($result)";
  let hasVerifier = 1;
}

def Enc_PositionalTableOp : Enc_Op<"positional_table", [Enc_FoldedBeforeLowering, Pure]> {
  let summary = "a positional table computed at compile time";
  let description = [{
    A table that depends only on compile-time settings: the sinusoidal table
    [max_len, d_model], RoPE's cos and sin tables [max_len, d_k/2], ALiBi's
    slopes [heads] or T5's bucket of every relative position
    [2 max_len - 1]. `enc-fold-positional` replaces it with a constant baked
    into the object.

    Example:
    ```mlir
    %pe = enc.positional_table sinusoidal {dim = 512 : i64} : tensor<128x512xf32>
    %cos = enc.positional_table rope_cos {dim = 64 : i64, base = 1.0e+04 : f64}
        : tensor<128x32xf32>
    ```
    `dim` is d_model for the sinusoidal table, d_k for RoPE, the number of
    heads for ALiBi and the number of buckets for T5 (with `max_distance`).
  }];
  let arguments = (ins Enc_TableKindAttr:$kind, I64Attr:$dim,
                       OptionalAttr<F64Attr>:$base,
                       OptionalAttr<I64Attr>:$max_distance);
  let results = (outs RankedTensorOf<[F32, I32]>:$result);
  let assemblyFormat = "custom<TableKind>($kind) attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Enc_EmbedTokensOp : Enc_Op<"embed_tokens",
    !listconcat(Enc_WritesArena, [Enc_TakesWeights, Pure, AttrSizedOperandSegments])> {
  let summary = "token (and segment) embedding gather";
  let description = [{
    `x[b, i] = scale * table[ids[b, i]] + type_table[types[b, i]]
    + positions[i + position_offset]`, the second term only when a type
    table is given (types default to 0), the third when the positional table
    is fused in.

    Example:
    ```mlir
    %x = enc.embed_tokens %ids, %tok types(%types, %typ) {scale = 1.0 : f32}
        : (tensor<?x?xi32>, tensor<30522x768xf32>, tensor<?x?xi32>,
           tensor<2x768xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_I32Tensor:$ids, Enc_F32Tensor:$table,
                       Optional<Enc_I32Tensor>:$types,
                       Optional<Enc_F32Tensor>:$type_table,
                       Optional<Enc_F32Tensor>:$positions, F32Attr:$scale,
                       DefaultValuedAttr<I64Attr, "0">:$position_offset);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $ids `,` $table (`types` `(` $types^ `,` $type_table `)`)?
    (`positions` `(` $positions^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_AddPositionsOp : Enc_Op<"add_positions",
    !listconcat(Enc_WritesArena, [Enc_TakesWeights, Pure])> {
  let summary = "adds a row of a positional table to each position";
  let description = [{
    `y[b, i] = x[b, i] + table[i + position_offset]` for the sinusoidal or
    learned schemes; the table has at least max_len + position_offset rows.
    RoBERTa's learned positions start at row 2 (its padding index + 1).
    With `sinusoidal_tail` the table holds the first rows of the sinusoidal
    table only (enc-fold-positional keeps ENC_SINUSOID_OBJECT_ROWS of a
    longer one): the runtime computes the positions past it with the same
    formula (enc_embed_floats_sinusoidal).

    Example:
    ```mlir
    %y = enc.add_positions %x, %pe
        : (tensor<?x?x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    %z = enc.add_positions %x, %rpe {position_offset = 2 : i64}
        : (tensor<?x?x768xf32>, tensor<514x768xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_F32Tensor:$table,
                       DefaultValuedAttr<I64Attr, "0">:$position_offset,
                       UnitAttr:$sinusoidal_tail);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$input `,` $table attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Enc_LinearOp : Enc_Op<"linear",
    !listconcat(Enc_WritesArena, [Enc_TakesWeights, Pure, AttrSizedOperandSegments,
                DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "y = act(x W^T + bias) + residual";
  let description = [{
    A linear layer in PyTorch's layout (W is [out_features, in_features]),
    with an epilogue the fusion passes fill in: an activation applied to the
    biased product and a residual added after it. The runtime runs it as one
    GEMM over W packed once at load.

    With `norm` (and `norm_gamma`, `norm_beta`, `norm_eps`, as enc.norm's),
    x is normed first, row by row: `enc-fuse-norms` folds a pre-norm read by
    this op alone into it, and the runtime norms and multiplies chunks of
    rows, so the normed rows never take arena memory.

    Example:
    ```mlir
    %h = enc.linear %x, %w1 bias(%b1) {activation = #enc<activation gelu>}
        : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>)
        -> tensor<?x?x3072xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_F32Tensor:$weight,
                       Optional<Enc_F32Tensor>:$bias,
                       Optional<Enc_F32Tensor>:$residual,
                       Optional<Enc_F32Tensor>:$norm_gamma,
                       Optional<Enc_F32Tensor>:$norm_beta,
                       DefaultValuedAttr<Enc_ActivationAttr,
                                         "::enc::ActivationKind::none">:$activation,
                       OptionalAttr<Enc_NormKindAttr>:$norm,
                       OptionalAttr<F32Attr>:$norm_eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)? (`residual` `(` $residual^ `)`)?
    (`norm_gamma` `(` $norm_gamma^ `)`)? (`norm_beta` `(` $norm_beta^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_ActivationOp : Enc_Op<"activation",
    !listconcat(Enc_WritesArena, [Pure, SameOperandsAndResultType,
                DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "an elementwise activation";
  let description = [{
    Example:
    ```mlir
    %y = enc.activation relu %x : tensor<?x?x2048xf32>
    ```
  }];
  let arguments = (ins Enc_ActivationAttr:$kind, Enc_F32Tensor:$input);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "custom<ActivationKind>($kind) $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Enc_AddOp : Enc_Op<"add",
    !listconcat(Enc_WritesArena, [Pure, SameOperandsAndResultType, Commutative,
                DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "elementwise sum: the residual connection";
  let description = [{
    Example:
    ```mlir
    %h = enc.add %x, %attn : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$lhs, Enc_F32Tensor:$rhs);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Enc_MulOp : Enc_Op<"mul",
    !listconcat(Enc_WritesArena, [Pure, SameOperandsAndResultType, Commutative,
                DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "elementwise product: the gate of a gated feed-forward layer";
  let description = [{
    `y = lhs * rhs`. A gated FFN multiplies its activated gate projection by
    its up projection; `enc-fuse-epilogues` folds the pair of projections and
    this product into one `enc.gated_linear`.

    Example:
    ```mlir
    %h = enc.mul %gate, %up : tensor<?x?x1152xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$lhs, Enc_F32Tensor:$rhs);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Enc_GatedLinearOp : Enc_Op<"gated_linear",
    !listconcat(Enc_WritesArena, [Enc_TakesWeights, Pure, AttrSizedOperandSegments])> {
  let summary = "y = act(x Wg^T + bg) * (x Wu^T + bu): a gated FFN as one GEMM";
  let description = [{
    The gate and up projections of a gated feed-forward layer and their
    product, as one GEMM over a weight packed once at load with the gate and
    up rows of the same outputs side by side: X is read once for both, the
    activation (on the gate) and the product run on the registers, and only
    the [.., n] result is written. `weight` is the row concatenation
    [Wg; Wu], [2n, k], `bias` likewise [bg; bu], [2n]. `enc-fuse-epilogues`
    forms it from `enc.mul(enc.linear {act}(x, Wg), enc.linear(x, Wu))`.
    A pre-norm prologue (`norm`, ...) as enc.linear's.

    Example:
    ```mlir
    %wgu = enc.concat_weights %wg, %wu
        : tensor<2048x768xf32>, tensor<2048x768xf32> -> tensor<4096x768xf32>
    %h = enc.gated_linear %x, %wgu {activation = #enc<activation silu>}
        : (tensor<?x?x768xf32>, tensor<4096x768xf32>) -> tensor<?x?x2048xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_F32Tensor:$weight,
                       Optional<Enc_F32Tensor>:$bias,
                       Optional<Enc_F32Tensor>:$norm_gamma,
                       Optional<Enc_F32Tensor>:$norm_beta,
                       DefaultValuedAttr<Enc_ActivationAttr,
                                         "::enc::ActivationKind::none">:$activation,
                       OptionalAttr<Enc_NormKindAttr>:$norm,
                       OptionalAttr<F32Attr>:$norm_eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)?
    (`norm_gamma` `(` $norm_gamma^ `)`)? (`norm_beta` `(` $norm_beta^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_NormOp : Enc_Op<"norm",
    !listconcat(Enc_WritesArena, [Enc_TakesWeights, Pure,
                DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "LayerNorm or RMSNorm over the last dimension";
  let description = [{
    LayerNorm: `(v - mean) / sqrt(var + eps) * gamma + beta` with the biased
    variance; RMSNorm: `v / sqrt(mean(v^2) + eps) * gamma`.

    Example:
    ```mlir
    %y = enc.norm layernorm %x, %g, %b {eps = 9.99999996E-13 : f32}
        : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_NormKindAttr:$kind, Enc_F32Tensor:$input,
                       Enc_F32Tensor:$gamma, Optional<Enc_F32Tensor>:$beta,
                       F32Attr:$eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    custom<NormKind>($kind) $input `,` $gamma (`,` $beta^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_SliceColumnsOp : Enc_Op<"slice_columns",
    !listconcat(Enc_ViewsArena, [Pure])> {
  let summary = "a range of the last dimension, as a view";
  let description = [{
    Columns [offset, offset + size) of every row; lowering makes it a pointer
    offset with the input's row stride, never a copy. It splits the fused QKV
    projection back into Q, K and V.

    Example:
    ```mlir
    %k = enc.slice_columns %qkv {offset = 768 : i64}
        : tensor<?x?x2304xf32> -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, I64Attr:$offset);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Enc_AttentionOp : Enc_Op<"attention",
    !listconcat(Enc_WritesArena,
                [Enc_TakesWeights, Pure,
                 DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "multi-head scaled dot-product attention with its positional variant";
  let description = [{
    Per sequence b and head h (d_k = width / heads; the width need not be
    d_model):
    `softmax_j(rope(Q_h[i]) . rope(K_h[j]) * scale + bias[h, i, j]) V_h`, keys
    j >= lengths[b] masked, rows i >= lengths[b] of the result zero. With
    `window` > 0 the block is local: query i sees only the keys with
    |i - j| <= window / 2 (0: every key). The `tables` depend on
    `positional`: none takes none; `rope` takes the cos and sin tables
    [max_len, d_k/2] (of the local base in a local block); `alibi` the slopes
    [heads]; `relative` the bucket of every relative position
    [2 max_len - 1] (i32) and the learned bias table [buckets, heads].

    Example:
    ```mlir
    %a = enc.attention %q, %k, %v, %len tables(%cos, %sin)
        {heads = 12 : i64, positional = #enc<attn_positional rope>,
         rope_style = #enc<rope_style halves>, scale = 1.250000e-01 : f32}
        : (tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>,
           tensor<?xi32>, tensor<512x32xf32>, tensor<512x32xf32>)
        -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$q, Enc_F32Tensor:$k, Enc_F32Tensor:$v,
                       Enc_I32Tensor:$lengths,
                       Variadic<RankedTensorOf<[F32, I32]>>:$tables,
                       I64Attr:$heads, F32Attr:$scale,
                       Enc_AttnPositionalAttr:$positional,
                       OptionalAttr<Enc_RopeStyleAttr>:$rope_style,
                       DefaultValuedAttr<I64Attr, "0">:$window);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $lengths (`tables` `(` $tables^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_AttentionBlockOp : Enc_Op<"attention_block",
    !listconcat(Enc_WritesArena,
                [Enc_TakesWeights, Pure, AttrSizedOperandSegments,
                 DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "an attention sub-layer computed a chunk of query rows at a time";
  let description = [{
    `y = x + enc.attention(q, k, v) Wo^T + bo` with `q = x Wq^T + bq` and
    `[k | v] = x Wkv^T + bkv` (x normed first when `norm` is set, as
    enc.linear's prologue; `kv_weight` the keys' rows then the values'). The
    runtime projects the keys and values of every row and the queries of one
    chunk of rows after another, or, for long inputs, a group of heads at a
    time (enc/kernels/attention_block.h), so no projection of every row takes
    arena memory: only x does (docs/c-abi.md#memory). `enc-chunk-queries`
    forms it from a fused QKV projection, its attention and the output
    projection. The attention attributes and tables are enc.attention's.

    Example:
    ```mlir
    %y = enc.attention_block %x, %wq, %wkv, %len, %wo tables(%cos, %sin)
        {heads = 12 : i64, positional = #enc<attn_positional rope>,
         rope_style = #enc<rope_style halves>, scale = 1.250000e-01 : f32}
        : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<1536x768xf32>,
           tensor<?xi32>, tensor<768x768xf32>, tensor<512x32xf32>,
           tensor<512x32xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_F32Tensor:$q_weight,
                       Enc_F32Tensor:$kv_weight,
                       Enc_I32Tensor:$lengths, Enc_F32Tensor:$out_weight,
                       Optional<Enc_F32Tensor>:$q_bias,
                       Optional<Enc_F32Tensor>:$kv_bias,
                       Optional<Enc_F32Tensor>:$out_bias,
                       Optional<Enc_F32Tensor>:$norm_gamma,
                       Optional<Enc_F32Tensor>:$norm_beta,
                       Variadic<RankedTensorOf<[F32, I32]>>:$tables,
                       I64Attr:$heads, F32Attr:$scale,
                       Enc_AttnPositionalAttr:$positional,
                       OptionalAttr<Enc_RopeStyleAttr>:$rope_style,
                       DefaultValuedAttr<I64Attr, "0">:$window,
                       OptionalAttr<Enc_NormKindAttr>:$norm,
                       OptionalAttr<F32Attr>:$norm_eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $q_weight `,` $kv_weight `,` $lengths `,` $out_weight
    (`q_bias` `(` $q_bias^ `)`)? (`kv_bias` `(` $kv_bias^ `)`)?
    (`out_bias` `(` $out_bias^ `)`)?
    (`norm_gamma` `(` $norm_gamma^ `)`)? (`norm_beta` `(` $norm_beta^ `)`)?
    (`tables` `(` $tables^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_FfnBlockOp : Enc_Op<"ffn_block",
    !listconcat(Enc_WritesArena,
                [Enc_TakesWeights, Pure, AttrSizedOperandSegments,
                 DeclareOpInterfaceMethods<Enc_InPlaceWritable>])> {
  let summary = "a feed-forward sub-layer computed a chunk of rows at a time";
  let description = [{
    `y = x + h W2^T + b2`, with `h = act(x W1^T + b1)` or, with `gated`,
    `h = act(x Wg^T + bg) * (x Wu^T + bu)` (`hidden_weight` the gate's and
    the up projection's rows stacked, as enc.gated_linear's, and
    `hidden_bias` [bg; bu]); x normed first when `norm` is set, as
    enc.linear's prologue. The runtime computes the hidden rows of one
    chunk after another (enc/kernels/ffn_block.h), so they never take arena
    memory (docs/c-abi.md#memory). `enc-chunk-ffn` forms it from the two
    projections of a feed-forward layer.

    Example:
    ```mlir
    %y = enc.ffn_block %x, %w1, %w2 hidden_bias(%b1) out_bias(%b2)
        {activation = #enc<activation gelu>}
        : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<768x3072xf32>,
           tensor<3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_F32Tensor:$hidden_weight,
                       Enc_F32Tensor:$out_weight,
                       Optional<Enc_F32Tensor>:$hidden_bias,
                       Optional<Enc_F32Tensor>:$out_bias,
                       Optional<Enc_F32Tensor>:$norm_gamma,
                       Optional<Enc_F32Tensor>:$norm_beta,
                       DefaultValuedAttr<Enc_ActivationAttr,
                                         "::enc::ActivationKind::none">:$activation,
                       UnitAttr:$gated,
                       OptionalAttr<Enc_NormKindAttr>:$norm,
                       OptionalAttr<F32Attr>:$norm_eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $hidden_weight `,` $out_weight
    (`hidden_bias` `(` $hidden_bias^ `)`)? (`out_bias` `(` $out_bias^ `)`)?
    (`norm_gamma` `(` $norm_gamma^ `)`)? (`norm_beta` `(` $norm_beta^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_PoolOp : Enc_Op<"pool",
    !listconcat(Enc_ViewsArena, [Pure])> {
  let summary = "the encoder's output: every valid row, row 0, or their mean";
  let description = [{
    `none` keeps [batch, seq, d] with rows i >= lengths[b] set to 0; `cls`
    gives [batch, d] from row 0; `mean` the mean of the valid rows (0 for an
    empty sequence). With `normalize`, each output vector is then divided by
    max(its L2 norm, 1e-12) (zero vectors stay zero).

    Example:
    ```mlir
    %y = enc.pool mean %x, %len {normalize}
        : (tensor<?x?x768xf32>, tensor<?xi32>) -> tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Enc_PoolModeAttr:$mode, Enc_F32Tensor:$input,
                       Enc_I32Tensor:$lengths, UnitAttr:$normalize);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    custom<PoolMode>($mode) $input `,` $lengths attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_ClassifierOp : Enc_Op<"classifier",
    !listconcat(Enc_ViewsArena, [Enc_TakesWeights, Pure, AttrSizedOperandSegments])> {
  let summary = "a classification head: pool, dense + activation, logits";
  let description = [{
    The encoder's output when it classifies (docs/language.md#heads): the
    pooled vector p of each sequence (as enc.pool), then
    `h = act(p Wd^T + bd)` when a dense layer is given (else h = p), then
    `logits = h Wo^T + bo`, [batch, labels]; `scores` applies sigmoid to each
    logit or softmax over them. With `norm` (ModernBERT), h is normalised
    (`norm_kind`, gamma, optional beta, `eps`) after the activation; the dense
    bias is optional. The runtime runs both projections as GEMMs over weights
    packed at load, in the encoder's precision.

    Example:
    ```mlir
    %y = enc.classifier cls %x, %len dense(%wd) dense_bias(%bd) out(%wo, %bo)
        {activation = #enc<activation tanh>, scores = #enc<scores none>}
        : (tensor<?x?x768xf32>, tensor<?xi32>, tensor<768x768xf32>,
           tensor<768xf32>, tensor<2x768xf32>, tensor<2xf32>)
        -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins Enc_PoolModeAttr:$mode, Enc_F32Tensor:$input,
                       Enc_I32Tensor:$lengths,
                       Optional<Enc_F32Tensor>:$dense_weight,
                       Optional<Enc_F32Tensor>:$dense_bias,
                       Optional<Enc_F32Tensor>:$norm_gamma,
                       Optional<Enc_F32Tensor>:$norm_beta,
                       Enc_F32Tensor:$weight, Enc_F32Tensor:$bias,
                       DefaultValuedAttr<Enc_ActivationAttr,
                                         "::enc::ActivationKind::none">:$activation,
                       DefaultValuedAttr<Enc_ScoresAttr,
                                         "::enc::ScoresKind::none">:$scores,
                       OptionalAttr<Enc_NormKindAttr>:$norm_kind,
                       OptionalAttr<F32Attr>:$eps);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    custom<PoolMode>($mode) $input `,` $lengths
    (`dense` `(` $dense_weight^ `)`)? (`dense_bias` `(` $dense_bias^ `)`)?
    (`norm` `(` $norm_gamma^ `)`)? (`norm_beta` `(` $norm_beta^ `)`)?
    `out` `(` $weight `,` $bias `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_ColbertOp : Enc_Op<"colbert",
    !listconcat(Enc_ViewsArena, [Enc_TakesWeights, Pure])> {
  let summary = "a ColBERT head: each token projected, then L2-normalised";
  let description = [{
    The encoder's output when it gives ColBERT vectors
    (docs/language.md#heads): `v = W x` for every valid token (W
    [dim, d_model], no bias), then `v / max(||v||_2, 1e-12)`, as
    [batch, seq, dim] with rows i >= lengths[b] set to 0. The runtime runs the
    projection as one GEMM over W packed at load, in the encoder's precision.

    Example:
    ```mlir
    %y = enc.colbert %x, %len, %w
        : (tensor<?x?x768xf32>, tensor<?xi32>, tensor<128x768xf32>)
        -> tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_I32Tensor:$lengths,
                       Enc_F32Tensor:$weight);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $lengths `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_DenseHeadOp : Enc_Op<"dense_head",
    !listconcat(Enc_ViewsArena, [Enc_TakesWeights, Pure])> {
  let summary = "a projection of the pooled vector (a Dense module)";
  let description = [{
    The encoder's output when it projects its pooled vector
    (docs/language.md#heads), as sentence-transformers' Dense module:
    `act(W p + b)` with p the pooling of each sequence, W [dim, d_model], b
    [dim] (optional), act identity (`none`) or tanh; then, with `normalize`,
    each row divided by max(its L2 norm, 1e-12).

    Example:
    ```mlir
    %y = enc.dense_head cls %x, %len, %w, %b {activation = #enc<activation tanh>, normalize}
        : (tensor<?x?x768xf32>, tensor<?xi32>, tensor<768x768xf32>,
           tensor<768xf32>) -> tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Enc_PoolModeAttr:$mode, Enc_F32Tensor:$input,
                       Enc_I32Tensor:$lengths, Enc_F32Tensor:$weight,
                       Optional<Enc_F32Tensor>:$bias,
                       DefaultValuedAttr<Enc_ActivationAttr,
                                         "::enc::ActivationKind::none">:$activation,
                       UnitAttr:$normalize);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    custom<PoolMode>($mode) $input `,` $lengths `,` $weight (`,` $bias^)?
    attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_MlmOp : Enc_Op<"mlm", !listconcat(Enc_ViewsArena, [Enc_TakesWeights, Pure])> {
  let summary = "a masked-LM decoder: logits over the vocabulary per token";
  let description = [{
    The encoder's output when it gives masked-LM logits
    (docs/language.md#heads): `W x + b` for every valid token, W [vocab,
    d_model] (the token embeddings when the checkpoint ties them), as
    [batch, seq, vocab] with rows i >= lengths[b] set to 0. Its input is the
    head's transform (dense, activation, norm), built from ordinary ops.

    Example:
    ```mlir
    %y = enc.mlm %h, %len, %w, %b
        : (tensor<?x?x768xf32>, tensor<?xi32>, tensor<30522x768xf32>,
           tensor<30522xf32>) -> tensor<?x?x30522xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_I32Tensor:$lengths,
                       Enc_F32Tensor:$weight, Enc_F32Tensor:$bias);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $lengths `,` $weight `,` $bias attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Enc_SpladeOp : Enc_Op<"splade",
    !listconcat(Enc_ViewsArena, [Enc_TakesWeights, Pure])> {
  let summary = "SPLADE term weights: max over tokens of log(1 + relu(logits))";
  let description = [{
    The encoder's output when it gives SPLADE vectors
    (docs/language.md#heads): for each sequence, the maximum over its valid
    tokens of `log(1 + relu(W x + b))`, as [batch, vocab] (0 for an empty
    sequence). The runtime never holds the [tokens, vocab] logits: it keeps
    the running maximum over row chunks of the decoder's GEMM.

    Example:
    ```mlir
    %y = enc.splade %h, %len, %w, %b
        : (tensor<?x?x768xf32>, tensor<?xi32>, tensor<30522x768xf32>,
           tensor<30522xf32>) -> tensor<?x30522xf32>
    ```
  }];
  let arguments = (ins Enc_F32Tensor:$input, Enc_I32Tensor:$lengths,
                       Enc_F32Tensor:$weight, Enc_F32Tensor:$bias);
  let results = (outs Enc_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $lengths `,` $weight `,` $bias attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // ENC_OPS
