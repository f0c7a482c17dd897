// precision = int8 against fp32 (precision_vs_fp32.h) on BERT-base's shapes
// (128 tokens; d 768, d_ff 3072).
//
//   gemm_int8_bench [CALLS]      (under `quiet bench`; ENC_TARGET caps the ISA)
#include <cstdio>
#include <cstdlib>

#include "precision_vs_fp32.h"
#include "src/target.h"

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  // Packing applies ENC_TARGET: pack once before naming the target.
  enc_gemm_packed_free(enc_bench::Pack(ENC_PRECISION_INT8, {1.0f}, 1, 1));
  std::printf(
      "int8 vs fp32 enc_gemm (Y = X W^T + bias, gelu) on %s, %d "
      "interleaved calls each, medians\n",
      enc::DispatchTargetName(), calls);
  return enc_bench::RunAgainstFp32(
      ENC_PRECISION_INT8, "int8",
      {{128, 768, 768}, {128, 3072, 768}, {128, 768, 3072}}, calls);
}
