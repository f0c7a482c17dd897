// precision = bf16 against fp32 (precision_vs_fp32.h) on BERT-base's shapes
// (128 and 1024 tokens: b1s128 and b8s128; d 768, d_ff 3072), and which bf16
// kernel ran (AMX tiles, vdpbf16ps, or weights widened to fp32).
//
//   gemm_bf16_bench [CALLS]      (under `quiet bench`; ENC_TARGET caps the ISA)
#include <cstdio>
#include <cstdlib>

#include "kernels/gemm.h"  // which bf16 kernel a packed matrix runs
#include "precision_vs_fp32.h"
#include "src/target.h"

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  // Packing applies ENC_TARGET: pack once before naming the target.
  enc_packed_b* p = enc_bench::Pack(ENC_PRECISION_BF16, {1.0f}, 1, 1);
  std::printf(
      "bf16 vs fp32 enc_gemm (Y = X W^T + bias, gelu) on %s, bf16 "
      "kernel: %s, %d interleaved calls each, medians\n",
      enc::DispatchTargetName(),
      p->bf16.kernel.group_multiple > 1 ? "AMX tiles (tdpbf16ps)"
      : p->bf16.kernel.dot              ? "vdpbf16ps"
                                        : "weights widened to fp32",
      calls);
  enc_gemm_packed_free(p);
  return enc_bench::RunAgainstFp32(ENC_PRECISION_BF16, "bf16",
                                   {{128, 768, 768},
                                    {128, 3072, 768},
                                    {128, 768, 3072},
                                    {1024, 768, 768},
                                    {1024, 3072, 768},
                                    {1024, 768, 3072}},
                                   calls);
}
