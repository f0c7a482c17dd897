// RUN: encc-opt %s | encc-opt | FileCheck %s
// RUN: encc-opt %s --mlir-print-op-generic | encc-opt | FileCheck %s
// Every op of the enc dialect survives a print/parse round trip, in the
// custom form and through the generic form.

// CHECK-LABEL: func.func @weights
func.func @weights(%x: tensor<?x?x8xf32>) -> tensor<?x?x24xf32> {
  // CHECK: %[[WQ:.*]] = enc.weight "blocks.0.attn.q.weight" : tensor<8x8xf32>
  // CHECK: %[[WK:.*]] = enc.weight "blocks.0.attn.k.weight" : tensor<8x8xf32>
  // CHECK: %[[WV:.*]] = enc.weight "blocks.0.attn.v.weight" : tensor<8x8xf32>
  // CHECK: %[[BQ:.*]] = enc.weight "blocks.0.attn.q.bias" : tensor<8xf32>
  // CHECK: %[[BK:.*]] = enc.weight "blocks.0.attn.k.bias" : tensor<8xf32>
  // CHECK: %[[BV:.*]] = enc.weight "blocks.0.attn.v.bias" : tensor<8xf32>
  // CHECK: %[[W:.*]] = enc.concat_weights %[[WQ]], %[[WK]], %[[WV]] : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  // CHECK: %[[B:.*]] = enc.concat_weights %[[BQ]], %[[BK]], %[[BV]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<24xf32>
  // CHECK: %[[Y:.*]] = enc.linear %{{.*}}, %[[W]] bias(%[[B]])
  // CHECK: return %[[Y]]
  %wq = enc.weight "blocks.0.attn.q.weight" : tensor<8x8xf32>
  %wk = enc.weight "blocks.0.attn.k.weight" : tensor<8x8xf32>
  %wv = enc.weight "blocks.0.attn.v.weight" : tensor<8x8xf32>
  %bq = enc.weight "blocks.0.attn.q.bias" : tensor<8xf32>
  %bk = enc.weight "blocks.0.attn.k.bias" : tensor<8xf32>
  %bv = enc.weight "blocks.0.attn.v.bias" : tensor<8xf32>
  %w = enc.concat_weights %wq, %wk, %wv : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  %b = enc.concat_weights %bq, %bk, %bv : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<24xf32>
  // A weight's every user says how it holds it (ReadsWeights).
  %y = enc.linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<?x?x24xf32>
  return %y : tensor<?x?x24xf32>
}

// CHECK-LABEL: func.func @positional_tables
func.func @positional_tables() -> (tensor<16x8xf32>, tensor<16x2xf32>, tensor<16x2xf32>, tensor<6xf32>, tensor<31xi32>) {
  // CHECK: enc.positional_table {{ *}}sinusoidal {dim = 8 : i64} : tensor<16x8xf32>
  // CHECK: enc.positional_table {{ *}}rope_cos {base = 1.000000e+04 : f64, dim = 4 : i64} : tensor<16x2xf32>
  // CHECK: enc.positional_table {{ *}}rope_sin {base = 5.000000e+05 : f64, dim = 4 : i64} : tensor<16x2xf32>
  // CHECK: enc.positional_table {{ *}}alibi_slopes {dim = 6 : i64} : tensor<6xf32>
  // CHECK: enc.positional_table {{ *}}relative_buckets {dim = 32 : i64, max_distance = 128 : i64} : tensor<31xi32>
  %pe = enc.positional_table sinusoidal {dim = 8 : i64} : tensor<16x8xf32>
  %cos = enc.positional_table rope_cos {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<16x2xf32>
  %sin = enc.positional_table rope_sin {dim = 4 : i64, base = 5.0e+05 : f64} : tensor<16x2xf32>
  %slopes = enc.positional_table alibi_slopes {dim = 6 : i64} : tensor<6xf32>
  %buckets = enc.positional_table relative_buckets {dim = 32 : i64, max_distance = 128 : i64} : tensor<31xi32>
  return %pe, %cos, %sin, %slopes, %buckets : tensor<16x8xf32>, tensor<16x2xf32>, tensor<16x2xf32>, tensor<6xf32>, tensor<31xi32>
}

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<?x?xi32>, %[[TYPES:[^:]*]]: tensor<?x?xi32>, %[[X:[^:]*]]: tensor<?x?x8xf32>)
func.func @embedding(%ids: tensor<?x?xi32>, %types: tensor<?x?xi32>, %x: tensor<?x?x8xf32>)
    -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  // CHECK: %[[TOK:.*]] = enc.weight "embed.tokens" : tensor<100x8xf32>
  // CHECK: %[[TYP:.*]] = enc.weight "embed.types" : tensor<2x8xf32>
  // CHECK: %[[POS:.*]] = enc.weight "embed.positions" {allow_extra_rows} : tensor<16x8xf32>
  %tok = enc.weight "embed.tokens" : tensor<100x8xf32>
  %typ = enc.weight "embed.types" : tensor<2x8xf32>
  %pos = enc.weight "embed.positions" {allow_extra_rows} : tensor<16x8xf32>
  // CHECK: enc.embed_tokens %[[IDS]], %[[TOK]] {scale = 1.000000e+00 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.embed_tokens %[[IDS]], %[[TOK]] types(%[[TYPES]], %[[TYP]]) {scale = 2.82842708 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.embed_tokens %ids, %tok types(%types, %typ) {scale = 2.82842708 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.embed_tokens %[[IDS]], %[[TOK]] types(%[[TYPES]], %[[TYP]]) positions(%[[POS]]) {scale = 1.000000e+00 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>, tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  %2 = enc.embed_tokens %ids, %tok types(%types, %typ) positions(%pos) {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<?x?xi32>, tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.add_positions %[[X]], %[[POS]] : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  %3 = enc.add_positions %x, %pos : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  // Learned positions from row 2 (RoBERTa), fused or not; 0 is not printed.
  // CHECK: enc.add_positions %[[X]], %[[POS]] {position_offset = 2 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  %4 = enc.add_positions %x, %pos {position_offset = 2 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.embed_tokens %[[IDS]], %[[TOK]] positions(%[[POS]]) {position_offset = 2 : i64, scale = 1.000000e+00 : f32}
  %5 = enc.embed_tokens %ids, %tok positions(%pos) {position_offset = 2 : i64, scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.add_positions %[[X]], %[[POS]] : (
  %6 = enc.add_positions %x, %pos {position_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %0, %1, %2, %3 : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @linear_family
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[R:[^:]*]]: tensor<?x?x32xf32>)
func.func @linear_family(%x: tensor<?x?x8xf32>, %r: tensor<?x?x32xf32>)
    -> (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>) {
  // CHECK: %[[W:.*]] = enc.weight "blocks.0.ffn.up.weight" : tensor<32x8xf32>
  // CHECK: %[[B:.*]] = enc.weight "blocks.0.ffn.up.bias" : tensor<32xf32>
  %w = enc.weight "blocks.0.ffn.up.weight" : tensor<32x8xf32>
  %b = enc.weight "blocks.0.ffn.up.bias" : tensor<32xf32>
  // The default activation (none) is not printed.
  // CHECK: %[[L0:.*]] = enc.linear %[[X]], %[[W]] : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x32xf32>
  %0 = enc.linear %x, %w {activation = #enc<activation none>} : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x32xf32>
  // CHECK: %[[L1:.*]] = enc.linear %[[X]], %[[W]] bias(%[[B]]) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %1 = enc.linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  // CHECK: enc.linear %[[X]], %[[W]] bias(%[[B]]) residual(%[[R]]) {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %2 = enc.linear %x, %w bias(%b) residual(%r) {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  // CHECK: enc.linear %[[X]], %[[W]] residual(%[[R]]) {activation = #enc<activation gelu_tanh>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %3 = enc.linear %x, %w residual(%r) {activation = #enc<activation gelu_tanh>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  // CHECK: %[[A:.*]] = enc.activation relu %[[L0]] : tensor<?x?x32xf32>
  %4 = enc.activation relu %0 : tensor<?x?x32xf32>
  // CHECK: enc.activation gelu %[[L1]] : tensor<?x?x32xf32>
  // CHECK: enc.activation gelu_tanh %[[L1]] : tensor<?x?x32xf32>
  %5 = enc.activation gelu %1 : tensor<?x?x32xf32>
  %6 = enc.activation gelu_tanh %1 : tensor<?x?x32xf32>
  // CHECK: enc.add %[[A]], %[[R]] : tensor<?x?x32xf32>
  %7 = enc.add %4, %r : tensor<?x?x32xf32>
  // A gated feed-forward layer's product.
  // CHECK: enc.mul %[[A]], %[[R]] : tensor<?x?x32xf32>
  %8 = enc.mul %4, %r : tensor<?x?x32xf32>
  // The same as one GEMM over [Wg; Wu], with and without the stacked biases.
  // CHECK: %[[WGU:.*]] = enc.concat_weights %[[W]], %[[W]] : tensor<32x8xf32>, tensor<32x8xf32> -> tensor<64x8xf32>
  // CHECK: %[[BGU:.*]] = enc.concat_weights %[[B]], %[[B]] : tensor<32xf32>, tensor<32xf32> -> tensor<64xf32>
  // CHECK: enc.gated_linear %[[X]], %[[WGU]] bias(%[[BGU]]) {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<64x8xf32>, tensor<64xf32>) -> tensor<?x?x32xf32>
  // CHECK: enc.gated_linear %[[X]], %[[WGU]] : (tensor<?x?x8xf32>, tensor<64x8xf32>) -> tensor<?x?x32xf32>
  %wgu = enc.concat_weights %w, %w : tensor<32x8xf32>, tensor<32x8xf32> -> tensor<64x8xf32>
  %bgu = enc.concat_weights %b, %b : tensor<32xf32>, tensor<32xf32> -> tensor<64xf32>
  %9 = enc.gated_linear %x, %wgu bias(%bgu) {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<64x8xf32>, tensor<64xf32>) -> tensor<?x?x32xf32>
  %10 = enc.gated_linear %x, %wgu : (tensor<?x?x8xf32>, tensor<64x8xf32>) -> tensor<?x?x32xf32>
  return %2, %3, %5, %6, %7, %r : tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>
}

// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
func.func @norms(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  // CHECK: %[[G:.*]] = enc.weight "final_norm.weight" : tensor<8xf32>
  // CHECK: %[[B:.*]] = enc.weight "final_norm.bias" : tensor<8xf32>
  %g = enc.weight "final_norm.weight" : tensor<8xf32>
  %b = enc.weight "final_norm.bias" : tensor<8xf32>
  // CHECK: enc.norm layernorm %[[X]], %[[G]], %[[B]] {eps = 9.99999996E-13 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %0 = enc.norm layernorm %x, %g, %b {eps = 1.0e-12 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.norm rmsnorm %[[X]], %[[G]] {eps = 9.99999997E-7 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0, %1 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[QKV:[^:]*]]: tensor<?x?x24xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
func.func @attention(%qkv: tensor<?x?x24xf32>, %len: tensor<?xi32>)
    -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  // CHECK: %[[Q:.*]] = enc.slice_columns %[[QKV]] {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: %[[K:.*]] = enc.slice_columns %[[QKV]] {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: %[[V:.*]] = enc.slice_columns %[[QKV]] {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: %[[COS:.*]] = enc.positional_table {{ *}}rope_cos
  // CHECK: %[[SIN:.*]] = enc.positional_table {{ *}}rope_sin
  // CHECK: %[[SLOPES:.*]] = enc.positional_table {{ *}}alibi_slopes
  // CHECK: %[[BUCKETS:.*]] = enc.positional_table {{ *}}relative_buckets
  // CHECK: %[[REL:.*]] = enc.weight "relative.bias" : tensor<8x2xf32>
  %cos = enc.positional_table rope_cos {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<16x2xf32>
  %sin = enc.positional_table rope_sin {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<16x2xf32>
  %slopes = enc.positional_table alibi_slopes {dim = 2 : i64} : tensor<2xf32>
  %buckets = enc.positional_table relative_buckets {dim = 8 : i64, max_distance = 10 : i64} : tensor<31xi32>
  %rel = enc.weight "relative.bias" : tensor<8x2xf32>
  // CHECK: enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]] {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %0 = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  // CHECK: enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]] tables(%[[COS]], %[[SIN]]) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style interleaved>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<?x?x8xf32>
  %1 = enc.attention %q, %k, %v, %len tables(%cos, %sin) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style interleaved>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]] tables(%[[SLOPES]]) {heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  %2 = enc.attention %q, %k, %v, %len tables(%slopes) {heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]] tables(%[[BUCKETS]], %[[REL]]) {heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<31xi32>, tensor<8x2xf32>) -> tensor<?x?x8xf32>
  %3 = enc.attention %q, %k, %v, %len tables(%buckets, %rel) {heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<31xi32>, tensor<8x2xf32>) -> tensor<?x?x8xf32>
  // A local block: keys within window / 2 of the query.
  // CHECK: enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]] tables(%[[COS]], %[[SIN]]) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 5.000000e-01 : f32, window = 4 : i64}
  %4 = enc.attention %q, %k, %v, %len tables(%cos, %sin) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 0.5 : f32, window = 4 : i64} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<?x?x8xf32>
  return %0, %1, %2, %3 : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @attention_block
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
func.func @attention_block(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %wq = enc.weight "q.weight" : tensor<4x8xf32>
  // CHECK: %[[WKV:.*]] = enc.weight "kv.weight"
  %wkv = enc.weight "kv.weight" : tensor<8x8xf32>
  %wo = enc.weight "o.weight" : tensor<8x4xf32>
  %bq = enc.weight "q.bias" : tensor<4xf32>
  %bkv = enc.weight "kv.bias" : tensor<8xf32>
  %bo = enc.weight "o.bias" : tensor<8xf32>
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %b = enc.weight "norm.bias" : tensor<8xf32>
  %slopes = enc.positional_table alibi_slopes {dim = 2 : i64} : tensor<2xf32>
  // CHECK: enc.attention_block %[[X]], %{{.*}}, %[[WKV]], %[[LEN]], %{{.*}} {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xi32>, tensor<8x4xf32>) -> tensor<?x?x8xf32>
  %0 = enc.attention_block %x, %wq, %wkv, %len, %wo {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xi32>, tensor<8x4xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.attention_block %[[X]], %{{.*}}, %[[WKV]], %[[LEN]], %{{.*}} q_bias(%{{.*}}) kv_bias(%{{.*}}) out_bias(%{{.*}}) norm_gamma(%{{.*}}) norm_beta(%{{.*}}) tables(%{{.*}}) {heads = 2 : i64, norm = #enc<norm_kind layernorm>, norm_eps = 9.99999974E-6 : f32, positional = #enc<attn_positional alibi>, scale = 5.000000e-01 : f32, window = 4 : i64}
  %1 = enc.attention_block %x, %wq, %wkv, %len, %wo q_bias(%bq) kv_bias(%bkv) out_bias(%bo) norm_gamma(%g) norm_beta(%b) tables(%slopes) {heads = 2 : i64, norm = #enc<norm_kind layernorm>, norm_eps = 1.0e-5 : f32, positional = #enc<attn_positional alibi>, scale = 0.5 : f32, window = 4 : i64} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xi32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  return %0, %1 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @ffn_block
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
func.func @ffn_block(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %w1 = enc.weight "up.weight" : tensor<16x8xf32>
  %wg = enc.weight "gate_up.weight" : tensor<32x8xf32>
  %w2 = enc.weight "down.weight" : tensor<8x16xf32>
  %bg = enc.weight "gate_up.bias" : tensor<32xf32>
  %b2 = enc.weight "down.bias" : tensor<8xf32>
  %g = enc.weight "norm.weight" : tensor<8xf32>
  // CHECK: enc.ffn_block %[[X]], %{{.*}}, %{{.*}} {activation = #enc<activation relu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<?x?x8xf32>
  %0 = enc.ffn_block %x, %w1, %w2 {activation = #enc<activation relu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.ffn_block %[[X]], %{{.*}}, %{{.*}} hidden_bias(%{{.*}}) out_bias(%{{.*}}) norm_gamma(%{{.*}}) {activation = #enc<activation silu>, gated, norm = #enc<norm_kind rmsnorm>, norm_eps = 9.99999997E-7 : f32}
  %1 = enc.ffn_block %x, %wg, %w2 hidden_bias(%bg) out_bias(%b2) norm_gamma(%g) {activation = #enc<activation silu>, gated, norm = #enc<norm_kind rmsnorm>, norm_eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<8x16xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0, %1 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
func.func @pooling(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> (tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  // CHECK: enc.pool none %[[X]], %[[LEN]] : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  // CHECK: enc.pool cls %[[X]], %[[LEN]] : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  // CHECK: enc.pool mean %[[X]], %[[LEN]] : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  %0 = enc.pool none %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %1 = enc.pool cls %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  %2 = enc.pool mean %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  // CHECK: enc.pool mean %[[X]], %[[LEN]] {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  %3 = enc.pool mean %x, %len {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %0, %1, %2 : tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// max and last pooling; output_dim: the first columns.
// CHECK-LABEL: func.func @pooling_v3
func.func @pooling_v3(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> (tensor<?x8xf32>, tensor<?x3xf32>) {
  // CHECK: enc.pool max %{{.*}} -> tensor<?x8xf32>
  // CHECK: enc.pool last %{{.*}} {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x3xf32>
  %0 = enc.pool max %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  %1 = enc.pool last %x, %len {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x3xf32>
}

// CHECK-LABEL: func.func @classifier
func.func @classifier(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %wd: tensor<8x8xf32>, %bd: tensor<8xf32>, %wo: tensor<3x8xf32>, %bo: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  // CHECK: enc.classifier cls %{{.*}}, %{{.*}} dense(%{{.*}}) dense_bias(%{{.*}}) out(%{{.*}}, %{{.*}}) {activation = #enc<activation tanh>, scores = #enc<scores softmax>}
  %0 = enc.classifier cls %x, %len dense(%wd) dense_bias(%bd) out(%wo, %bo) {activation = #enc<activation tanh>, scores = #enc<scores softmax>} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: enc.classifier mean %{{.*}}, %{{.*}} out(%{{.*}}, %{{.*}}) :
  %1 = enc.classifier mean %x, %len out(%wo, %bo) : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// CHECK-LABEL: func.func @colbert
func.func @colbert(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<4x8xf32>) -> tensor<?x?x4xf32> {
  // CHECK: enc.colbert %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<4x8xf32>) -> tensor<?x?x4xf32>
  %0 = enc.colbert %x, %len, %w : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<4x8xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// CHECK-LABEL: func.func @mlm_and_splade
func.func @mlm_and_splade(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<50x8xf32>, %b: tensor<50xf32>) -> (tensor<?x?x50xf32>, tensor<?x50xf32>) {
  // CHECK: enc.mlm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x8xf32>, tensor<50xf32>) -> tensor<?x?x50xf32>
  %0 = enc.mlm %x, %len, %w, %b : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x8xf32>, tensor<50xf32>) -> tensor<?x?x50xf32>
  // CHECK: enc.splade %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x8xf32>, tensor<50xf32>) -> tensor<?x50xf32>
  %1 = enc.splade %x, %len, %w, %b : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<50x8xf32>, tensor<50xf32>) -> tensor<?x50xf32>
  return %0, %1 : tensor<?x?x50xf32>, tensor<?x50xf32>
}

// CHECK-LABEL: func.func @dense_head
func.func @dense_head(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>) -> (tensor<?x6xf32>, tensor<?x6xf32>) {
  // CHECK: enc.dense_head cls %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {activation = #enc<activation tanh>, normalize} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  %0 = enc.dense_head cls %x, %len, %w, %b {activation = #enc<activation tanh>, normalize} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  // CHECK: enc.dense_head mean %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>) -> tensor<?x6xf32>
  %1 = enc.dense_head mean %x, %len, %w : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<6x8xf32>) -> tensor<?x6xf32>
  return %0, %1 : tensor<?x6xf32>, tensor<?x6xf32>
}

// CHECK-LABEL: func.func @classifier_norm
func.func @classifier_norm(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>, %wd: tensor<8x8xf32>, %g: tensor<8xf32>, %wo: tensor<3x8xf32>, %bo: tensor<3xf32>) -> tensor<?x3xf32> {
  // CHECK: enc.classifier mean %{{.*}}, %{{.*}} dense(%{{.*}}) norm(%{{.*}}) out(%{{.*}}, %{{.*}}) {activation = #enc<activation gelu>, eps = 9.99999974E-6 : f32, norm_kind = #enc<norm_kind layernorm>}
  %0 = enc.classifier mean %x, %len dense(%wd) norm(%g) out(%wo, %bo) {activation = #enc<activation gelu>, norm_kind = #enc<norm_kind layernorm>, eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
