// precision = bf16 against fp32 (precision_vs_fp32.h) on BERT-base's shapes
// (128 and 1024 tokens: b1s128 and b8s128; d 768, d_ff 3072), every bf16
// kernel this CPU runs side by side in the same calls: the weights widened to
// fp32 (every CPU), vdpbf16ps (AVX512_BF16) and AMX's tiles (AMX-BF16).
//
//   gemm_bf16_bench [CALLS]      (under `quiet bench`; ENC_TARGET caps the ISA)
#include <cstdio>
#include <cstdlib>

#include "kernels/gemm.h"       // which bf16 kernel a packed matrix runs
#include "kernels/gemm_bf16.h"  // SetBf16ChoiceForTest: each kernel
#include "precision_vs_fp32.h"
#include "src/dispatch.h"
#include "src/target.h"

namespace {

// What the kernel chosen now runs, packing one weight to see.
const char* ChosenKernel() {
  enc_packed_b* p = enc_bench::Pack(ENC_PRECISION_BF16, {1.0f}, 1, 1);
  const char* name = p->bf16.kernel.group_multiple > 1 ? "AMX tiles"
                     : p->bf16.kernel.dot              ? "vdpbf16ps"
                                                       : "widened";
  enc_gemm_packed_free(p);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  // Packing applies ENC_TARGET: pack once before naming the target.
  const char* chosen = ChosenKernel();
  std::printf(
      "bf16 vs fp32 enc_gemm (Y = X W^T + bias, gelu) on %s, the runtime's "
      "bf16 kernel: %s, %d interleaved calls each, medians\n",
      enc::DispatchTargetName(), chosen, calls);
  std::vector<enc_bench::Variant> variants;
  using enc::Bf16Choice;
  variants.push_back({"widened", ENC_PRECISION_BF16,
                      [] { enc::SetBf16ChoiceForTest(Bf16Choice::kWiden); }});
  if (enc::CpuHasAvx512Bf16()) {
    variants.push_back({"vdpbf16ps", ENC_PRECISION_BF16,
                        [] { enc::SetBf16ChoiceForTest(Bf16Choice::kDot); }});
  }
  if (enc::SupportedAmx() & enc::kAmxBf16) {
    variants.push_back({"AMX", ENC_PRECISION_BF16,
                        [] { enc::SetBf16ChoiceForTest(Bf16Choice::kAuto); }});
  }
  return enc_bench::RunAgainstFp32(variants,
                                   {{128, 768, 768},
                                    {128, 3072, 768},
                                    {128, 768, 3072},
                                    {1024, 768, 768},
                                    {1024, 3072, 768},
                                    {1024, 768, 3072}},
                                   calls);
}
