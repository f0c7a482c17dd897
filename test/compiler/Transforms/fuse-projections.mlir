// RUN: encc-opt %s --split-input-file --enc-fuse-projections | FileCheck %s
// The Q, K and V projections of one attention become one linear over the
// row-concatenation of their weights (and biases), then three column views.

// CHECK-LABEL: func.func @biased
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
// CHECK-DAG: %[[WQ:.*]] = enc.weight "q.weight"
// CHECK-DAG: %[[WK:.*]] = enc.weight "k.weight"
// CHECK-DAG: %[[WV:.*]] = enc.weight "v.weight"
// CHECK-DAG: %[[BQ:.*]] = enc.weight "q.bias"
// CHECK-DAG: %[[BK:.*]] = enc.weight "k.bias"
// CHECK-DAG: %[[BV:.*]] = enc.weight "v.bias"
// CHECK-NOT: enc.linear
// CHECK: %[[W:.*]] = enc.concat_weights %[[WQ]], %[[WK]], %[[WV]] : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
// CHECK-NEXT: %[[B:.*]] = enc.concat_weights %[[BQ]], %[[BK]], %[[BV]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<24xf32>
// CHECK-NEXT: %[[QKV:.*]] = enc.linear %[[X]], %[[W]] bias(%[[B]]) : (tensor<?x?x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<?x?x24xf32>
// CHECK-NEXT: %[[Q:.*]] = enc.slice_columns %[[QKV]] {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
// CHECK-NEXT: %[[K:.*]] = enc.slice_columns %[[QKV]] {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
// CHECK-NEXT: %[[V:.*]] = enc.slice_columns %[[QKV]] {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
// CHECK-NEXT: %[[A:.*]] = enc.attention %[[Q]], %[[K]], %[[V]], %[[LEN]]
// CHECK-NEXT: return %[[A]]
func.func @biased(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %bq = enc.weight "q.bias" : tensor<8xf32>
  %q = enc.linear %x, %wq bias(%bq) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %bk = enc.weight "k.bias" : tensor<8xf32>
  %k = enc.linear %x, %wk bias(%bk) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %bv = enc.weight "v.bias" : tensor<8xf32>
  %v = enc.linear %x, %wv bias(%bv) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// bias = false: one concatenation, no bias.
// CHECK-LABEL: func.func @unbiased
// CHECK: %[[W:.*]] = enc.concat_weights %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
// CHECK-NOT: enc.concat_weights
// CHECK: %[[QKV:.*]] = enc.linear %{{.*}}, %[[W]] : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
// CHECK-COUNT-3: enc.slice_columns %[[QKV]]
// CHECK: enc.attention
func.func @unbiased(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %x, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %v = enc.linear %x, %wv : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// Mixed biases (only Q has one): left alone.
// CHECK-LABEL: func.func @mixed_bias
// CHECK-NOT: enc.concat_weights
// CHECK-NOT: enc.slice_columns
// CHECK-COUNT-3: enc.linear
// CHECK: enc.attention
func.func @mixed_bias(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %bq = enc.weight "q.bias" : tensor<8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq bias(%bq) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %x, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %v = enc.linear %x, %wv : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// K reads another input (cross-attention): left alone.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: enc.concat_weights
// CHECK-COUNT-3: enc.linear
func.func @different_inputs(%x: tensor<?x?x8xf32>, %y: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %y, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %v = enc.linear %x, %wv : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// V's projection has a second use: left alone.
// CHECK-LABEL: func.func @second_use
// CHECK-NOT: enc.concat_weights
// CHECK-COUNT-3: enc.linear
func.func @second_use(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %x, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %v = enc.linear %x, %wv : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a, %v : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// -----

// One linear feeds both K and V: not three projections.
// CHECK-LABEL: func.func @shared_projection
// CHECK-NOT: enc.concat_weights
// CHECK-COUNT-2: enc.linear
func.func @shared_projection(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %x, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %k, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// A projection with an epilogue is not a plain projection.
// CHECK-LABEL: func.func @epilogue
// CHECK-NOT: enc.concat_weights
// CHECK-COUNT-3: enc.linear
func.func @epilogue(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %wq = enc.weight "q.weight" : tensor<8x8xf32>
  %wk = enc.weight "k.weight" : tensor<8x8xf32>
  %wv = enc.weight "v.weight" : tensor<8x8xf32>
  %q = enc.linear %x, %wq {activation = #enc<activation relu>} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %k = enc.linear %x, %wk : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %v = enc.linear %x, %wv : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}
