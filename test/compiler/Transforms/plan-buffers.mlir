// RUN: encc-opt %s --split-input-file --enc-plan-buffers --verify-diagnostics | FileCheck %s
// Every activation gets a row offset in one arena (in floats per row, a
// multiple of 16); a buffer is freed after its last use (views included) and
// the lowest free interval that fits is taken (first fit). The function
// records the arena's row width.

// A chain of width-8 activations (16 floats per row each, after alignment).
// The elementwise ops may write over their first operand (InPlaceWritable):
// they do when nothing after them reads it.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: enc.arena_row_floats = 32 : i64
func.func @chain(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // The caller's input is not in the arena: a fresh buffer.
  // CHECK: %[[A:.*]] = enc.activation relu %{{.*}} {enc.row_offset = 0 : i64}
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  // %0 dies here: the result takes its place.
  // CHECK: %[[B:.*]] = enc.activation gelu %[[A]] {enc.in_place_of = 0 : i64}
  %1 = enc.activation gelu %0 : tensor<?x?x8xf32>
  // %1 is read again below: [16, 32), the arena's high mark.
  // CHECK: %[[C:.*]] = enc.activation relu %[[B]] {enc.row_offset = 16 : i64}
  %2 = enc.activation relu %1 : tensor<?x?x8xf32>
  // CHECK: enc.add %[[C]], %[[B]] {enc.in_place_of = 0 : i64}
  %3 = enc.add %2, %1 : tensor<?x?x8xf32>
  return %3 : tensor<?x?x8xf32>
}

// -----

// First fit skips a hole that is too small. Widths: 8 -> 16 floats per row,
// 32 -> 32, 24 -> 32 (rounded up to a multiple of 16). A linear layer
// without a residual always writes fresh memory.
// CHECK-LABEL: func.func @first_fit
// CHECK-SAME: enc.arena_row_floats = 96 : i64
func.func @first_fit(%x: tensor<?x?x8xf32>) -> (tensor<?x?x32xf32>, tensor<?x?x24xf32>) {
  %w = enc.weight "w" : tensor<32x8xf32>
  %u = enc.weight "u" : tensor<8x8xf32>
  %v = enc.weight "v" : tensor<24x8xf32>
  // CHECK: enc.weight "w"
  // CHECK-NOT: enc.row_offset
  // CHECK: enc.activation relu %{{.*}} {enc.row_offset = 0 : i64}
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  // CHECK: enc.linear {{.*}} {enc.row_offset = 16 : i64}
  %1 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x32xf32>
  // CHECK: enc.linear {{.*}} {enc.row_offset = 48 : i64}
  %2 = enc.linear %0, %u : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  // [0, 16) is free again but 16 < 32 floats: the next fit is at 64.
  // CHECK: enc.linear {{.*}} {enc.row_offset = 64 : i64}
  %3 = enc.linear %2, %v : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  return %1, %3 : tensor<?x?x32xf32>, tensor<?x?x24xf32>
}

// -----

// The three column views of a fused QKV keep its buffer alive until the
// attention that reads them. The attention's output replaces q's columns
// (k and v are other columns of the same rows): no buffer of its own.
// CHECK-LABEL: func.func @slices
// CHECK-SAME: enc.arena_row_floats = 32 : i64
func.func @slices(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "qkv.weight" : tensor<24x8xf32>
  // CHECK: %[[QKV:.*]] = enc.linear {{.*}} {enc.row_offset = 0 : i64}
  %qkv = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  // Views are not buffers.
  // CHECK-COUNT-3: enc.slice_columns %[[QKV]] {offset = {{[0-9]+}} : i64} :
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: %[[A:.*]] = enc.attention {{.*}}enc.in_place_of = 0 : i64
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  // The group (QKV and the attention's output) lives on to here.
  // CHECK: %[[R:.*]] = enc.activation relu %[[A]] {enc.in_place_of = 0 : i64}
  %r = enc.activation relu %a : tensor<?x?x8xf32>
  // The pool writes the caller's output, not the arena.
  // CHECK: enc.pool none %[[R]], %{{[^ ]*}} :
  %p = enc.pool none %r, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// A view's use late in the block keeps the base alive that long.
// CHECK-LABEL: func.func @late_view_use
// CHECK-SAME: enc.arena_row_floats = 64 : i64
func.func @late_view_use(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<24x8xf32>
  %u = enc.weight "u" : tensor<8x8xf32>
  // CHECK: enc.linear {{.*}} {enc.row_offset = 0 : i64}
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  %1 = enc.slice_columns %0 {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: enc.activation relu {{.*}} {enc.row_offset = 32 : i64}
  %2 = enc.activation relu %x : tensor<?x?x8xf32>
  // CHECK: enc.linear {{.*}} {enc.row_offset = 48 : i64}
  %3 = enc.linear %2, %u : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.add {{.*}} {enc.in_place_of = 0 : i64}
  %4 = enc.add %3, %1 : tensor<?x?x8xf32>
  return %4 : tensor<?x?x8xf32>
}

// -----

// A function with no activations has an empty arena; a declaration is left
// alone.
// CHECK-LABEL: func.func private @external(
// CHECK-NOT: enc.arena_row_floats
// CHECK-LABEL: func.func @empty
// CHECK-SAME: enc.arena_row_floats = 0 : i64
func.func private @external(tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
func.func @empty(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  return %x : tensor<?x?x8xf32>
}

// -----

// expected-error @+1 {{enc-plan-buffers expects a single-block function}}
func.func @two_blocks(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  llvm.br ^bb1
^bb1:
  return %x : tensor<?x?x8xf32>
}

// -----

// Activations hold valid rows only, but the `embeddings` input is padded: when
// an op other than enc.add_positions reads it, it gets the first buffer (the
// lowering packs it there) and keeps it while it is read.
// CHECK-LABEL: func.func @packed_input
// CHECK-SAME: enc.row_offset = 0 : i64
// CHECK-SAME: enc.arena_row_floats = 32 : i64
func.func @packed_input(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}) -> tensor<?x?x8xf32> {
  // CHECK: enc.activation relu %{{.*}} {enc.row_offset = 16 : i64}
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  // %0 dies here; the packed input does too, but it is the second operand.
  // CHECK: enc.add %{{.*}}, %{{.*}} {enc.in_place_of = 0 : i64}
  %1 = enc.add %0, %x : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// enc.add_positions packs as it adds: the input needs no buffer of its own.
// CHECK-LABEL: func.func @positions_pack
// CHECK-NOT: enc.row_offset = 0 : i64}
// CHECK-SAME: enc.arena_row_floats = 16 : i64
func.func @positions_pack(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %pe: tensor<4x8xf32>) -> tensor<?x?x8xf32> {
  // CHECK: enc.add_positions %{{.*}}, %{{.*}} {enc.row_offset = 0 : i64}
  %0 = enc.add_positions %x, %pe : (tensor<?x?x8xf32>, tensor<4x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.activation relu %{{.*}} {enc.in_place_of = 0 : i64}
  %1 = enc.activation relu %0 : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// A residual stream in one buffer: a linear layer writes over its residual
// when it has no activation and nothing later reads the residual; with an
// activation (enc_gemm keeps partial sums in y), or a later reader, or its
// input in the residual's buffer, it writes fresh memory. (The residual is
// operand 2 here, with no bias.)
// CHECK-LABEL: func.func @residual_in_place
// CHECK-SAME: enc.arena_row_floats = 64 : i64
func.func @residual_in_place(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %w = enc.weight "w" : tensor<8x8xf32>
  // CHECK: %[[H:.*]] = enc.linear {{.*}} {enc.row_offset = 0 : i64}
  %h = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: %[[G:.*]] = enc.linear {{.*}} {enc.row_offset = 16 : i64}
  %g = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  // An activation: fresh.
  // CHECK: %[[A:.*]] = enc.linear %[[G]], %{{.*}} residual(%[[H]]) {activation = #enc<activation relu>, enc.row_offset = 32 : i64}
  %a = enc.linear %g, %w residual(%h) {activation = #enc<activation relu>} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  // %h is read again below: fresh, in [16, 32), free since %g died.
  // CHECK: %[[B:.*]] = enc.linear %[[A]], %{{.*}} residual(%[[H]]) {enc.row_offset = 16 : i64}
  %b = enc.linear %a, %w residual(%h) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  // The input is the residual itself: fresh.
  // CHECK: %[[C:.*]] = enc.linear %[[H]], %{{.*}} residual(%[[H]]) {enc.row_offset = 48 : i64}
  %c = enc.linear %h, %w residual(%h) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  // %b dies here: in place, and again over that result.
  // CHECK: %[[D:.*]] = enc.linear %[[C]], %{{.*}} residual(%[[B]]) {enc.in_place_of = 2 : i64}
  %d = enc.linear %c, %w residual(%b) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.linear %[[A]], %{{.*}} residual(%[[D]]) {enc.in_place_of = 2 : i64}
  %e = enc.linear %a, %w residual(%d) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %c, %e : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// -----

// The attention writes fresh memory when q's buffer is read after it.
// CHECK-LABEL: func.func @queries_read_later
// CHECK-SAME: enc.arena_row_floats = 48 : i64
func.func @queries_read_later(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "qkv.weight" : tensor<24x8xf32>
  // CHECK: enc.linear {{.*}} {enc.row_offset = 0 : i64}
  %qkv = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %k = enc.slice_columns %qkv {offset = 8 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  // CHECK: enc.attention {{.*}}enc.row_offset = 32 : i64
  %a = enc.attention %q, %k, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  // CHECK: enc.add {{.*}} {enc.in_place_of = 0 : i64}
  %s = enc.add %a, %q : tensor<?x?x8xf32>
  return %s : tensor<?x?x8xf32>
}

// -----

// q and k the same columns: the kernel could not write over q.
// CHECK-LABEL: func.func @queries_are_keys
// CHECK: enc.attention {{.*}}enc.row_offset = 32 : i64
func.func @queries_are_keys(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "qkv.weight" : tensor<24x8xf32>
  %qkv = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<24x8xf32>) -> tensor<?x?x24xf32>
  %q = enc.slice_columns %qkv {offset = 0 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %v = enc.slice_columns %qkv {offset = 16 : i64} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>
  %a = enc.attention %q, %q, %v, %len {heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %a : tensor<?x?x8xf32>
}

// -----

// An encoder that returns its hidden states keeps the residual stream in the
// caller's `out`: the group `enc.pool none` reads, as wide as the output,
// takes no arena (enc.in_output) and the pool unpacks it in place. Only the
// fresh buffers beside it take the arena.
// CHECK-LABEL: func.func @stream_in_output
// CHECK-SAME: enc.arena_row_floats = 16 : i64
func.func @stream_in_output(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %pe: tensor<4x8xf32>, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<8x8xf32>
  // CHECK: %[[X:.*]] = enc.add_positions %{{.*}}, %{{.*}} {enc.in_output}
  %0 = enc.add_positions %x, %pe : (tensor<?x?x8xf32>, tensor<4x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: %[[H:.*]] = enc.activation relu %[[X]] {enc.row_offset = 0 : i64}
  %h = enc.activation relu %0 : tensor<?x?x8xf32>
  // CHECK: %[[Y:.*]] = enc.linear %[[H]], %{{.*}} residual(%[[X]]) {enc.in_place_of = 2 : i64}
  %y = enc.linear %h, %w residual(%0) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  // CHECK: enc.pool none %[[Y]], %{{.*}} {normalize}
  %p = enc.pool none %y, %len {normalize} : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// The packed copy of the `embeddings` input goes to `out` too when it heads
// that group.
// CHECK-LABEL: func.func @packed_input_in_output
// CHECK-SAME: enc.in_output
// CHECK-SAME: enc.arena_row_floats = 0 : i64
func.func @packed_input_in_output(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32> {
  // CHECK: enc.activation relu %{{.*}} {enc.in_place_of = 0 : i64}
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// A pooled output (one row per sequence) leaves the stream in the arena.
// CHECK-LABEL: func.func @pooled_stays
// CHECK-SAME: enc.arena_row_floats = 16 : i64
// CHECK-NOT: enc.in_output
func.func @pooled_stays(%x: tensor<?x?x8xf32>, %len: tensor<?xi32>) -> tensor<?x8xf32> {
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  %p = enc.pool mean %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}
