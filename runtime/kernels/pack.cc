// Packs W [n, k] (row-major, PyTorch Linear layout) into the micro-kernel's
// panels (see kernels/gemm.h), once per weight, at load, panels spread over
// the thread pool; in another precision, through that precision's packing
// (kernels/gemm_int8.h, kernels/gemm_bf16.h). The panel width is that of the
// target chosen at the time of the packing (after ENC_TARGET is applied), and
// the packed handle keeps that target's kernel.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "enc/kernels/threads.h"
#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"
#include "src/large_alloc.h"
#include "src/status.h"
#include "src/target.h"

namespace {

constexpr int32_t kMaxParts = enc::WeightRows::kMaxParts;

struct PackArgs {
  enc::WeightRows w;
  int64_t panel;  // columns per panel
  float* dst;
};

// Panels [begin, end): k-major, so the stores are sequential and the loads
// walk `panel` rows of W side by side (a few cache lines each).
void PackPanels(void* ctx, int64_t begin, int64_t end) {
  const PackArgs& a = *static_cast<const PackArgs*>(ctx);
  const int64_t width = a.panel, k = a.w.k;
  for (int64_t p = begin; p < end; ++p) {
    float* panel = a.dst + p * k * width;
    const int64_t cols = std::min(width, a.w.n - p * width);
    const float* rows[enc::kMaxGemmPanel];
    for (int64_t j = 0; j < cols; ++j) rows[j] = a.w.Row(p * width + j);
    for (int64_t kk = 0; kk < k; ++kk) {
      float* out = panel + kk * width;
      int64_t j = 0;
      for (; j < cols; ++j) out[j] = rows[j][kk];
      for (; j < width; ++j) out[j] = 0.0f;
    }
  }
}

// The fp32 panels of kernels/gemm.h, for the kernel of the current target.
enc_status PackFp32(const enc::WeightRows& w, enc_packed_b** out) {
  const char* fn = "enc_gemm_pack";
  const enc::GemmKernel kernel = enc::ChooseGemmKernel();
  const int64_t width = kernel.panel, n = w.n, k = w.k;
  const int64_t panels = (n + width - 1) / width;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (panels * width)) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                     static_cast<long long>(n), static_cast<long long>(k));
  }
  const size_t bytes =
      static_cast<size_t>(panels * k * width) * sizeof(float);
  auto* packed = new (std::nothrow) enc_packed_b{};
  void* data = enc::AllocLarge(bytes);
  if (packed == nullptr || data == nullptr) {
    delete packed;
    std::free(data);
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
  }
  PackArgs args{w, width, static_cast<float*>(data)};
  enc_parallel_for(panels, 1, &PackPanels, &args);
  packed->n = n;
  packed->k = k;
  packed->panels = panels;
  packed->precision = ENC_PRECISION_FP32;
  packed->kernel = kernel;
  packed->data = args.dst;
  packed->bytes = static_cast<int64_t>(bytes);
  *out = packed;
  return ENC_OK;
}

}  // namespace

extern "C" enc_status enc_gemm_pack(const float* w, int64_t n, int64_t k,
                                    enc_packed_b** out) {
  return enc_gemm_pack_parts(1, &w, &n, k, out);
}

extern "C" enc_status enc_gemm_pack_parts(int32_t num_parts,
                                          const float* const* parts,
                                          const int64_t* rows, int64_t k,
                                          enc_packed_b** out) {
  return enc_gemm_pack_parts_as(ENC_PRECISION_FP32, num_parts, parts, rows, k,
                                out);
}

extern "C" enc_status enc_gemm_pack_parts_as(enc_precision precision,
                                             int32_t num_parts,
                                             const float* const* parts,
                                             const int64_t* rows, int64_t k,
                                             enc_packed_b** out) {
  const char* fn = "enc_gemm_pack";
  if (out == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (num_parts < 1 || num_parts > kMaxParts) {
    return enc::Fail(ENC_ERR_INPUT, "%s: num_parts (%d) is outside 1..%d", fn,
                     num_parts, kMaxParts);
  }
  if (parts == nullptr || rows == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                     parts == nullptr ? "parts" : "rows");
  }
  enc::WeightRows w{};
  w.num_parts = num_parts;
  w.k = k;
  for (int32_t i = 0; i < num_parts; ++i) {
    if (parts[i] == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
    if (rows[i] < 1 || k < 1 || rows[i] > (int64_t{1} << 40)) {
      return enc::Fail(ENC_ERR_INPUT,
                       "%s: shape [%lld, %lld] has an empty dimension", fn,
                       static_cast<long long>(rows[i]), static_cast<long long>(k));
    }
    w.parts[i] = parts[i];
    w.first_row[i + 1] = w.first_row[i] + rows[i];
  }
  for (int32_t i = num_parts + 1; i <= kMaxParts; ++i) {
    w.first_row[i] = w.first_row[num_parts];
  }
  w.n = w.first_row[num_parts];
  const int precision_value = enc::EnumArg(precision);  // any int, from C
  switch (static_cast<enc_precision>(precision_value)) {
    case ENC_PRECISION_FP32:
      return PackFp32(w, out);
    case ENC_PRECISION_INT8:
      return enc::PackInt8(w, out);
    case ENC_PRECISION_BF16:
      return enc::PackBf16(num_parts, parts, rows, k, out);
  }
  return enc::Fail(ENC_ERR_INPUT, "%s: unknown precision %d", fn,
                   precision_value);
}

extern "C" void enc_gemm_packed_free(enc_packed_b* p) {
  if (p == nullptr) return;
  std::free(p->data);
  std::free(p->bf16.data);
  enc::FreeInt8(&p->int8);
  delete p;
}

extern "C" enc_precision enc_gemm_packed_precision(const enc_packed_b* p) {
  return p == nullptr ? ENC_PRECISION_FP32 : p->precision;
}

extern "C" int64_t enc_gemm_packed_bytes(const enc_packed_b* p) {
  return p == nullptr ? 0 : p->bytes;
}

extern "C" int64_t enc_gemm_packed_n(const enc_packed_b* p) {
  return p == nullptr ? 0 : p->n;
}

extern "C" int64_t enc_gemm_packed_k(const enc_packed_b* p) {
  return p == nullptr ? 0 : p->k;
}
