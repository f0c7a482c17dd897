// RUN: encc-opt %s --split-input-file --enc-chunk-ffn | FileCheck %s
// A feed-forward layer's hidden projection, read only by the projection that
// adds back to its input, becomes one enc.ffn_block (docs/c-abi.md#memory).

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
// CHECK-DAG: %[[W1:.*]] = enc.weight "up.weight"
// CHECK-DAG: %[[B1:.*]] = enc.weight "up.bias"
// CHECK-DAG: %[[W2:.*]] = enc.weight "down.weight"
// CHECK-DAG: %[[B2:.*]] = enc.weight "down.bias"
// CHECK-NOT: enc.linear
// CHECK: %[[Y:.*]] = enc.ffn_block %[[X]], %[[W1]], %[[W2]] hidden_bias(%[[B1]]) out_bias(%[[B2]]) {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @plain(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w1 = enc.weight "up.weight" : tensor<16x8xf32>
  %b1 = enc.weight "up.bias" : tensor<16xf32>
  %h = enc.linear %x, %w1 bias(%b1) {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32>
  %w2 = enc.weight "down.weight" : tensor<8x16xf32>
  %b2 = enc.weight "down.bias" : tensor<8xf32>
  %y = enc.linear %h, %w2 bias(%b2) residual(%x) : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Gated, with the pre-norm prologue: the gate and up rows stay one packed
// weight, and the norm goes with them.
// CHECK-LABEL: func.func @gated
// CHECK: %[[Y:.*]] = enc.ffn_block %{{.*}}, %{{.*}}, %{{.*}} norm_gamma(%{{.*}}) {activation = #enc<activation silu>, gated, norm = #enc<norm_kind rmsnorm>, norm_eps = {{.*}}} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
// CHECK-NOT: enc.gated_linear
func.func @gated(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %wg = enc.weight "gate.weight" : tensor<16x8xf32>
  %wu = enc.weight "up.weight" : tensor<16x8xf32>
  %w = enc.concat_weights %wg, %wu : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  %h = enc.gated_linear %x, %w norm_gamma(%g) {activation = #enc<activation silu>, norm = #enc<norm_kind rmsnorm>, norm_eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<?x?x16xf32>
  %w2 = enc.weight "down.weight" : tensor<8x16xf32>
  %y = enc.linear %h, %w2 residual(%x) : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// The hidden activations have another reader: they must exist whole.
// CHECK-LABEL: func.func @hidden_read_twice
// CHECK-NOT: enc.ffn_block
func.func @hidden_read_twice(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x16xf32>) {
  %w1 = enc.weight "up.weight" : tensor<16x8xf32>
  %h = enc.linear %x, %w1 {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %w2 = enc.weight "down.weight" : tensor<8x16xf32>
  %y = enc.linear %h, %w2 residual(%x) : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y, %h : tensor<?x?x8xf32>, tensor<?x?x16xf32>
}

// -----

// The residual is not the hidden projection's input: nothing changes.
// CHECK-LABEL: func.func @other_residual
// CHECK-NOT: enc.ffn_block
func.func @other_residual(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w1 = enc.weight "up.weight" : tensor<16x8xf32>
  %h = enc.linear %x, %w1 {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %w2 = enc.weight "down.weight" : tensor<8x16xf32>
  %y = enc.linear %h, %w2 residual(%r) : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
