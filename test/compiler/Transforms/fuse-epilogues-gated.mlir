// RUN: encc-opt %s --split-input-file --enc-fuse-epilogues | FileCheck %s
// RUN: encc-opt %s --split-input-file --enc-fuse-epilogues --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// A gated FFN, mul(linear {act}(x, Wg), linear(x, Wu)), becomes one
// enc.gated_linear over the stacked weights, located at all three ops; what
// does not have that form stays as it is.

// CHECK-LABEL: func.func @gated
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
// CHECK-DAG: %[[WG:.*]] = enc.weight "ffn.gate.weight" : tensor<16x8xf32>
// CHECK-DAG: %[[BG:.*]] = enc.weight "ffn.gate.bias" : tensor<16xf32>
// CHECK-DAG: %[[WU:.*]] = enc.weight "ffn.up.weight" : tensor<16x8xf32>
// CHECK-DAG: %[[BU:.*]] = enc.weight "ffn.up.bias" : tensor<16xf32>
// CHECK: %[[W:.*]] = enc.concat_weights %[[WG]], %[[WU]] : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
// CHECK: %[[B:.*]] = enc.concat_weights %[[BG]], %[[BU]] : tensor<16xf32>, tensor<16xf32> -> tensor<32xf32>
// CHECK: %[[H:.*]] = enc.gated_linear %[[X]], %[[W]] bias(%[[B]]) {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x16xf32>
// CHECK-NOT: enc.linear
// CHECK-NOT: enc.mul
// CHECK-NOT: enc.activation
// CHECK: return %[[H]]
// LOC-LABEL: func.func @gated
// LOC: enc.gated_linear {{.*}} loc(#[[FUSED:[a-z0-9]+]])
// LOC: #[[FUSED]] = loc(fused[#{{.*}}, #{{.*}}, #{{.*}}])
func.func @gated(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "ffn.gate.weight" : tensor<16x8xf32>
  %bg = enc.weight "ffn.gate.bias" : tensor<16xf32>
  %wu = enc.weight "ffn.up.weight" : tensor<16x8xf32>
  %bu = enc.weight "ffn.up.bias" : tensor<16xf32>
  %0 = enc.linear %x, %wg bias(%bg) : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32> loc("gate")
  %1 = enc.activation silu %0 : tensor<?x?x16xf32> loc("act")
  %2 = enc.linear %x, %wu bias(%bu) : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32> loc("up")
  %3 = enc.mul %1, %2 : tensor<?x?x16xf32> loc("mul")
  return %3 : tensor<?x?x16xf32>
}

// -----

// The up projection on the left, no biases: the activated one is the gate.
// CHECK-LABEL: func.func @up_on_the_left
// CHECK: %[[W:.*]] = enc.concat_weights %{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
// CHECK: enc.gated_linear %{{.*}}, %[[W]] {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x16xf32>
// CHECK-NOT: enc.mul
func.func @up_on_the_left(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.activation gelu %0 : tensor<?x?x16xf32>
  %2 = enc.linear %x, %wu : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %3 = enc.mul %2, %1 : tensor<?x?x16xf32>
  return %3 : tensor<?x?x16xf32>
}

// -----

// Neither activated (a bilinear GLU): the left one is the gate, no activation.
// CHECK-LABEL: func.func @bilinear
// CHECK: %[[W:.*]] = enc.concat_weights %[[L:[^,]*]], %[[R:[^ ]*]] :
// CHECK: enc.gated_linear %{{.*}}, %[[W]] : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x16xf32>
func.func @bilinear(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %x, %wu : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %2 = enc.mul %0, %1 : tensor<?x?x16xf32>
  return %2 : tensor<?x?x16xf32>
}

// -----

// Not fused: the projections read different inputs.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: enc.gated_linear
// CHECK: enc.mul
func.func @different_inputs(%x: tensor<?x?x8xf32>, %z: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %z, %wu : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %2 = enc.mul %0, %1 : tensor<?x?x16xf32>
  return %2 : tensor<?x?x16xf32>
}

// -----

// Not fused: the up projection has another use.
// CHECK-LABEL: func.func @up_used_twice
// CHECK-NOT: enc.gated_linear
// CHECK: enc.mul
func.func @up_used_twice(%x: tensor<?x?x8xf32>) -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %x, %wu : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %2 = enc.mul %0, %1 : tensor<?x?x16xf32>
  return %2, %1 : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

// -----

// Not fused: one bias without the other; both projections activated.
// CHECK-LABEL: func.func @mixed_bias
// CHECK-NOT: enc.gated_linear
// CHECK: enc.mul
// CHECK-LABEL: func.func @both_activated
// CHECK-NOT: enc.gated_linear
// CHECK: enc.mul
func.func @mixed_bias(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %bg = enc.weight "gate.bias" : tensor<16xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg bias(%bg) {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %x, %wu : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %2 = enc.mul %0, %1 : tensor<?x?x16xf32>
  return %2 : tensor<?x?x16xf32>
}
func.func @both_activated(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %wg = enc.weight "gate" : tensor<16x8xf32>
  %wu = enc.weight "up" : tensor<16x8xf32>
  %0 = enc.linear %x, %wg {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %x, %wu {activation = #enc<activation relu>} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %2 = enc.mul %0, %1 : tensor<?x?x16xf32>
  return %2 : tensor<?x?x16xf32>
}
