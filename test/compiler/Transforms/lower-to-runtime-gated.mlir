// RUN: encc-opt %s --enc-lower-to-runtime | FileCheck %s
// enc.gated_linear: one slot of kind ENC_SLOT_PACKED_GATED (3) holding the
// gate and up weights as two parts, a vector slot of both biases, and one
// enc_gemm_gated call whose up bias starts d_ff (16) floats into that vector.

// Slots: [Wg; Wu] (kind 3, 2 parts of 16 rows, 8 columns), [bg; bu] (a
// vector, kind 0, 2 parts), down.weight.
// CHECK-LABEL: llvm.mlir.global internal constant @gated_weights()
// CHECK: %[[KIND:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %[[KIND]], %{{.*}}[0]
// CHECK-NEXT: %[[PARTS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %[[PARTS]], %{{.*}}[1]
// CHECK: llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 0]
// CHECK: llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 1]
// CHECK: llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4]
// CHECK: llvm.mlir.undef
// CHECK-NEXT: %[[VKIND:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %[[VKIND]], %{{.*}}[0]
// CHECK-NEXT: %[[VPARTS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %[[VPARTS]], %{{.*}}[1]

// CHECK-LABEL: llvm.func internal @gated.forward_body(
// CHECK: %[[N:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[UP:.*]] = llvm.getelementptr %[[BIAS:[0-9]+]][%[[N]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[SILU:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: llvm.call @enc_gemm_gated(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]], %[[UP]], %[[SILU]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> i32
// CHECK-NOT: llvm.call @enc_mul_rows
// CHECK: llvm.call @enc_gemm(
// CHECK: llvm.call @enc_pool(
func.func @gated(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %wg = enc.weight "blocks.0.ffn.gate.weight" : tensor<16x8xf32>
  %wu = enc.weight "blocks.0.ffn.up.weight" : tensor<16x8xf32>
  %bg = enc.weight "blocks.0.ffn.gate.bias" : tensor<16xf32>
  %bu = enc.weight "blocks.0.ffn.up.bias" : tensor<16xf32>
  %wd = enc.weight "blocks.0.ffn.down.weight" : tensor<8x16xf32>
  %w = enc.concat_weights %wg, %wu : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  %b = enc.concat_weights %bg, %bu : tensor<16xf32>, tensor<16xf32> -> tensor<32xf32>
  %0 = enc.gated_linear %x, %w bias(%b) {enc.row_offset = 0 : i64, activation = #enc<activation silu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %0, %wd residual(%x) {enc.row_offset = 16 : i64} : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool mean %1, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

// With a norm prologue: enc_gemm_gated_normed, the norm's kind, gamma, beta
// (none here) and eps first.
// CHECK-LABEL: llvm.func internal @gated_normed.forward_body(
// CHECK: %[[EPS:.*]] = llvm.mlir.constant(9.99999997E-7 : f32) : f32
// CHECK: llvm.call @enc_gemm_gated_normed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[EPS]], {{.*}}) : (i32, !llvm.ptr, !llvm.ptr, f32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> i32
func.func @gated_normed(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %g = enc.weight "blocks.0.norm2.weight" : tensor<8xf32>
  %wg = enc.weight "blocks.0.ffn.gate.weight" : tensor<16x8xf32>
  %wu = enc.weight "blocks.0.ffn.up.weight" : tensor<16x8xf32>
  %wd = enc.weight "blocks.0.ffn.down.weight" : tensor<8x16xf32>
  %w = enc.concat_weights %wg, %wu : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  %0 = enc.gated_linear %x, %w norm_gamma(%g) {enc.row_offset = 0 : i64, activation = #enc<activation silu>, norm = #enc<norm_kind rmsnorm>, norm_eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.linear %0, %wd residual(%x) {enc.row_offset = 16 : i64} : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool mean %1, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}
