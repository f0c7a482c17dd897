// RUN: encc-opt %s --split-input-file --enc-fuse-norms | FileCheck %s
// RUN: encc-opt %s --split-input-file --enc-fuse-norms --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// A norm read only as the input of a projection becomes that projection's
// norm prologue (its kind, gamma, beta and eps), located at both ops; a norm
// read anywhere else stays an op of its own.

// CHECK-LABEL: func.func @pre_norm_linear
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
// CHECK-DAG: %[[G:.*]] = enc.weight "norm.weight"
// CHECK-DAG: %[[B:.*]] = enc.weight "norm.bias"
// CHECK-DAG: %[[W:.*]] = enc.weight "qkv.weight"
// CHECK-NOT: enc.norm
// CHECK: %[[Y:.*]] = enc.linear %[[X]], %[[W]] norm_gamma(%[[G]]) norm_beta(%[[B]]) {activation = #enc<activation gelu>, norm = #enc<norm_kind layernorm>, norm_eps = 9.99999974E-6 : f32}
// CHECK: return %[[Y]]
// LOC-LABEL: func.func @pre_norm_linear
// LOC: enc.linear {{.*}} loc(#[[FUSED:[a-z0-9]+]])
// LOC: #[[FUSED]] = loc(fused[#{{.*}}, #{{.*}}])
func.func @pre_norm_linear(%x: tensor<?x?x8xf32>) -> tensor<?x?x24xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %b = enc.weight "norm.bias" : tensor<8xf32>
  %w = enc.weight "qkv.weight" : tensor<24x8xf32>
  %n = enc.norm layernorm %x, %g, %b {eps = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32> loc("norm")
  %y = enc.linear %n, %w {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32> loc("proj")
  return %y : tensor<?x?x24xf32>
}

// -----

// RMSNorm into a gated FFN: gamma only.
// CHECK-LABEL: func.func @pre_norm_gated
// CHECK-NOT: enc.norm
// CHECK: enc.gated_linear %{{[^,]*}}, %{{[^ ]*}} norm_gamma(%{{[^)]*}}) {activation = #enc<activation silu>, norm = #enc<norm_kind rmsnorm>, norm_eps = 9.99999997E-7 : f32}
func.func @pre_norm_gated(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %w = enc.weight "ffn.weight" : tensor<32x8xf32>
  %n = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %y = enc.gated_linear %n, %w {activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// -----

// Read again (as a residual) or read as a residual only: the norm stays.
// CHECK-LABEL: func.func @norm_read_twice
// CHECK: enc.norm
// CHECK-NOT: norm_gamma
func.func @norm_read_twice(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %w = enc.weight "w" : tensor<8x8xf32>
  %n = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %y = enc.linear %n, %w residual(%n) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// CHECK-LABEL: func.func @norm_as_residual
// CHECK: enc.norm
// CHECK-NOT: norm_gamma
func.func @norm_as_residual(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %g = enc.weight "norm.weight" : tensor<8xf32>
  %w = enc.weight "w" : tensor<8x8xf32>
  %n = enc.norm rmsnorm %x, %g {eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %y = enc.linear %x, %w residual(%n) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
