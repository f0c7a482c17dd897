// RUN: encc-opt %s -split-input-file -verify-diagnostics
// One case per message of the enc verifiers (compiler/lib/Dialect/EncOps.cpp),
// in the order they appear there.

//===----------------------------------------------------------------------===//
// enc.weight
//===----------------------------------------------------------------------===//

func.func @weight_no_name() -> tensor<8xf32> {
  // expected-error @+1 {{'enc.weight' op needs the name of a tensor of the weights file}}
  %0 = enc.weight "" : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @weight_rank3() -> tensor<2x2x2xf32> {
  // expected-error @+1 {{'enc.weight' op weight 'w' must have a static shape of rank 1 or 2, not 'tensor<2x2x2xf32>'}}
  %0 = enc.weight "w" : tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// -----

func.func @weight_dynamic() -> tensor<?x8xf32> {
  // expected-error @+1 {{'enc.weight' op weight 'embed.tokens' must have a static shape of rank 1 or 2, not 'tensor<?x8xf32>'}}
  %0 = enc.weight "embed.tokens" : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @weight_scalar() -> tensor<f32> {
  // expected-error @+1 {{'enc.weight' op weight 's' must have a static shape of rank 1 or 2, not 'tensor<f32>'}}
  %0 = enc.weight "s" : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A user that does not say how it holds a weight (ReadsWeights) would get no
// slot: a new op taking weights must implement it.
func.func @weight_unknown_user() -> tensor<8xf32> {
  // expected-error @+1 {{'enc.weight' op is used by 'func.return', which does not say how it holds a weight (ReadsWeights)}}
  %0 = enc.weight "b" : tensor<8xf32>
  return %0 : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// enc.concat_weights
//===----------------------------------------------------------------------===//

// -----

func.func @concat_empty() -> tensor<0x8xf32> {
  // expected-error @+1 {{'enc.concat_weights' op needs at least one part}}
  %0 = "enc.concat_weights"() : () -> tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

func.func @concat_widths(%a: tensor<8x8xf32>, %b: tensor<8x4xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'enc.concat_weights' op part #1 is [8, 4], which does not stack under part #0, [8, 8]}}
  %0 = enc.concat_weights %a, %b : tensor<8x8xf32>, tensor<8x4xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @concat_ranks(%a: tensor<8xf32>, %b: tensor<8x8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'enc.concat_weights' op part #1 is [8, 8], which does not stack under part #0, [8]}}
  %0 = enc.concat_weights %a, %b : tensor<8xf32>, tensor<8x8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @concat_rows(%a: tensor<8x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'enc.concat_weights' op result is [16, 8], but the parts stack to 24 rows}}
  %0 = enc.concat_weights %a, %a, %a : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @concat_result_width(%a: tensor<8x8xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'enc.concat_weights' op result is [16, 4], but the parts stack to 16 rows}}
  %0 = enc.concat_weights %a, %a : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @concat_unknown_user(%a: tensor<8x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'enc.concat_weights' op is used by 'func.return', which does not say how it holds a weight (ReadsWeights)}}
  %0 = enc.concat_weights %a, %a : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

//===----------------------------------------------------------------------===//
// enc.positional_table
//===----------------------------------------------------------------------===//

// -----

func.func @table_dim() -> tensor<16x8xf32> {
  // expected-error @+1 {{'enc.positional_table' op dim (0) must be at least 1}}
  %0 = enc.positional_table sinusoidal {dim = 0 : i64} : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @table_sinusoidal_width() -> tensor<16x4xf32> {
  // expected-error @+1 {{'enc.positional_table' op sinusoidal table must be f32 [max_len, 8], not 'tensor<16x4xf32>'}}
  %0 = enc.positional_table sinusoidal {dim = 8 : i64} : tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @table_sinusoidal_i32() -> tensor<16x8xi32> {
  // expected-error @+1 {{'enc.positional_table' op sinusoidal table must be f32 [max_len, 8], not 'tensor<16x8xi32>'}}
  %0 = enc.positional_table sinusoidal {dim = 8 : i64} : tensor<16x8xi32>
  return %0 : tensor<16x8xi32>
}

// -----

func.func @table_rope_odd() -> tensor<16x2xf32> {
  // expected-error @+1 {{'enc.positional_table' op rope needs an even d_k, not 5}}
  %0 = enc.positional_table rope_cos {dim = 5 : i64, base = 1.0e+04 : f64} : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

func.func @table_rope_no_base() -> tensor<16x2xf32> {
  // expected-error @+1 {{'enc.positional_table' op rope table needs a base > 0}}
  %0 = enc.positional_table rope_sin {dim = 4 : i64} : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

func.func @table_rope_zero_base() -> tensor<16x2xf32> {
  // expected-error @+1 {{'enc.positional_table' op rope table needs a base > 0}}
  %0 = enc.positional_table rope_cos {dim = 4 : i64, base = 0.0 : f64} : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

func.func @table_rope_width() -> tensor<16x4xf32> {
  // expected-error @+1 {{'enc.positional_table' op rope table must be f32 [max_len, 2], not 'tensor<16x4xf32>'}}
  %0 = enc.positional_table rope_cos {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @table_alibi() -> tensor<4xf32> {
  // expected-error @+1 {{'enc.positional_table' op alibi slopes must be f32 [6], not 'tensor<4xf32>'}}
  %0 = enc.positional_table alibi_slopes {dim = 6 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @table_buckets_odd() -> tensor<31xi32> {
  // expected-error @+1 {{'enc.positional_table' op bucket count (3) must be even and at least 2}}
  %0 = enc.positional_table relative_buckets {dim = 3 : i64, max_distance = 10 : i64} : tensor<31xi32>
  return %0 : tensor<31xi32>
}

// -----

func.func @table_max_distance() -> tensor<31xi32> {
  // expected-error @+1 {{'enc.positional_table' op max_distance must be greater than buckets / 2 (4)}}
  %0 = enc.positional_table relative_buckets {dim = 8 : i64, max_distance = 4 : i64} : tensor<31xi32>
  return %0 : tensor<31xi32>
}

// -----

func.func @table_no_max_distance() -> tensor<31xi32> {
  // expected-error @+1 {{'enc.positional_table' op max_distance must be greater than buckets / 2 (16)}}
  %0 = enc.positional_table relative_buckets {dim = 32 : i64} : tensor<31xi32>
  return %0 : tensor<31xi32>
}

// -----

func.func @table_buckets_even_length() -> tensor<30xi32> {
  // expected-error @+1 {{'enc.positional_table' op relative buckets must be i32 [2 * max_len - 1], not 'tensor<30xi32>'}}
  %0 = enc.positional_table relative_buckets {dim = 8 : i64, max_distance = 10 : i64} : tensor<30xi32>
  return %0 : tensor<30xi32>
}

//===----------------------------------------------------------------------===//
// enc.embed_tokens
//===----------------------------------------------------------------------===//

// -----

func.func @embed_ids(%ids: tensor<?xi32>, %tok: tensor<100x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op ids must be [batch, seq], not [?]}}
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_table(%ids: tensor<?x?xi32>, %tok: tensor<100xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op table must be [vocab, d_model], not [100]}}
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_result(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op result must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x?x?xf32>'}}
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @embed_width(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>) -> tensor<?x?x16xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op result width (16) does not match the table's width (8)}}
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

func.func @embed_types_alone(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>, %types: tensor<?x?xi32>) -> tensor<?x?x8xf32> {
  // The custom syntax cannot say this; the generic form can.
  // expected-error @+1 {{'enc.embed_tokens' op token types and their table go together}}
  %0 = "enc.embed_tokens"(%ids, %tok, %types) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, scale = 1.0 : f32}> : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_type_table(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>, %types: tensor<?x?xi32>, %typ: tensor<2x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op type table must be [type_vocab, 8], not [2, 4]}}
  %0 = enc.embed_tokens %ids, %tok types(%types, %typ) {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>, tensor<2x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_positions(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>, %pos: tensor<16x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op positional table must be [max_len, 8], not [16, 4]}}
  %0 = enc.embed_tokens %ids, %tok positions(%pos) {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<16x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_offset_past_table(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>, %pos: tensor<2x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op positional table has 2 rows, none past position_offset (2)}}
  %0 = enc.embed_tokens %ids, %tok positions(%pos) {position_offset = 2 : i64, scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @embed_offset_without_table(%ids: tensor<?x?xi32>, %tok: tensor<100x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.embed_tokens' op position_offset (2) needs a positional table}}
  %0 = enc.embed_tokens %ids, %tok {position_offset = 2 : i64, scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

//===----------------------------------------------------------------------===//
// enc.add_positions
//===----------------------------------------------------------------------===//

// -----

func.func @add_positions_input(%x: tensor<?x8xf32>, %pe: tensor<16x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'enc.add_positions' op input must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x8xf32>'}}
  %0 = enc.add_positions %x, %pe : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @add_positions_table(%x: tensor<?x?x8xf32>, %pe: tensor<16x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.add_positions' op table must be [max_len, 8], not [16, 4]}}
  %0 = enc.add_positions %x, %pe : (tensor<?x?x8xf32>, tensor<16x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @add_positions_result(%x: tensor<?x?x8xf32>, %pe: tensor<16x8xf32>) -> tensor<2x?x8xf32> {
  // expected-error @+1 {{'enc.add_positions' op result type 'tensor<2x?x8xf32>' differs from the input's 'tensor<?x?x8xf32>'}}
  %0 = enc.add_positions %x, %pe : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<2x?x8xf32>
  return %0 : tensor<2x?x8xf32>
}

// -----

func.func @add_positions_negative_offset(%x: tensor<?x?x8xf32>, %pe: tensor<16x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.add_positions' op position_offset (-1) must not be negative}}
  %0 = enc.add_positions %x, %pe {position_offset = -1 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

//===----------------------------------------------------------------------===//
// enc.linear
//===----------------------------------------------------------------------===//

// -----

func.func @linear_input(%x: tensor<?x?x?xf32>, %w: tensor<32x8xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.linear' op input must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x?x?xf32>'}}
  %0 = enc.linear %x, %w : (tensor<?x?x?xf32>, tensor<32x8xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @linear_result(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{'enc.linear' op result must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x32xf32>'}}
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<?x?x8xf32>, %w: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.linear' op weight must be [out_features, in_features], not [8]}}
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @linear_in_features(%x: tensor<?x?x8xf32>, %w: tensor<32x4xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.linear' op input width (8) does not match the weight's in_features (4)}}
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<32x4xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @linear_out_features(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>) -> tensor<?x?x16xf32> {
  // expected-error @+1 {{'enc.linear' op result width (16) does not match the weight's out_features (32)}}
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

func.func @linear_bias(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>, %b: tensor<16xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.linear' op bias must be [32], but is [16]}}
  %0 = enc.linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<16xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @linear_bias_rank(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>, %b: tensor<1x32xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.linear' op bias must be [32], but is [1, 32]}}
  %0 = enc.linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<1x32xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @linear_residual(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.linear' op residual type 'tensor<?x?x8xf32>' differs from the result's 'tensor<?x?x32xf32>'}}
  %0 = enc.linear %x, %w residual(%r) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

//===----------------------------------------------------------------------===//
// enc.norm
//===----------------------------------------------------------------------===//

// -----

func.func @norm_input(%x: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'enc.norm' op input must be a [batch, seq, width] tensor with a static width, but is 'tensor<8xf32>'}}
  %0 = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @norm_gamma(%x: tensor<?x?x8xf32>, %g: tensor<4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op gamma must be [8], but is [4]}}
  %0 = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @norm_rms_beta(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op rmsnorm has no beta}}
  %0 = enc.norm rmsnorm %x, %g, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @norm_beta(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op beta must be [8], but is [4]}}
  %0 = enc.norm layernorm %x, %g, %b {eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @norm_eps_zero(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op eps (0.000000e+00) must be greater than 0}}
  %0 = enc.norm rmsnorm %x, %g {eps = 0.0 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @norm_eps_negative(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op eps (-5.000000e-01) must be greater than 0}}
  %0 = enc.norm rmsnorm %x, %g {eps = -0.5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @norm_result(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<1x?x8xf32> {
  // expected-error @+1 {{'enc.norm' op result type 'tensor<1x?x8xf32>' differs from the input's 'tensor<?x?x8xf32>'}}
  %0 = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

//===----------------------------------------------------------------------===//
// enc.slice_columns
//===----------------------------------------------------------------------===//

// -----

func.func @slice_input(%x: tensor<?x24xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.slice_columns' op input must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x24xf32>'}}
  %0 = enc.slice_columns %x {offset = 0 : i64} : tensor<?x24xf32> -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @slice_result(%x: tensor<?x?x24xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'enc.slice_columns' op result must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x?x?xf32>'}}
  %0 = enc.slice_columns %x {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @slice_past_end(%x: tensor<?x?x24xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.slice_columns' op columns [20, 28) are outside the input's 24}}
  %0 = enc.slice_columns %x {offset = 20 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @slice_negative(%x: tensor<?x?x24xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.slice_columns' op columns [-1, 7) are outside the input's 24}}
  %0 = enc.slice_columns %x {offset = -1 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

//===----------------------------------------------------------------------===//
// enc.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_q(%q: tensor<?x8xf32>, %len: tensor<?xi32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'enc.attention' op q must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x8xf32>'}}
  %0 = enc.attention %q, %q, %q, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @attention_types(%q: tensor<?x?x8xf32>, %k: tensor<?x?x16xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op q, k, v and the result must have one type; got 'tensor<?x?x8xf32>', 'tensor<?x?x16xf32>', 'tensor<?x?x8xf32>' -> 'tensor<?x?x8xf32>'}}
  %0 = enc.attention %q, %k, %q, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x16xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_heads(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op width (8) is not divisible by heads (3)}}
  %0 = enc.attention %q, %q, %q, %len {heads = 3 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_negative_window(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op window (-2) must not be negative (0: every key)}}
  %0 = enc.attention %q, %q, %q, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32, window = -2 : i64} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_zero_heads(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op width (8) is not divisible by heads (0)}}
  %0 = enc.attention %q, %q, %q, %len {heads = 0 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_lengths(%q: tensor<?x?x8xf32>, %len: tensor<?x?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op lengths must be [batch]}}
  %0 = enc.attention %q, %q, %q, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_none_tables(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %t: tensor<2xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op positional none takes 0 tables, not 1}}
  %0 = enc.attention %q, %q, %q, %len tables(%t) {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_rope_tables(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %t: tensor<16x2xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op positional rope takes 2 tables, not 1}}
  %0 = enc.attention %q, %q, %q, %len tables(%t) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x2xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_rope_style(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %t: tensor<16x2xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op rope needs a rope_style}}
  %0 = enc.attention %q, %q, %q, %len tables(%t, %t) {heads = 2 : i64, positional = #enc<attn_positional rope>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_rope_width(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %t: tensor<16x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op rope tables must be [max_len, 2], not [16, 4]}}
  %0 = enc.attention %q, %q, %q, %len tables(%t, %t) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style interleaved>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_alibi_tables(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op positional alibi takes 1 table, not 0}}
  %0 = enc.attention %q, %q, %q, %len {heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_alibi_slopes(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %s: tensor<3xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op alibi slopes must be [2], but is [3]}}
  %0 = enc.attention %q, %q, %q, %len tables(%s) {heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<3xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_relative_tables(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %b: tensor<31xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op positional relative takes 2 tables, not 1}}
  %0 = enc.attention %q, %q, %q, %len tables(%b) {heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<31xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_relative_buckets(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %b: tensor<31xf32>, %t: tensor<8x2xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op relative buckets must be i32 [2 * max_len - 1]}}
  %0 = enc.attention %q, %q, %q, %len tables(%b, %t) {heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<31xf32>, tensor<8x2xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_relative_bias(%q: tensor<?x?x8xf32>, %len: tensor<?xi32>, %b: tensor<31xi32>, %t: tensor<8x3xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention' op relative bias table must be [buckets, 2], not [8, 3]}}
  %0 = enc.attention %q, %q, %q, %len tables(%b, %t) {heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<31xi32>, tensor<8x3xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// enc.attention_block
//===----------------------------------------------------------------------===//

func.func @attention_block_kv(%x: tensor<?x?x8xf32>, %wkv: tensor<4x8xf32>, %len: tensor<?xi32>, %wq: tensor<4x8xf32>, %wo: tensor<8x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention_block' op result width (8) does not match the weight's 2 * heads * d_k (4)}}
  %0 = enc.attention_block %x, %wq, %wkv, %len, %wo {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<?xi32>, tensor<8x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_block_out_weight(%x: tensor<?x?x8xf32>, %wkv: tensor<8x8xf32>, %len: tensor<?xi32>, %wq: tensor<4x8xf32>, %wo: tensor<8x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention_block' op input width (4) does not match the weight's in_features (8)}}
  %0 = enc.attention_block %x, %wq, %wkv, %len, %wo {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xi32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @attention_block_heads(%x: tensor<?x?x8xf32>, %wkv: tensor<8x8xf32>, %len: tensor<?xi32>, %wq: tensor<4x8xf32>, %wo: tensor<8x4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.attention_block' op width (4) is not divisible by heads (3)}}
  %0 = enc.attention_block %x, %wq, %wkv, %len, %wo {heads = 3 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xi32>, tensor<8x4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// enc.ffn_block
//===----------------------------------------------------------------------===//

func.func @ffn_block_shapes(%x: tensor<?x?x8xf32>, %w1: tensor<16x8xf32>, %w2: tensor<8x16xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.ffn_block' op hidden_weight [16, 8] and out_weight [8, 16] do not fit a gated hidden layer of 16 over width 8}}
  %0 = enc.ffn_block %x, %w1, %w2 {gated} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @ffn_block_bias(%x: tensor<?x?x8xf32>, %w1: tensor<16x8xf32>, %w2: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.ffn_block' op hidden_bias must be}}
  %0 = enc.ffn_block %x, %w1, %w2 hidden_bias(%b) : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// enc.pool
//===----------------------------------------------------------------------===//

// -----

func.func @pool_input(%x: tensor<?x?x?xf32>, %len: tensor<?xi32>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'enc.pool' op input must be a [batch, seq, width] tensor with a static width, but is 'tensor<?x?x?xf32>'}}
  %0 = enc.pool none %x, %len : (tensor<?x?x?xf32>, tensor<?xi32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @pool_none(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'enc.pool' op pooling none keeps the input type 'tensor<?x?x8xf32>', not 'tensor<?x8xf32>'}}
  %0 = enc.pool none %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @pool_cls(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x9xf32> {
  // expected-error @+1 {{'enc.pool' op pooling cls gives [batch, n] with 1 <= n <= 8, not [?, 9]}}
  %0 = enc.pool cls %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x9xf32>
  return %0 : tensor<?x9xf32>
}

// -----

func.func @pool_mean(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.pool' op pooling mean gives [batch, n] with 1 <= n <= 8, not [?, ?, 8]}}
  %0 = enc.pool mean %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @classifier_none(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %wo: tensor<3x8xf32>, %bo: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'enc.classifier' op classifies a pooled vector: pooling none has none}}
  %0 = enc.classifier none %x, %len out(%wo, %bo) : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @classifier_width(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %wo: tensor<3x4xf32>, %bo: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'enc.classifier' op output weight is [3, 4], not [labels, 8]}}
  %0 = enc.classifier cls %x, %len out(%wo, %bo) : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @colbert_weight(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<4x6xf32>) -> tensor<?x?x4xf32> {
  // expected-error @+1 {{'enc.colbert' op weight is [4, 6], not [4, 8]}}
  %0 = enc.colbert %x, %len, %w : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<4x6xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

func.func @classifier_result(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %wo: tensor<3x8xf32>, %bo: tensor<3xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{'enc.classifier' op gives [batch, 3], not [?, 2]}}
  %0 = enc.classifier cls %x, %len out(%wo, %bo) : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

//===----------------------------------------------------------------------===//
// The custom enum keywords
//===----------------------------------------------------------------------===//

// -----

func.func @unknown_activation(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{unknown activation 'swish'}}
  %0 = enc.activation swish %x : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @unknown_norm(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{unknown norm kind 'batchnorm'}}
  %0 = enc.norm batchnorm %x, %g {eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @unknown_pool(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{unknown pool mode 'median'}}
  %0 = enc.pool median %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// enc.gated_linear: [Wg; Wu] has two rows per output.

func.func @gated_linear_rows(%x: tensor<?x?x8xf32>, %w: tensor<48x8xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.gated_linear' op result width (32 per part) does not match the weight's gate and up rows (48)}}
  %0 = enc.gated_linear %x, %w : (tensor<?x?x8xf32>, tensor<48x8xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @gated_linear_in_features(%x: tensor<?x?x8xf32>, %w: tensor<64x4xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.gated_linear' op input width (8) does not match the weight's in_features (4)}}
  %0 = enc.gated_linear %x, %w : (tensor<?x?x8xf32>, tensor<64x4xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @gated_linear_bias(%x: tensor<?x?x8xf32>, %w: tensor<64x8xf32>, %b: tensor<32xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.gated_linear' op bias must be [64], but is [32]}}
  %0 = enc.gated_linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<64x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @gated_linear_weight_rank(%x: tensor<?x?x64xf32>, %w: tensor<64xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{'enc.gated_linear' op weight must be [gate and up rows, in_features], not [64]}}
  %0 = enc.gated_linear %x, %w : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @mlm_weight(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<50x6xf32>, %b: tensor<50xf32>) -> tensor<?x?x50xf32> {
  // expected-error @+1 {{'enc.mlm' op decoder weight is [50, 6], not [vocab, 8]}}
  %0 = enc.mlm %x, %len, %w, %b : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x6xf32>, tensor<50xf32>) -> tensor<?x?x50xf32>
  return %0 : tensor<?x?x50xf32>
}

// -----

func.func @splade_result(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<50x8xf32>, %b: tensor<50xf32>) -> tensor<?x?x50xf32> {
  // expected-error @+1 {{'enc.splade' op gives [batch, 50], not [?, ?, 50]}}
  %0 = enc.splade %x, %len, %w, %b : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x8xf32>, tensor<50xf32>) -> tensor<?x?x50xf32>
  return %0 : tensor<?x?x50xf32>
}

// -----

func.func @dense_head_unpooled(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<6x8xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{'enc.dense_head' op projects a pooled vector: pooling none has none}}
  %0 = enc.dense_head none %x, %len, %w : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

func.func @dense_head_bias(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<6x8xf32>, %b: tensor<5xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{'enc.dense_head' op bias}}
  %0 = enc.dense_head cls %x, %len, %w, %b : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>, tensor<5xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// A projection's norm prologue: all of norm, norm_gamma and norm_eps or none,
// each as enc.norm would have them.
func.func @prologue_without_gamma(%x: tensor<?x?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.linear' op a norm prologue needs norm, norm_gamma and norm_eps together}}
  %0 = enc.linear %x, %w {norm = #enc<norm_kind layernorm>, norm_eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @prologue_gamma_width(%x: tensor<?x?x8xf32>, %w: tensor<8x8xf32>, %g: tensor<4xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.linear' op norm_gamma}}
  %0 = enc.linear %x, %w norm_gamma(%g) {norm = #enc<norm_kind layernorm>, norm_eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<4xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @prologue_rms_beta(%x: tensor<?x?x8xf32>, %w: tensor<32x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x16xf32> {
  // expected-error @+1 {{'enc.gated_linear' op rmsnorm has no beta}}
  %0 = enc.gated_linear %x, %w norm_gamma(%g) norm_beta(%g) {norm = #enc<norm_kind rmsnorm>, norm_eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

func.func @prologue_eps(%x: tensor<?x?x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.linear' op norm_eps (0.000000e+00) must be greater than 0}}
  %0 = enc.linear %x, %w norm_gamma(%g) {norm = #enc<norm_kind rmsnorm>, norm_eps = 0.0 : f32} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}
