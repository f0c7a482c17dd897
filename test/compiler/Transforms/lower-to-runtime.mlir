// RUN: encc-opt %s --split-input-file --enc-lower-to-runtime | FileCheck %s
// Each planned encoder function NAME becomes NAME_load, NAME_forward,
// NAME_free, NAME_workspace_bytes and NAME_forward_attention in the LLVM
// dialect, the two forward entries calling one always-inlined body
// (NAME.forward_body, with probs NULL from NAME_forward) that calls the
// runtime's kernels; weight descriptors and positional constants become
// globals.

// Embedding floats, sinusoidal-style positions, ALiBi and relative
// attention, an unfused activation and residual add, cls pooling.
// CHECK-LABEL: llvm.mlir.global private constant @floats_str0("relative.bias\00")
// One slot: relative.bias, a table (kind 2) of one part, [4, 2].
// CHECK: llvm.mlir.global internal constant @floats_weights() {{.*}} : !llvm.array<1 x struct<(i32, i32, array<3 x ptr>, array<3 x i64>, i64, i64, i32, i32)>> {
// CHECK: llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %{{.*}}[0]
// CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %{{.*}}[1]
// CHECK: llvm.mlir.addressof @floats_str0
// CHECK-NEXT: llvm.insertvalue %{{.*}}[2, 0]
// CHECK-NEXT: llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 0]
// CHECK: llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4]
// enc_model_info {d_model, max_len, vocab, type_vocab} = {8, 2, 0, 0}.
// CHECK: llvm.mlir.global internal constant @floats_info() {{.*}} : !llvm.struct<(i32, i32, i32, i32)> {
// CHECK: llvm.mlir.constant(8 : i32)
// CHECK: llvm.mlir.constant(2 : i32)
// The constants, flattened, 64-byte aligned.
// CHECK: llvm.mlir.global internal constant @floats_table0(dense<5.000000e-01> : tensor<16xf32>) {{{.*}}alignment = 64 : i64} : !llvm.array<16 x f32>
// CHECK: llvm.mlir.global internal constant @floats_table1(dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>) {{{.*}}alignment = 64 : i64} : !llvm.array<2 x f32>
// CHECK: llvm.mlir.global internal constant @floats_table2(dense<[1, 0, 2]> : tensor<3xi32>) {{{.*}}alignment = 64 : i64} : !llvm.array<3 x i32>
// The entry points, in the order of ModelABI.def.
// CHECK: llvm.func @floats_load(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32 {
// CHECK: llvm.call @enc_model_create(
// CHECK: llvm.func @floats_forward(%[[M:.*]]: !llvm.ptr, %[[IN:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr) -> i32 {
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.call @floats.forward_body(%[[M]], %[[IN]], %[[OUT]], %[[NULL]])
// CHECK: llvm.func @floats_free(%{{.*}}: !llvm.ptr) {
// CHECK: llvm.call @enc_model_destroy(
// 4 bytes * 64 floats per row = 256 bytes per row.
// CHECK: llvm.func @floats_workspace_bytes(%{{.*}}: i32, %{{.*}}: i32) -> i64 {
// CHECK: llvm.mlir.constant(256 : i64) : i64
// NAME_forward_attention refuses a NULL probs, then runs the body with it.
// CHECK: llvm.func @floats_forward_attention(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[PROBS:.*]]: !llvm.ptr) -> i32 {
// CHECK: llvm.call @enc_check_probs(%[[PROBS]],
// CHECK: llvm.call @floats.forward_body(%{{.*}}, %{{.*}}, %{{.*}}, %[[PROBS]])
// CHECK: llvm.func internal @floats.forward_body({{.*}}) -> i32 attributes {always_inline} {
// CHECK: llvm.call @enc_check_input(
// Row-wise kernels run over the valid rows only; the arena is what
// NAME_workspace_bytes says (plus room for the output when
// NAME_forward_attention is given no `out`).
// CHECK: %[[VALID:.*]] = llvm.call @enc_valid_rows(%{{.*}}, %{{.*}}, %[[LEN:.*]]) :
// CHECK: %[[BYTES:.*]] = llvm.call @floats_workspace_bytes(
// CHECK: %[[TOTAL:.*]] = llvm.add %[[BYTES]], %{{.*}} : i64
// CHECK: llvm.call @enc_workspace(%[[TOTAL]])
// The padded input is packed by its lengths as the positions are added.
// CHECK: llvm.call @enc_embed_floats(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LEN]],
// CHECK: llvm.call @enc_attention(
// CHECK: llvm.call @enc_activation_rows(%{{.*}}, %[[VALID]],
// CHECK: llvm.call @enc_add_rows(%[[VALID]],
// CHECK: llvm.call @enc_attention(
// CHECK: llvm.call @enc_pool(
// CHECK: llvm.return
// CHECK-NOT: func.func
func.func @floats(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32>
    attributes {enc.arena_row_floats = 64 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %pe = arith.constant dense<0.5> : tensor<2x8xf32>
  %0 = enc.add_positions %x, %pe {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  %slopes = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %a = enc.attention %0, %0, %0, %len tables(%slopes) {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional alibi>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2xf32>) -> tensor<?x?x8xf32>
  %1 = enc.activation gelu %a {enc.row_offset = 32 : i64} : tensor<?x?x8xf32>
  %2 = enc.add %1, %0 {enc.row_offset = 48 : i64} : tensor<?x?x8xf32>
  %buckets = arith.constant dense<[1, 0, 2]> : tensor<3xi32>
  %rel = enc.weight "relative.bias" : tensor<4x2xf32>
  %r = enc.attention %2, %2, %2, %len tables(%buckets, %rel) {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional relative>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<3xi32>, tensor<4x2xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool cls %r, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

// -----

// What encc --emit=mlir-opt gives for a small pre-norm RoPE encoder with
// tokens and token types (encoder tiny { d_model = 8; heads = 2; d_ff = 16;
// blocks = 1; max_len = 2; vocab = 10; type_vocab = 2; positional = rope;
// pooling = mean; norm = pre; }).
// 16 slots: tokens, types, norm1 (2), QKV weight and bias (concatenations),
// o (2), norm2 (2), up (2), down (2), final_norm (2).
// CHECK-LABEL: llvm.mlir.global internal constant @tiny_weights() {{.*}} : !llvm.array<16 x struct<(i32, i32, array<3 x ptr>, array<3 x i64>, i64, i64, i32, i32)>> {
// The concatenated QKV weight: 3 parts, 8 rows each, 8 columns (its kind,
// a packed matrix, is checked in LLVM IR by Emit/emit-llvm.enc).
// CHECK: llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: llvm.insertvalue %{{.*}}[1]
// CHECK: llvm.mlir.addressof @tiny_str{{[0-9]+}}
// CHECK-NEXT: llvm.insertvalue %{{.*}}[2, 0]
// CHECK: llvm.mlir.addressof @tiny_str{{[0-9]+}}
// CHECK-NEXT: llvm.insertvalue %{{.*}}[2, 1]
// CHECK: llvm.mlir.addressof @tiny_str{{[0-9]+}}
// CHECK-NEXT: llvm.insertvalue %{{.*}}[2, 2]
// CHECK-NEXT: llvm.mlir.constant(8 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 2]
// CHECK-NEXT: llvm.mlir.constant(8 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4]
// CHECK: llvm.mlir.global internal constant @tiny_info()
// CHECK: llvm.mlir.global internal constant @tiny_table0(dense<{{.*}}> : tensor<4xf32>)
// CHECK: llvm.mlir.global internal constant @tiny_table1(dense<{{.*}}> : tensor<4xf32>)
// CHECK: llvm.func @tiny_load(
// CHECK: llvm.func @tiny_forward(
// CHECK: llvm.func @tiny_free(
// CHECK: llvm.func @tiny_workspace_bytes(
// CHECK: llvm.mlir.constant(256 : i64) : i64
// CHECK: llvm.func @tiny_forward_attention(
// CHECK: llvm.func internal @tiny.forward_body(
// CHECK: llvm.call @enc_check_input(
// CHECK: llvm.call @enc_embed_tokens(
// CHECK: llvm.call @enc_norm(
// CHECK: llvm.call @enc_gemm(
// CHECK: llvm.call @enc_attention(
// CHECK: llvm.call @enc_gemm(
// CHECK: llvm.call @enc_norm(
// CHECK: llvm.call @enc_gemm(
// CHECK: llvm.call @enc_gemm(
// CHECK: llvm.call @enc_norm(
// CHECK: llvm.call @enc_pool(
// CHECK-NOT: llvm.call @enc_{{(activation_rows|add_rows)}}
// CHECK: llvm.return
func.func @tiny(%arg0: tensor<?x?xi32> {enc.input = "tokens"}, %arg1: tensor<?x?xi32> {enc.input = "token_types"}, %arg2: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32> attributes {enc.arena_row_floats = 64 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64, enc.d_model = 8 : i64, enc.heads = 2 : i64, enc.max_len = 2 : i64, enc.type_vocab = 2 : i64, enc.vocab = 10 : i64} {
  %cst = arith.constant dense<[[0.000000e+00, 0.000000e+00], [0.841470957, 0.00999983306]]> : tensor<2x2xf32>
  %cst_0 = arith.constant dense<[[1.000000e+00, 1.000000e+00], [0.540302277, 0.999949991]]> : tensor<2x2xf32>
  %0 = enc.weight "embed.tokens" : tensor<10x8xf32>
  %1 = enc.weight "embed.types" : tensor<2x8xf32>
  %2 = enc.embed_tokens %arg0, %0 types(%arg1, %1) {enc.row_offset = 0 : i64, scale = 1.000000e+00 : f32} : (tensor<?x?xi32>, tensor<10x8xf32>, tensor<?x?xi32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  %3 = enc.weight "blocks.0.norm1.weight" : tensor<8xf32>
  %4 = enc.weight "blocks.0.norm1.bias" : tensor<8xf32>
  %5 = enc.norm layernorm %2, %3, %4 {enc.row_offset = 16 : i64, eps = 9.99999974E-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %6 = enc.weight "blocks.0.attn.q.weight" : tensor<8x8xf32>
  %7 = enc.weight "blocks.0.attn.q.bias" : tensor<8xf32>
  %8 = enc.weight "blocks.0.attn.k.weight" : tensor<8x8xf32>
  %9 = enc.weight "blocks.0.attn.k.bias" : tensor<8xf32>
  %10 = enc.weight "blocks.0.attn.v.weight" : tensor<8x8xf32>
  %11 = enc.weight "blocks.0.attn.v.bias" : tensor<8xf32>
  %12 = enc.concat_weights %6, %8, %10 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<24x8xf32>
  %13 = enc.concat_weights %7, %9, %11 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<24xf32>
  %14 = enc.linear %5, %12 bias(%13) {enc.row_offset = 32 : i64} : (tensor<?x?x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<?x?x24xf32>
  %15 = enc.slice_columns %14 {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %16 = enc.slice_columns %14 {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %17 = enc.slice_columns %14 {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %18 = enc.attention %15, %16, %17, %arg2 tables(%cst_0, %cst) {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional rope>, rope_style = #enc<rope_style halves>, scale = 5.000000e-01 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<?x?x8xf32>
  %19 = enc.weight "blocks.0.attn.o.weight" : tensor<8x8xf32>
  %20 = enc.weight "blocks.0.attn.o.bias" : tensor<8xf32>
  %21 = enc.linear %18, %19 bias(%20) residual(%2) {enc.row_offset = 32 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %22 = enc.weight "blocks.0.norm2.weight" : tensor<8xf32>
  %23 = enc.weight "blocks.0.norm2.bias" : tensor<8xf32>
  %24 = enc.norm layernorm %21, %22, %23 {enc.row_offset = 0 : i64, eps = 9.99999974E-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %25 = enc.weight "blocks.0.ffn.up.weight" : tensor<16x8xf32>
  %26 = enc.weight "blocks.0.ffn.up.bias" : tensor<16xf32>
  %27 = enc.linear %24, %25 bias(%26) {activation = #enc<activation relu>, enc.row_offset = 16 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32>
  %28 = enc.weight "blocks.0.ffn.down.weight" : tensor<8x16xf32>
  %29 = enc.weight "blocks.0.ffn.down.bias" : tensor<8xf32>
  %30 = enc.linear %27, %28 bias(%29) residual(%21) {enc.row_offset = 0 : i64} : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %31 = enc.weight "final_norm.weight" : tensor<8xf32>
  %32 = enc.weight "final_norm.bias" : tensor<8xf32>
  %33 = enc.norm layernorm %30, %31, %32 {enc.row_offset = 16 : i64, eps = 9.99999974E-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %34 = enc.pool mean %33, %arg2 : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %34 : tensor<?x8xf32>
}

// -----

// A padded `embeddings` input that a norm reads directly has a buffer of its
// own (enc-plan-buffers): it is packed there, without positions, first.
// 16 floats of packed input + 16 of norm output per row, 4 bytes each.
// CHECK-LABEL: llvm.func @packed_workspace_bytes(
// CHECK: llvm.mlir.constant(128 : i64) : i64
// CHECK-LABEL: llvm.func internal @packed.forward_body(
// CHECK: %[[IN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @enc_workspace(
// CHECK: llvm.call @enc_embed_floats(%{{.*}}, %{{.*}}, %[[IN]],
// CHECK: llvm.call @enc_norm(
func.func @packed(%x: tensor<?x?x8xf32> {enc.input = "embeddings", enc.row_offset = 0 : i64}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %g = enc.weight "final_norm.weight" : tensor<8xf32>
  %0 = enc.norm rmsnorm %x, %g {enc.row_offset = 16 : i64, eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// Spec v2: learned positions from row 2 (position p reads row p + 2, so the
// table is passed from its third row, with 2 rows fewer), an unfused gated
// product, mean pooling with normalize.
// CHECK-LABEL: llvm.func @v2_forward(
// CHECK: %[[POS:.*]] = llvm.mlir.addressof @v2_table0
// CHECK: %[[STEP:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: %[[ROW2:.*]] = llvm.getelementptr %[[POS]][%[[STEP]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[ROWS:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: llvm.call @enc_embed_floats(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ROW2]], %[[ROWS]],
// CHECK: llvm.call @enc_mul_rows(
// CHECK: %[[MEAN:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[NORMALIZE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @enc_pool(%[[MEAN]], %[[NORMALIZE]],
func.func @v2(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %pe = arith.constant dense<0.5> : tensor<6x8xf32>
  %0 = enc.add_positions %x, %pe {enc.row_offset = 0 : i64, position_offset = 2 : i64} : (tensor<?x?x8xf32>, tensor<6x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.mul %0, %0 {enc.row_offset = 16 : i64} : tensor<?x?x8xf32>
  %p = enc.pool mean %1, %len {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

// -----

// A local block: enc_attention_params.window (its last field, 11) is the
// op's window.
// CHECK-LABEL: llvm.func @local_forward(
// CHECK: %[[W:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK: %[[F:.*]] = llvm.getelementptr %{{.*}}[0, 11] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, i32, i32, f32, i32, ptr, ptr, ptr, ptr, ptr, i32, i32, ptr)>
// CHECK-NEXT: llvm.store %[[W]], %[[F]] : i32, !llvm.ptr
// CHECK: llvm.call @enc_attention(
func.func @local(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 4 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %g = enc.weight "final_norm.weight" : tensor<8xf32>
  %0 = enc.norm rmsnorm %x, %g {enc.row_offset = 0 : i64, eps = 1.0e-6 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %a = enc.attention %0, %0, %0, %len {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32, window = 6 : i64} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %a, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}
