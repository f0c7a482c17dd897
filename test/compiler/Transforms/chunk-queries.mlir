// RUN: encc-opt %s --split-input-file --enc-chunk-queries | FileCheck %s
// A fused QKV projection, its attention and the output projection that adds
// to the QKV projection's input become one enc.attention_block, which takes
// the keys' and values' weights stacked (docs/c-abi.md#memory).

// CHECK-LABEL: func.func @prenorm
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
// CHECK-DAG: %[[G:.*]] = enc.weight "norm.weight"
// CHECK-DAG: %[[WQ:.*]] = enc.weight "q.weight"
// CHECK-DAG: %[[WK:.*]] = enc.weight "k.weight"
// CHECK-DAG: %[[WV:.*]] = enc.weight "v.weight"
// CHECK-DAG: %[[BQ:.*]] = enc.weight "q.bias"
// CHECK-DAG: %[[BK:.*]] = enc.weight "k.bias"
// CHECK-DAG: %[[BV:.*]] = enc.weight "v.bias"
// CHECK: %[[WKV:.*]] = enc.concat_weights %[[WK]], %[[WV]] : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[BKV:.*]] = enc.concat_weights %[[BK]], %[[BV]] : tensor<8xf32>, tensor<8xf32> -> tensor<16xf32>
// CHECK-DAG: %[[WO:.*]] = enc.weight "o.weight"
// CHECK-DAG: %[[BO:.*]] = enc.weight "o.bias"
// CHECK-NOT: enc.linear
// CHECK: %[[Y:.*]] = enc.attention_block %[[X]], %[[WQ]], %[[WKV]], %[[LEN]], %[[WO]] q_bias(%[[BQ]]) kv_bias(%[[BKV]]) out_bias(%[[BO]]) norm_gamma(%[[G]]) tables(%{{.*}}, %{{.*}}) {heads = 2 : i64, norm = #enc<norm_kind rmsnorm>, norm_eps = {{.*}}, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 5.000000e-01 : f32, window = 4 : i64}
// CHECK-NOT: enc.attention {{.*}}
// CHECK-NOT: -> tensor<24x8xf32>
// CHECK: return %[[Y]]
func.func @prenorm(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %bq = enc.weight "q.bias" : tensor<8xf32>
  %bk = enc.weight "k.bias" : tensor<8xf32>
  %bv = enc.weight "v.bias" : tensor<8xf32>
  %cos = enc.weight "cos" : tensor<4x2xf32>
  %sin = enc.weight "sin" : tensor<4x2xf32>
  %w = enc.concat_weights %wq, %wk, %wv : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  %b = enc.concat_weights %bq, %bk, %bv : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<24xf32>
  %qkv = enc.linear %x, %w bias(%b) norm_gamma(%g) {norm = #enc<norm_kind rmsnorm>, norm_eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8xf32>) -> tensor<?x?x24xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len tables(%cos, %sin) {heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 0.5 : f32, window = 4 : i64} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<?x?x8xf32>
  %wo = enc.weight "o.weight" : tensor<8x8xf32>
  %bo = enc.weight "o.bias" : tensor<8xf32>
  %y = enc.linear %a, %wo bias(%bo) residual(%x) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// The output projection adds to another value than the QKV projection's
// input: the queries' rows are not the residual's, so nothing changes.
// CHECK-LABEL: func.func @other_residual
// CHECK: enc.linear {{.*}} -> tensor<?x?x24xf32>
// CHECK: enc.attention
// CHECK-NOT: enc.attention_block
func.func @other_residual(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %w = enc.concat_weights %wq, %wk, %wv : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  %qkv = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %wo = enc.weight "o.weight" : tensor<8x8xf32>
  %y = enc.linear %a, %wo residual(%r) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// The attention's output has another reader: it must exist whole.
// CHECK-LABEL: func.func @output_read_twice
// CHECK-NOT: enc.attention_block
func.func @output_read_twice(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %w = enc.concat_weights %wq, %wk, %wv : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  %qkv = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %wo = enc.weight "o.weight" : tensor<8x8xf32>
  %y = enc.linear %a, %wo residual(%x) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y, %a : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}
