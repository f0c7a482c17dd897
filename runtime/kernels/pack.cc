// Packs W [n, k] (row-major, PyTorch Linear layout) into the micro-kernel's
// panels (see kernels/gemm.h), once per weight, at load, panels spread over
// the thread pool. The panel width is that of the target chosen at the time
// of the packing (after ENC_TARGET is applied), and the packed handle keeps
// that target's kernel. A gated pair (gate, up) packs into the same panels,
// each half gate, half up (kernels/gemm.h).
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
  int64_t n, k;  // plain: W rows; gated: the rows of each of the two parts
  int64_t panel;  // columns per panel
  bool gated;     // parts[0] gate, parts[1] up, interleaved by half panels
  float* dst;

  // The W row that packed column `col` holds, or null for zero padding.
  const float* Column(int64_t col) const {
    if (gated) {
      const int64_t half = panel / 2, p = col / panel, j = col % panel;
      const int64_t row = p * half + j % half;
      return row < n ? parts[j < half ? 0 : 1] + row * k : nullptr;
    }
    if (col >= n) return nullptr;
    int32_t i = 0;
    while (col >= first_row[i + 1]) ++i;
    return parts[i] + (col - first_row[i]) * k;
  }
};

// Panels [begin, end): k-major, so the stores are sequential and the loads
// walk `panel` rows of W side by side (a few cache lines each).
void PackPanels(void* ctx, int64_t begin, int64_t end) {
  const PackArgs& a = *static_cast<const PackArgs*>(ctx);
  const int64_t width = a.panel;
  for (int64_t p = begin; p < end; ++p) {
    float* panel = a.dst + p * a.k * width;
    const float* rows[enc::kMaxGemmPanel];
    for (int64_t j = 0; j < width; ++j) rows[j] = a.Column(p * width + j);
    for (int64_t kk = 0; kk < a.k; ++kk) {
      float* out = panel + kk * width;
      for (int64_t j = 0; j < width; ++j) {
        out[j] = rows[j] != nullptr ? rows[j][kk] : 0.0f;
      }
    }
  }
}

// Packs `args` (parts, n, k, gated set) into `out` in `layout`, with
// `outputs` the columns of Y it computes (panels of outputs_per_panel each).
enc_status PackInto(const char* fn, PackArgs& args,
                    const enc::GemmLayout& layout, int64_t outputs,
                    int64_t outputs_per_panel, enc_packed_b* out) {
  const int64_t width = layout.panel, k = args.k;
  const int64_t panels = (outputs + outputs_per_panel - 1) / outputs_per_panel;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (panels * width)) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                     static_cast<long long>(outputs),
                     static_cast<long long>(k));
  }
  const size_t bytes =
      static_cast<size_t>(panels * k * width) * sizeof(float);
  void* data = enc::AllocLarge(bytes);
  if (data == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
  }
  args.dst = static_cast<float*>(data);
  args.panel = width;
  enc_parallel_for(panels, 1, &PackPanels, &args);
  out->n = outputs;
  out->k = k;
  out->panels = panels;
  out->layout = layout;
  out->data = args.dst;
  return ENC_OK;
}

// Checks a part [rows, k] of W.
enc_status CheckPart(const char* fn, const float* w, int64_t rows, int64_t k) {
  if (w == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: w is NULL", fn);
  if (rows < 1 || k < 1 || rows > (int64_t{1} << 40)) {
    return enc::Fail(ENC_ERR_INPUT,
                     "%s: shape [%lld, %lld] has an empty dimension", fn,
                     static_cast<long long>(rows), static_cast<long long>(k));
  }
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
  PackArgs args{};
  args.num_parts = num_parts;
  args.k = k;
  for (int32_t i = 0; i < num_parts; ++i) {
    if (enc_status s = CheckPart(fn, parts[i], rows[i], k)) return s;
    args.parts[i] = parts[i];
    args.first_row[i + 1] = args.first_row[i] + rows[i];
  }
  for (int32_t i = num_parts + 1; i <= kMaxParts; ++i) {
    args.first_row[i] = args.first_row[num_parts];
  }
  args.n = args.first_row[num_parts];
  const enc::GemmLayout layout = enc::ChooseGemmKernel().plain;
  auto* packed = new (std::nothrow) enc_packed_b;
  if (packed == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate the handle", fn);
  }
  if (enc_status s = PackInto(fn, args, layout, args.n, layout.panel, packed)) {
    delete packed;
    return s;
  }
  *out = packed;
  return ENC_OK;
}

extern "C" enc_status enc_gemm_pack_gated(const float* gate, const float* up,
                                          int64_t n, int64_t k,
                                          enc_packed_gated** out) {
  const char* fn = "enc_gemm_pack_gated";
  if (out == nullptr) return enc::Fail(ENC_ERR_INPUT, "%s: out is NULL", fn);
  *out = nullptr;
  if (enc_status s = enc::ApplyTargetCap()) return s;
  if (enc_status s = CheckPart(fn, gate, n, k)) return s;
  if (enc_status s = CheckPart(fn, up, n, k)) return s;
  PackArgs args{};
  args.num_parts = 2;
  args.parts[0] = gate;
  args.parts[1] = up;
  args.n = n;
  args.k = k;
  args.gated = true;
  const enc::GemmLayout layout = enc::ChooseGemmKernel().gated;
  auto* packed = new (std::nothrow) enc_packed_gated;
  if (packed == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate the handle", fn);
  }
  if (enc_status s =
          PackInto(fn, args, layout, n, layout.panel / 2, &packed->packed)) {
    delete packed;
    return s;
  }
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

extern "C" void enc_gemm_gated_free(enc_packed_gated* p) {
  if (p == nullptr) return;
  std::free(p->packed.data);
  delete p;
}

extern "C" int64_t enc_gemm_gated_n(const enc_packed_gated* p) {
  return p == nullptr ? 0 : p->packed.n;
}

extern "C" int64_t enc_gemm_gated_k(const enc_packed_gated* p) {
  return p == nullptr ? 0 : p->packed.k;
}
