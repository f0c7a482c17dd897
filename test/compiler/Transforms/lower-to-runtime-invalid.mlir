// RUN: encc-opt %s --split-input-file --enc-lower-to-runtime -verify-diagnostics
// Without the split, the first encoder stops the pass:
// RUN: not encc-opt %s --enc-lower-to-runtime 2>&1 | FileCheck %s
// What enc-lower-to-runtime refuses, with its messages (what the dialect's
// verifier refuses first is in Dialect/invalid-attributes.mlir).

// CHECK: lower-to-runtime-invalid.mlir:[[@LINE+3]]:1: error: encoder 'unplanned' is not planned: run enc-plan-buffers first
// CHECK-NOT: error
// expected-error @+1 {{encoder 'unplanned' is not planned: run enc-plan-buffers first}}
func.func @unplanned(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %0 = enc.activation relu %x : tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// Planned as a function, but one op has no row offset.
func.func @op_unplanned(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 16 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %0 = enc.activation relu %x {enc.row_offset = 0 : i64} : tensor<?x?x8xf32>
  // expected-error @+1 {{not planned: run enc-plan-buffers first}}
  %1 = enc.activation gelu %0 : tensor<?x?x8xf32>
  %p = enc.pool none %1, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

func.func @returns_activation(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 16 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %0 = enc.activation relu %x {enc.row_offset = 0 : i64} : tensor<?x?x8xf32>
  // expected-error @+1 {{an encoder must return the result of enc.pool}}
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @shared_weight(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 8 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  // expected-error @+1 {{weight is used both as a packed matrix and as a table, which the loader cannot share}}
  %w = enc.weight "w" : tensor<8x8xf32>
  %0 = enc.linear %x, %w {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add_positions %0, %w {enc.row_offset = 16 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %1, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

func.func @concat_of_values(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}, %a: tensor<8x8xf32> {enc.input = "tokens"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 8 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  // expected-error @+1 {{concat_weights parts must be enc.weight ops}}
  %w = enc.concat_weights %a, %a : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  %0 = enc.linear %x, %w {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = enc.slice_columns %0 {offset = 0 : i64} : tensor<?x?x16xf32> -> tensor<?x?x8xf32>
  %p = enc.pool none %1, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

func.func @four_parts(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 32 : i64, enc.d_model = 8 : i64, enc.max_len = 8 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %a = enc.weight "a" : tensor<2x8xf32>
  // expected-error @+1 {{the loader concatenates at most 3 parts, not 4}}
  %w = enc.concat_weights %a, %a, %a, %a : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32> -> tensor<8x8xf32>
  %0 = enc.linear %x, %w {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// A Q view of a wider buffer next to K and V of their own: the kernel takes
// one row stride for all three.
func.func @strides(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 64 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %w = enc.weight "w" : tensor<16x8xf32>
  %0 = enc.linear %x, %w {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %q = enc.slice_columns %0 {offset = 0 : i64} : tensor<?x?x16xf32> -> tensor<?x?x8xf32>
  // expected-error @+1 {{q, k and v must share a row stride, not 16, 8 and 8}}
  %a = enc.attention %q, %x, %x, %len {enc.row_offset = 16 : i64, heads = 2 : i64, positional = #enc<attn_positional none>, scale = 0.5 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %a, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// Functions without enc.d_model are not encoders and are left alone.
func.func @helper(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  return %x : tensor<?x?x8xf32>
}

// -----

// Only a table may be read from the leading rows of a longer tensor.
func.func @extra_rows_matrix(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 16 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  // expected-error @+1 {{a weight with allow_extra_rows must be a table, but this one is a packed matrix}}
  %w = enc.weight "w" {allow_extra_rows} : tensor<8x8xf32>
  %0 = enc.linear %x, %w {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}
