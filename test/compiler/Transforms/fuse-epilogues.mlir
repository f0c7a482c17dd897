// RUN: encc-opt %s --split-input-file --enc-fuse-epilogues | FileCheck %s
// Activations and residual adds fold into the linear that feeds them;
// add_positions folds into the token gather.

// CHECK-LABEL: func.func @activation
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
// CHECK: %[[W:.*]] = enc.weight "up.weight"
// CHECK: %[[B:.*]] = enc.weight "up.bias"
// CHECK-NEXT: %[[Y:.*]] = enc.linear %[[X]], %[[W]] bias(%[[B]]) {activation = #enc<activation gelu>} : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
// CHECK-NOT: enc.activation
// CHECK: return %[[Y]]
func.func @activation(%x: tensor<?x?x8xf32>) -> tensor<?x?x32xf32> {
  %w = enc.weight "up.weight" : tensor<32x8xf32>
  %b = enc.weight "up.bias" : tensor<32xf32>
  %0 = enc.linear %x, %w bias(%b) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %1 = enc.activation gelu %0 : tensor<?x?x32xf32>
  return %1 : tensor<?x?x32xf32>
}

// -----

// The linear on the right of the add.
// CHECK-LABEL: func.func @residual_rhs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[R:[^:]*]]: tensor<?x?x8xf32>)
// CHECK: %[[W:.*]] = enc.weight "o.weight"
// CHECK-NEXT: %[[Y:.*]] = enc.linear %[[X]], %[[W]] residual(%[[R]]) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
// CHECK-NOT: enc.add
// CHECK: return %[[Y]]
func.func @residual_rhs(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "o.weight" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add %r, %0 : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// The linear on the left of the add.
// CHECK-LABEL: func.func @residual_lhs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>, %[[R:[^:]*]]: tensor<?x?x8xf32>)
// CHECK: %[[Y:.*]] = enc.linear %[[X]], %{{.*}} residual(%[[R]])
// CHECK-NOT: enc.add
// CHECK: return %[[Y]]
func.func @residual_lhs(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "o.weight" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add %0, %r : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// The FFN of a post-norm block: both epilogues, and the residual is the
// block input (defined before the first linear), h = x + down(act(up(x))).
// CHECK-LABEL: func.func @ffn
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?x8xf32>)
// CHECK: %[[UP:.*]] = enc.linear %[[X]], %{{.*}} bias(%{{.*}}) {activation = #enc<activation relu>}
// CHECK: %[[DOWN:.*]] = enc.linear %[[UP]], %{{.*}} bias(%{{.*}}) residual(%[[X]]) :
// CHECK-NOT: enc.activation
// CHECK-NOT: enc.add
// CHECK: return %[[DOWN]]
func.func @ffn(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w1 = enc.weight "up.weight" : tensor<32x8xf32>
  %b1 = enc.weight "up.bias" : tensor<32xf32>
  %w2 = enc.weight "down.weight" : tensor<8x32xf32>
  %b2 = enc.weight "down.bias" : tensor<8xf32>
  %0 = enc.linear %x, %w1 bias(%b1) : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %1 = enc.activation relu %0 : tensor<?x?x32xf32>
  %2 = enc.linear %1, %w2 bias(%b2) : (tensor<?x?x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %3 = enc.add %x, %2 : tensor<?x?x8xf32>
  return %3 : tensor<?x?x8xf32>
}

// -----

// Both operands of the add are linears: exactly one absorbs the add, the
// other stays as the residual.
// CHECK-LABEL: func.func @two_linears
// CHECK: %[[B:.*]] = enc.linear %{{[^ ]*}}, %{{[^ ]*}} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
// CHECK-NEXT: %[[A:.*]] = enc.linear %{{[^ ]*}}, %{{[^ ]*}} residual(%[[B]])
// CHECK-NOT: enc.add
// CHECK: return %[[A]]
func.func @two_linears(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "a.weight" : tensor<8x8xf32>
  %v = enc.weight "b.weight" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.linear %x, %v : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %2 = enc.add %0, %1 : tensor<?x?x8xf32>
  return %2 : tensor<?x?x8xf32>
}

// -----

// Negative: the linear's result has a second use, so neither the activation
// nor the add may change it.
// CHECK-LABEL: func.func @two_uses
// CHECK: %[[L:.*]] = enc.linear %{{[^ ]*}}, %{{[^ ]*}} : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
// CHECK: %[[A:.*]] = enc.activation relu %[[L]]
// CHECK: %[[S:.*]] = enc.add %[[L]], %{{.*}}
// CHECK: return %[[A]], %[[S]]
func.func @two_uses(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %w = enc.weight "w" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.activation relu %0 : tensor<?x?x8xf32>
  %2 = enc.add %0, %r : tensor<?x?x8xf32>
  return %1, %2 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// -----

// Negative: add(l, l) has no other operand to become the residual.
// CHECK-LABEL: func.func @self_add
// CHECK: %[[L:.*]] = enc.linear
// CHECK: enc.add %[[L]], %[[L]]
func.func @self_add(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add %0, %0 : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// Negative: an activation after a linear that already has a residual would
// apply after the add, which the epilogue cannot express.
// CHECK-LABEL: func.func @activation_after_residual
// CHECK: %[[L:.*]] = enc.linear %{{.*}} residual(%{{.*}})
// CHECK-NOT: activation =
// CHECK: enc.activation gelu %[[L]]
func.func @activation_after_residual(%x: tensor<?x?x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<8x8xf32>
  %0 = enc.linear %x, %w residual(%r) : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.activation gelu %0 : tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// Negative: a second activation is not merged into the first.
// CHECK-LABEL: func.func @two_activations
// CHECK: %[[L:.*]] = enc.linear %{{.*}} {activation = #enc<activation relu>}
// CHECK: enc.activation gelu %[[L]]
func.func @two_activations(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = enc.weight "w" : tensor<8x8xf32>
  %0 = enc.linear %x, %w : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.activation relu %0 : tensor<?x?x8xf32>
  %2 = enc.activation gelu %1 : tensor<?x?x8xf32>
  return %2 : tensor<?x?x8xf32>
}

// -----

// add_positions into the token gather.
// CHECK-LABEL: func.func @positions
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<?x?xi32>)
// CHECK: %[[POS:.*]] = enc.weight "embed.positions" : tensor<16x8xf32>
// CHECK: %[[TOK:.*]] = enc.weight "embed.tokens" : tensor<100x8xf32>
// CHECK-NEXT: %[[E:.*]] = enc.embed_tokens %[[IDS]], %[[TOK]] positions(%[[POS]]) {scale = 1.000000e+00 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
// CHECK-NOT: enc.add_positions
// CHECK: return %[[E]]
func.func @positions(%ids: tensor<?x?xi32>) -> tensor<?x?x8xf32> {
  %pos = enc.weight "embed.positions" : tensor<16x8xf32>
  %tok = enc.weight "embed.tokens" : tensor<100x8xf32>
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add_positions %0, %pos : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// Negative: the table is defined after the gather, so it cannot become its
// operand.
// CHECK-LABEL: func.func @positions_after
// CHECK: %[[E:.*]] = enc.embed_tokens %{{[^ ]*}}, %{{[^ ]*}} {scale
// CHECK: enc.add_positions %[[E]]
func.func @positions_after(%ids: tensor<?x?xi32>) -> tensor<?x?x8xf32> {
  %tok = enc.weight "embed.tokens" : tensor<100x8xf32>
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  %pos = enc.weight "embed.positions" : tensor<16x8xf32>
  %1 = enc.add_positions %0, %pos : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// Negative: the gather has another use, or is not a gather at all.
// CHECK-LABEL: func.func @positions_negative
// CHECK: %[[E:.*]] = enc.embed_tokens %{{[^ ]*}}, %{{[^ ]*}} {scale
// CHECK: enc.add_positions %[[E]]
// CHECK: enc.add_positions %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<16x8xf32>)
func.func @positions_negative(%ids: tensor<?x?xi32>, %x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %pos = enc.weight "embed.positions" : tensor<16x8xf32>
  %tok = enc.weight "embed.tokens" : tensor<100x8xf32>
  %0 = enc.embed_tokens %ids, %tok {scale = 1.0 : f32} : (tensor<?x?xi32>, tensor<100x8xf32>) -> tensor<?x?x8xf32>
  %1 = enc.add_positions %0, %pos : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  %2 = enc.add_positions %x, %pos : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %0, %1, %2 : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
}
