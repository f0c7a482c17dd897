// RUN: encc-opt %s -split-input-file -verify-diagnostics
// Was a bug: ConcatWeightsOp::verify reads shape()[0] of a rank-0 part without
// checking the rank first, and encc-opt crashes (SIGSEGV in the verifier)
// instead of reporting an error. Weights are rank 1 or 2, so a rank-0 part
// must be rejected with a diagnostic.

func.func @concat_scalars(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'enc.concat_weights' op}}
  %0 = enc.concat_weights %a, %a : tensor<f32>, tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @concat_scalar_result(%a: tensor<8xf32>) -> tensor<f32> {
  // This one already works: the result's rank differs from part #0's.
  // expected-error @+1 {{'enc.concat_weights' op result is [], but the parts stack to 16 rows}}
  %0 = enc.concat_weights %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
