// RUN: encc-opt %s --enc-fold-positional | FileCheck %s
// RUN: encc-opt %s --enc-fold-positional | FileCheck %s --check-prefix=GONE
// Every enc.positional_table becomes an arith.constant holding the table of
// docs/numerics.md#positions, computed in double and rounded once to f32. The expected
// values below were computed independently (Python/NumPy, and PyTorch for
// the T5 buckets) and compared bit for bit, as f32, with what MLIR prints.

// GONE-NOT: enc.positional_table

// Sinusoidal, d_model 4: angle(p, i) = p / 10000^(2 floor(i/2) / 4), so the
// angle is p for i = 0, 1 and p / 100 for i = 2, 3; sin at even i, cos at odd
// i (interleaved). Rows: p = 0: [0, 1, 0, 1];
// p = 1: [sin 1, cos 1, sin 0.01, cos 0.01] = [0.84147096, 0.54030228, 0.00999983, 0.99995000];
// p = 2: [sin 2, cos 2, sin 0.02, cos 0.02] = [0.90929741, -0.41614684, 0.01999867, 0.99980003].
// CHECK-LABEL: func.func @sinusoidal
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x4xf32>)
// CHECK: %[[PE:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00], [0.841470957, 0.540302277, 0.00999983306, 0.999949991], [0.909297406, -0.416146845, 0.0199986659, 9.998000e-01]]> : tensor<3x4xf32>
// CHECK: enc.add_positions %[[X]], %[[PE]]
func.func @sinusoidal(%x: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %0 = enc.positional_table sinusoidal {dim = 4 : i64} : tensor<3x4xf32>
  %1 = enc.add_positions %x, %0 : (tensor<?x?x4xf32>, tensor<3x4xf32>) -> tensor<?x?x4xf32>
  return %1 : tensor<?x?x4xf32>
}

// RoPE, d_k 4, base 10000: freq_k = 10000^(-2k/4) = [1, 0.01]; the tables
// are cos / sin of p * freq_k, [max_len 3, d_k/2 = 2].
// cos: [[1, 1], [cos 1, cos 0.01], [cos 2, cos 0.02]]
// sin: [[0, 0], [sin 1, sin 0.01], [sin 2, sin 0.02]]
// CHECK-LABEL: func.func @rope
// CHECK: %[[COS:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [0.540302277, 0.999949991], [-0.416146845, 9.998000e-01]]> : tensor<3x2xf32>
// CHECK: %[[SIN:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00], [0.841470957, 0.00999983306], [0.909297406, 0.0199986659]]> : tensor<3x2xf32>
// CHECK: return %[[COS]], %[[SIN]]
func.func @rope() -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %0 = enc.positional_table rope_cos {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<3x2xf32>
  %1 = enc.positional_table rope_sin {dim = 4 : i64, base = 1.0e+04 : f64} : tensor<3x2xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<3x2xf32>
}

// ALiBi, Press et al.'s get_slopes(n):
//   power of two: start = 2^(-2^-(log2 n - 3)), slopes start^1 .. start^n.
//   8 heads: start = 2^-1: [1/2, 1/4, ..., 1/256].
//   6 heads: get_slopes_power_of_2(4) (start 2^-2: 1/4, 1/16, 1/64, 1/256)
//            + get_slopes(8)[0::2][:2] (1/2, 1/8).
//   12 heads: get_slopes_power_of_2(8) + get_slopes(16)[0::2][:4], where
//            get_slopes(16) has start 2^-0.5: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
//            = 0.70710677, 0.35355338, 0.17677669, 0.08838835.
// CHECK-LABEL: func.func @alibi
// CHECK: arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03, 5.000000e-01, 1.250000e-01]> : tensor<6xf32>
// CHECK: arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03]> : tensor<8xf32>
// CHECK: arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03, 0.707106769, 0.353553385, 0.176776692, 0.0883883461]> : tensor<12xf32>
func.func @alibi() -> (tensor<6xf32>, tensor<8xf32>, tensor<12xf32>) {
  %0 = enc.positional_table alibi_slopes {dim = 6 : i64} : tensor<6xf32>
  %1 = enc.positional_table alibi_slopes {dim = 8 : i64} : tensor<8xf32>
  %2 = enc.positional_table alibi_slopes {dim = 12 : i64} : tensor<12xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<8xf32>, tensor<12xf32>
}

// T5 bidirectional buckets of j - i, indexed by (j - i) + max_len - 1.
// buckets 8, max_distance 10, max_len 5 (table [9]): half = 4 buckets per
// direction, j - i > 0 adds 4; max_exact = 2; n = |j - i| < 2 is its own
// bucket, else 2 + trunc(log(n / 2) / log(10 / 2) * 2), at most 3:
//   n = 2: 2 + trunc(0) = 2; n = 3: 2 + trunc(0.504) = 2; n = 4: 2 + trunc(0.861) = 2.
//   j - i = -4 .. 4 -> [2, 2, 2, 1, 0, 4+1, 4+2, 4+2, 4+2].
// CHECK-LABEL: func.func @relative
// CHECK: arith.constant dense<[2, 2, 2, 1, 0, 5, 6, 6, 6]> : tensor<9xi32>
// T5's defaults, buckets 32 and max_distance 128, max_len 24 (table [47]):
// max_exact 8; n = 8..11 -> 8, 12..15 -> 9, 16..22 -> 10, 23 -> 11, as the
// reference (HF transformers' _relative_position_bucket, run in PyTorch) gives.
// CHECK: arith.constant dense<[11, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 8, 8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26, 26, 26, 26, 27]> : tensor<47xi32>
func.func @relative() -> (tensor<9xi32>, tensor<47xi32>) {
  %0 = enc.positional_table relative_buckets {dim = 8 : i64, max_distance = 10 : i64} : tensor<9xi32>
  %1 = enc.positional_table relative_buckets {dim = 32 : i64, max_distance = 128 : i64} : tensor<47xi32>
  return %0, %1 : tensor<9xi32>, tensor<47xi32>
}

// A sinusoidal table longer than ENC_SINUSOID_OBJECT_ROWS (512) that only
// enc.add_positions reads from row 0 keeps its first 512 rows; the adds are
// marked sinusoidal_tail, and the runtime computes the rows past them with
// the same formula.
// CHECK-LABEL: func.func @sinusoidal_long
// CHECK: %[[HEAD:.*]] = arith.constant dense<{{.*}}> : tensor<512x4xf32>
// CHECK: enc.add_positions %{{.*}}, %[[HEAD]] {sinusoidal_tail} : (tensor<?x?x4xf32>, tensor<512x4xf32>)
// A learned-style offset (or any other reader) keeps the whole table.
// CHECK-LABEL: func.func @sinusoidal_long_offset
// CHECK: %[[ALL:.*]] = arith.constant dense<{{.*}}> : tensor<600x4xf32>
// CHECK: enc.add_positions %{{.*}}, %[[ALL]] {position_offset = 2 : i64} :
func.func @sinusoidal_long(%x: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %0 = enc.positional_table sinusoidal {dim = 4 : i64} : tensor<600x4xf32>
  %1 = enc.add_positions %x, %0 : (tensor<?x?x4xf32>, tensor<600x4xf32>) -> tensor<?x?x4xf32>
  return %1 : tensor<?x?x4xf32>
}
func.func @sinusoidal_long_offset(%x: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %0 = enc.positional_table sinusoidal {dim = 4 : i64} : tensor<600x4xf32>
  %1 = enc.add_positions %x, %0 {position_offset = 2 : i64} : (tensor<?x?x4xf32>, tensor<600x4xf32>) -> tensor<?x?x4xf32>
  return %1 : tensor<?x?x4xf32>
}
