// RUN: encc-opt %s --enc-lower-to-runtime -verify-diagnostics
// Was a bug: a planned function whose enc.positional_table was never folded is
// refused with "not planned: run enc-plan-buffers first" on the table,
// although enc-plan-buffers did run (the table is not an arena buffer and
// never gets a row offset). The message should name the pass that is
// missing, enc-fold-positional.

func.func @unfolded(%x: tensor<?x?x8xf32> {enc.input = "embeddings"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 16 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  // expected-error @+1 {{enc-fold-positional}}
  %pe = enc.positional_table sinusoidal {dim = 8 : i64} : tensor<2x8xf32>
  %0 = enc.add_positions %x, %pe {enc.row_offset = 0 : i64} : (tensor<?x?x8xf32>, tensor<2x8xf32>) -> tensor<?x?x8xf32>
  %p = enc.pool none %0, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}
