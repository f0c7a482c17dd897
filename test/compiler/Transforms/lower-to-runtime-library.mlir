// RUN: encc-opt %s --enc-lower-to-runtime=library=true | FileCheck %s
// RUN: encc-opt %s --enc-lower-to-runtime | FileCheck %s --check-prefix=NOLIB
// With `library` (encc --emit=shared), the module also defines
// enc_library_encoders (enc/library.h): a constant table of the encoders in
// file order, each {abi_version, name, the facts of ModelABI.def's
// ENC_MODEL_INFO rows, a pointer per entry point}.

// CHECK-DAG: llvm.mlir.global private constant @enc_library_name0("alibi_cls\00")
// CHECK-DAG: llvm.mlir.global private constant @enc_library_name1("plain\00")
// CHECK: llvm.mlir.global internal constant @enc_library_table() {{.*}} : !llvm.array<2 x struct<(i32, ptr, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr)>> {
// Encoder 0: version 4, its name, d_model 8, heads 2, head_dim 4, d_ff 16,
// blocks 1, max_len 2, vocab 0, type_vocab 0, pooling 1 (cls), normalize 0,
// out_dim 8, head 0 (none), scores 0 (none).
// CHECK: %[[V:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %[[V]], %{{.*}}[0]
// CHECK: llvm.mlir.addressof @enc_library_name0
// CHECK-NEXT: llvm.insertvalue %{{.*}}[1]
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[2]
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3]
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4]
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[5]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[6]
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[7]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[8]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[9]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[10]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[11]
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[12]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[13]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[14]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_load
// CHECK-NEXT: llvm.insertvalue %{{.*}}[15]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_forward
// CHECK-NEXT: llvm.insertvalue %{{.*}}[16]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_free
// CHECK-NEXT: llvm.insertvalue %{{.*}}[17]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_workspace_bytes
// CHECK-NEXT: llvm.insertvalue %{{.*}}[18]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_forward_attention
// CHECK-NEXT: llvm.insertvalue %{{.*}}[19]
// CHECK-NEXT: llvm.mlir.addressof @alibi_cls_pack
// CHECK-NEXT: llvm.insertvalue %{{.*}}[20]
// CHECK-NEXT: llvm.insertvalue %{{.*}}[0]
// Encoder 1: no attention (head_dim 0), max_len 4, pooling 0 (none).
// CHECK: llvm.mlir.addressof @enc_library_name1
// CHECK: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4]
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[7]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[8]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[9]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[10]
// CHECK: llvm.mlir.addressof @plain_forward_attention
// CHECK-NEXT: llvm.insertvalue %{{.*}}[19]
// CHECK-NEXT: llvm.mlir.addressof @plain_pack
// CHECK-NEXT: llvm.insertvalue %{{.*}}[20]
// CHECK-NEXT: llvm.insertvalue %{{.*}}[1]
// enc_library_encoders(count): *count = 2 when count is not NULL.
// CHECK: llvm.func @enc_library_encoders(%[[COUNT:.*]]: !llvm.ptr) -> !llvm.ptr {
// CHECK: llvm.icmp "ne" %[[COUNT]], %{{.*}} : !llvm.ptr
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK: llvm.store %{{.*}}, %[[COUNT]]
// CHECK: llvm.mlir.addressof @enc_library_table
// NOLIB-NOT: enc_library
func.func @alibi_cls(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32>
    attributes {enc.arena_row_floats = 64 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %pe = arith.constant dense<0.5> : tensor<2x8xf32>
  %0 = enc.add_positions %x, %pe {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  %slopes = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %a = enc.attention %0, %0, %0, %len tables(%slopes) {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool cls %a, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}
func.func @plain(%x: tensor<?x?x8xf32> {enc.input = "embeddings", enc.row_offset = 0 : i64}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %g = enc.weight "final_norm.weight" : tensor<8xf32>
  %0 = enc.norm rmsnorm %x, %g {enc.row_offset = 16 : i64, eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}
