// Packs W [n, k] (row-major, PyTorch Linear layout) into the micro-kernel's
// panels (see kernels/gemm.h), once per weight, at load, panels spread over
// the thread pool. The panel width is that of the target chosen at the time
// of the packing (after ENC_TARGET is applied), and the packed handle keeps
// that target's kernel.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "enc/kernels/threads.h"
#include "kernels/gemm.h"
#include "src/large_alloc.h"
#include "src/status.h"
#include "src/target.h"

namespace {

constexpr int32_t kMaxParts = 3;

struct PackArgs {
  int32_t num_parts;
  const float* parts[kMaxParts];
  int64_t first_row[kMaxParts + 1];  // part i: W rows [first_row[i], first_row[i+1])
  int64_t n, k;
  int64_t panel;  // columns per panel
  float* dst;

  const float* Row(int64_t r) const {
    int32_t i = 0;
    while (r >= first_row[i + 1]) ++i;
    return parts[i] + (r - first_row[i]) * k;
  }
};

// Panels [begin, end): k-major, so the stores are sequential and the loads
// walk `panel` rows of W side by side (a few cache lines each).
void PackPanels(void* ctx, int64_t begin, int64_t end) {
  const PackArgs& a = *static_cast<const PackArgs*>(ctx);
  const int64_t width = a.panel;
  for (int64_t p = begin; p < end; ++p) {
    float* panel = a.dst + p * a.k * width;
    const int64_t cols = std::min(width, a.n - p * width);
    const float* rows[enc::kMaxGemmPanel];
    for (int64_t j = 0; j < cols; ++j) rows[j] = a.Row(p * width + j);
    for (int64_t kk = 0; kk < a.k; ++kk) {
      float* out = panel + kk * width;
      int64_t j = 0;
      for (; j < cols; ++j) out[j] = rows[j][kk];
      for (; j < width; ++j) out[j] = 0.0f;
    }
  }
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
  const char* fn = "enc_gemm_pack";
  if (out == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (enc_status s = enc::ApplyTargetCap()) return s;
  const enc::GemmKernel kernel = enc::ChooseGemmKernel();
  const int64_t width = kernel.panel;
  if (num_parts < 1 || num_parts > kMaxParts) {
    return enc::Fail(ENC_ERR_INPUT, "%s: num_parts (%d) is outside 1..%d", fn,
                     num_parts, kMaxParts);
  }
  if (parts == nullptr || rows == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                     parts == nullptr ? "parts" : "rows");
  }
  PackArgs args{};
  args.num_parts = num_parts;
  args.k = k;
  for (int32_t i = 0; i < num_parts; ++i) {
    if (parts[i] == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
    if (rows[i] < 1 || k < 1 || rows[i] > (int64_t{1} << 40)) {
      return enc::Fail(ENC_ERR_INPUT,
                       "%s: shape [%lld, %lld] has an empty dimension", fn,
                       static_cast<long long>(rows[i]), static_cast<long long>(k));
    }
    args.parts[i] = parts[i];
    args.first_row[i + 1] = args.first_row[i] + rows[i];
  }
  for (int32_t i = num_parts + 1; i <= kMaxParts; ++i) {
    args.first_row[i] = args.first_row[num_parts];
  }
  const int64_t n = args.first_row[num_parts];
  args.n = n;
  const int64_t panels = (n + width - 1) / width;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (panels * width)) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                     static_cast<long long>(n), static_cast<long long>(k));
  }
  const size_t bytes =
      static_cast<size_t>(panels * k * width) * sizeof(float);
  auto* packed = new (std::nothrow) enc_packed_b;
  void* data = enc::AllocLarge(bytes);
  if (packed == nullptr || data == nullptr) {
    delete packed;
    std::free(data);
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
  }
  args.dst = static_cast<float*>(data);
  args.panel = width;
  enc_parallel_for(panels, 1, &PackPanels, &args);
  packed->n = n;
  packed->k = k;
  packed->panels = panels;
  packed->kernel = kernel;
  packed->data = args.dst;
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
