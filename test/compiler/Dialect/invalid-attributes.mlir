// RUN: encc-opt %s --split-input-file -verify-diagnostics
// The IR contract's attributes (EncDialect.td's discardableAttrs): the
// dialect verifies their types, values and places, so that the passes and
// the lowering read them without checks of their own.

// expected-error @+1 {{argument #0 has no enc.input field}}
func.func @no_input_field(%x: tensor<?x?x8xf32>, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32>
    attributes {enc.arena_row_floats = 0 : i64, enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  %p = enc.pool none %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// The enc_input fields are those of enc/runtime.h's struct.
// expected-error @+1 {{argument #0: unknown enc.input field 'pixels'}}
func.func @bad_input_field(%x: tensor<?x?x8xf32> {enc.input = "pixels"}, %len: tensor<?xi32> {enc.input = "lengths"}) -> tensor<?x?x8xf32> {
  %p = enc.pool none %x, %len : (tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %p : tensor<?x?x8xf32>
}

// -----

// batch and seq_len are fields of enc_input, but not tensors an argument reads.
// expected-error @+1 {{argument #0: unknown enc.input field 'batch'}}
func.func @scalar_input_field(%x: tensor<?x?x8xf32> {enc.input = "batch"}) {
  return
}

// -----

// expected-error @+1 {{argument #0: 'enc.input' must be a string, not 3 : i64}}
func.func @input_not_a_string(%x: tensor<?x?x8xf32> {enc.input = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{encoder function is missing 'enc.d_ff'}}
func.func @missing_fact(%len: tensor<?xi32> {enc.input = "lengths"})
    attributes {enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'enc.heads' (0) must be at least 1}}
func.func @zero_heads(%len: tensor<?xi32> {enc.input = "lengths"})
    attributes {enc.d_model = 8 : i64, enc.max_len = 2 : i64, enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 0 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  return
}

// -----

// expected-error @+1 {{'enc.max_len' must be an i64 integer, not "512"}}
func.func @string_fact(%len: tensor<?xi32> {enc.input = "lengths"})
    attributes {enc.d_model = 8 : i64, enc.max_len = "512", enc.vocab = 0 : i64, enc.type_vocab = 0 : i64, enc.heads = 2 : i64, enc.blocks = 1 : i64, enc.d_ff = 16 : i64} {
  return
}

// -----

func.func @negative_row_offset(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.row_offset' (-16) must be at least 0}}
  %0 = enc.activation relu %x {enc.row_offset = -16 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// enc.in_place_of names the operand the op's kernel may write over.
func.func @in_place_of_other_operand(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.in_place_of' (1) is not an operand this op's kernel may write over}}
  %0 = enc.add %x, %x {enc.in_place_of = 1 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @in_place_of_with_activation(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<8x8xf32>
  // expected-error @+1 {{'enc.in_place_of' (2) is not an operand this op's kernel may write over}}
  %0 = enc.linear %x, %w residual(%x) {activation = #enc<activation gelu>, enc.in_place_of = 2 : i64} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @in_place_of_not_writable(%x: tensor<?x?x8xf32>) -> tensor<?x?x16xf32> {
  %w = enc.weight "w" : tensor<32x8xf32>
  // expected-error @+1 {{'enc.in_place_of' (0) is not an operand this op's kernel may write over}}
  %0 = enc.gated_linear %x, %w {activation = #enc<activation gelu>, enc.in_place_of = 0 : i64} : (tensor<?x?x8xf32>, tensor<32x8xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

func.func @in_place_of_and_row_offset(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{has both 'enc.in_place_of' and 'enc.row_offset'}}
  %0 = enc.activation relu %x {enc.in_place_of = 0 : i64, enc.row_offset = 0 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// enc.in_output (the buffer lives in the caller's out) excludes an arena place.
func.func @in_output_and_row_offset(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{has both 'enc.in_output' and a place in the arena}}
  %0 = enc.activation relu %x {enc.in_output, enc.row_offset = 0 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @in_output_not_unit(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.in_output' is a unit attribute of an op with one result}}
  %0 = enc.activation relu %x {enc.in_output = 1 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// expected-error @+1 {{argument #0: has both 'enc.in_output' and 'enc.row_offset'}}
func.func @in_output_argument_with_offset(%x: tensor<?x?x8xf32> {enc.in_output, enc.row_offset = 0 : i64}) {
  return
}

// -----

func.func @input_on_an_op(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.input' belongs on a function argument}}
  %0 = enc.activation relu %x {enc.input = "tokens"} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @arena_on_an_op(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.arena_row_floats' belongs on a function}}
  %0 = enc.activation relu %x {enc.arena_row_floats = 16 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @unknown(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{unknown attribute 'enc.row_ofset' of the enc dialect}}
  %0 = enc.activation relu %x {enc.row_ofset = 16 : i64} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// expected-error @+1 {{argument #0: unknown argument attribute 'enc.d_model' of the enc dialect}}
func.func @fact_on_an_argument(%x: tensor<?x?x8xf32> {enc.d_model = 8 : i64}) {
  return
}

// -----

// expected-error @+1 {{'enc.precision' must be one of fp32, int8, bf16; not "int4"}}
func.func @unknown_precision(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> attributes {enc.precision = "int4"} {
  return %x : tensor<?x?x8xf32>
}

// -----

func.func @precision_on_an_op(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'enc.precision' belongs on a function}}
  %0 = enc.activation relu %x {enc.precision = "int8"} : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}
