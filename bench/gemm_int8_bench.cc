// precision = int8 against fp32 (precision_vs_fp32.h) on BERT-base's shapes
// (128 tokens; d 768, d_ff 3072).
//
//   gemm_int8_bench [CALLS]      (under `quiet bench`; ENC_TARGET caps the ISA)
#include <cstdio>
#include <cstdlib>

#include "precision_vs_fp32.h"
#include "src/dispatch.h"
#include "src/target.h"

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  // Packing applies ENC_TARGET: pack once before naming the target.
  enc_gemm_packed_free(enc_bench::Pack(ENC_PRECISION_INT8, {1.0f}, 1, 1));
  const bool amx = (enc::SupportedAmx() & enc::kAmxInt8) != 0;
  std::printf(
      "int8 vs fp32 enc_gemm (Y = X W^T + bias, gelu) on %s%s, %d "
      "interleaved calls each, medians\n",
      enc::DispatchTargetName(), amx ? " with AMX" : "", calls);
  std::vector<enc_bench::Variant> variants;
  if (amx) {
    // The same call on the AVX3_DL (VNNI) kernel and on AMX's tiles.
    variants.push_back(
        {"int8 VNNI", ENC_PRECISION_INT8, [] { enc::SetAmxForTest(0); }});
    variants.push_back(
        {"int8 AMX", ENC_PRECISION_INT8, [] { enc::SetAmxForTest(-1); }});
  } else {
    variants.push_back({"int8", ENC_PRECISION_INT8, nullptr});
  }
  return enc_bench::RunAgainstFp32(variants,
                                   {{128, 768, 768},
                                    {128, 3072, 768},
                                    {128, 768, 3072},
                                    {1024, 768, 768},
                                    {1024, 3072, 768}},
                                   calls);
}
