//===- PositionalTables.cpp - Compile-time positional data ----------------===//

#include "enc/Transforms/PositionalTables.h"

#include "enc/kernels/embed.h"

#include <algorithm>
#include <cmath>

std::vector<float> enc::sinusoidalTable(int64_t Rows, int64_t DModel) {
  std::vector<float> T(Rows * DModel);
  for (int64_t P = 0; P < Rows; ++P)
    for (int64_t I = 0; I < DModel; ++I)
      T[P * DModel + I] = enc_sinusoid(P, I, DModel); // the runtime's formula
  return T;
}

std::vector<float> enc::ropeTable(int64_t Rows, int64_t DK, double Base,
                                  bool Sin) {
  int64_t Half = DK / 2;
  std::vector<float> T(Rows * Half);
  for (int64_t P = 0; P < Rows; ++P)
    for (int64_t K = 0; K < Half; ++K) {
      double Freq = std::pow(Base, -2.0 * double(K) / double(DK));
      double Angle = double(P) * Freq;
      T[P * Half + K] =
          static_cast<float>(Sin ? std::sin(Angle) : std::cos(Angle));
    }
  return T;
}

namespace {
// get_slopes_power_of_2(n): start = 2^(-2^-(log2(n) - 3)), slope_i =
// start^(i+1).
std::vector<double> slopesPowerOf2(int64_t N) {
  double Start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(N)) - 3)));
  std::vector<double> S;
  for (int64_t I = 0; I < N; ++I)
    S.push_back(Start * std::pow(Start, double(I)));
  return S;
}

std::vector<double> slopes(int64_t N) {
  double Log = std::log2(double(N));
  if (Log == std::floor(Log))
    return slopesPowerOf2(N);
  int64_t Closest = int64_t(1) << int64_t(std::floor(Log));
  std::vector<double> S = slopesPowerOf2(Closest);
  std::vector<double> Extra = slopes(2 * Closest);
  for (int64_t I = 0; I < N - Closest; ++I)
    S.push_back(Extra[2 * I]); // get_slopes(2 * closest)[0::2][:n - closest]
  return S;
}
} // namespace

std::vector<float> enc::alibiSlopes(int64_t Heads) {
  std::vector<double> S = slopes(Heads);
  return std::vector<float>(S.begin(), S.end());
}

int32_t enc::t5Bucket(int64_t RelativePosition, int64_t Buckets,
                      int64_t MaxDistance) {
  int64_t NumBuckets = Buckets / 2; // bidirectional
  int64_t Result = RelativePosition > 0 ? NumBuckets : 0;
  int64_t N = std::abs(RelativePosition);
  int64_t MaxExact = NumBuckets / 2;
  if (N < MaxExact)
    return static_cast<int32_t>(Result + N);
  // The reference computes this in float32 (torch .float()), then truncates.
  float Ratio = static_cast<float>(N) / static_cast<float>(MaxExact);
  float Scaled = std::log(Ratio) /
                 static_cast<float>(std::log(double(MaxDistance) / MaxExact)) *
                 static_cast<float>(NumBuckets - MaxExact);
  int64_t Large = MaxExact + static_cast<int64_t>(Scaled);
  return static_cast<int32_t>(Result + std::min(Large, NumBuckets - 1));
}

std::vector<int32_t> enc::t5BucketTable(int64_t Rows, int64_t Buckets,
                                        int64_t MaxDistance) {
  std::vector<int32_t> T(2 * Rows - 1);
  for (int64_t Rel = -(Rows - 1); Rel <= Rows - 1; ++Rel)
    T[Rel + Rows - 1] = t5Bucket(Rel, Buckets, MaxDistance);
  return T;
}

mlir::DenseElementsAttr enc::positionalTableValue(PositionalTableOp Op,
                                                  mlir::RankedTensorType Ty) {
  int64_t Rows = Ty.getShape()[0];
  switch (Op.getKind()) {
  case TableKind::sinusoidal:
    return mlir::DenseElementsAttr::get(
        Ty, llvm::ArrayRef<float>(sinusoidalTable(Rows, Op.getDim())));
  case TableKind::rope_cos:
  case TableKind::rope_sin:
    return mlir::DenseElementsAttr::get(
        Ty, llvm::ArrayRef<float>(
                ropeTable(Rows, Op.getDim(), Op.getBase()->convertToDouble(),
                          Op.getKind() == TableKind::rope_sin)));
  case TableKind::alibi_slopes:
    return mlir::DenseElementsAttr::get(
        Ty, llvm::ArrayRef<float>(alibiSlopes(Op.getDim())));
  case TableKind::relative_buckets:
    return mlir::DenseElementsAttr::get(
        Ty, llvm::ArrayRef<int32_t>(t5BucketTable((Rows + 1) / 2, Op.getDim(),
                                                  *Op.getMaxDistance())));
  }
  llvm_unreachable("every TableKind is handled above");
}
