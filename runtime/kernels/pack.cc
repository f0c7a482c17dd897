// Packs W [n, k] (row-major, PyTorch Linear layout) into the micro-kernel's
// panels (see kernels/gemm.h), once per weight, at load.
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/gemm.h"
#include "src/status.h"

extern "C" enc_status enc_gemm_pack(const float* w, int64_t n, int64_t k,
                                    enc_packed_b** out) {
  using enc::kGemmPanel;
  if (out == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "enc_gemm_pack: out is NULL");
  }
  *out = nullptr;
  if (w == nullptr) return enc::Fail(ENC_ERR_INPUT, "enc_gemm_pack: w is NULL");
  if (n < 1 || k < 1) {
    return enc::Fail(ENC_ERR_INPUT,
                     "enc_gemm_pack: shape [%lld, %lld] has an empty dimension",
                     static_cast<long long>(n), static_cast<long long>(k));
  }
  const int64_t panels = (n + kGemmPanel - 1) / kGemmPanel;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (panels * kGemmPanel)) {
    return enc::Fail(ENC_ERR_INPUT,
                     "enc_gemm_pack: shape [%lld, %lld] is too large",
                     static_cast<long long>(n), static_cast<long long>(k));
  }
  const size_t bytes =
      static_cast<size_t>(panels * k * kGemmPanel) * sizeof(float);
  auto* packed = new (std::nothrow) enc_packed_b;
  void* data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (packed == nullptr || data == nullptr) {
    delete packed;
    std::free(data);
    return enc::Fail(ENC_ERR_NOMEM, "enc_gemm_pack: cannot allocate %zu bytes",
                     bytes);
  }
  float* dst = static_cast<float*>(data);
  for (int64_t p = 0; p < panels; ++p) {
    float* panel = dst + p * k * kGemmPanel;
    for (int64_t j = 0; j < kGemmPanel; ++j) {
      const int64_t col = p * kGemmPanel + j;
      if (col < n) {
        const float* row = w + col * k;
        for (int64_t kk = 0; kk < k; ++kk) panel[kk * kGemmPanel + j] = row[kk];
      } else {
        for (int64_t kk = 0; kk < k; ++kk) panel[kk * kGemmPanel + j] = 0.0f;
      }
    }
  }
  packed->n = n;
  packed->k = k;
  packed->panels = panels;
  packed->data = dst;
  *out = packed;
  return ENC_OK;
}

extern "C" void enc_gemm_packed_free(enc_packed_b* p) {
  if (p == nullptr) return;
  std::free(p->data);
  delete p;
}

extern "C" int64_t enc_gemm_packed_n(const enc_packed_b* p) {
  return p == nullptr ? 0 : p->n;
}

extern "C" int64_t enc_gemm_packed_k(const enc_packed_b* p) {
  return p == nullptr ? 0 : p->k;
}
