// RUN: encc-opt %s -split-input-file -verify-diagnostics
// Was a bug: enc.add and enc.activation have no verifier, so a rank-0 (or any
// non-[batch, seq, width]) tensor is accepted, and enc-plan-buffers then
// crashes (SIGSEGV: getShape().back() of an empty shape):
//   encc-opt --enc-plan-buffers on
//     func.func @f(%a: tensor<f32>) -> tensor<f32> {
//       %0 = enc.add %a, %a : tensor<f32>
//       return %0 : tensor<f32> }
// Like every other op that writes an activation, they should require a
// [batch, seq, width] tensor with a static width.

func.func @add_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'enc.add' op}}
  %0 = enc.add %a, %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @activation_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'enc.activation' op}}
  %0 = enc.activation relu %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mul_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'enc.mul' op}}
  %0 = enc.mul %a, %a : tensor<f32>
  return %0 : tensor<f32>
}
