// Packs W [n, k] (row-major, PyTorch Linear layout) into the micro-kernel's
// panels (see kernels/gemm.h), once per weight, at load, panels spread over
// the thread pool. The panel width is that of the target chosen at the time
// of the packing (after ENC_TARGET is applied), and the packed handle keeps
// that target's kernel. A gated pair (gate, up) packs into the same panels,
// each half gate, half up (kernels/gemm.h). In another precision, W goes
// through that precision's packing (kernels/gemm_int8.h, kernels/gemm_bf16.h).
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
  enc::WeightRows w;  // plain: W's rows; gated: parts 0 and 1, n rows each
  int64_t panel;      // columns per panel
  bool gated;         // parts[0] gate, parts[1] up, interleaved by half panels
  float* dst;

  // The W row that packed column `col` holds, or null for zero padding.
  const float* Column(int64_t col) const {
    if (gated) {
      const int64_t half = panel / 2, p = col / panel, j = col % panel;
      const int64_t row = p * half + j % half;
      return row < w.n ? w.parts[j < half ? 0 : 1] + row * w.k : nullptr;
    }
    return col < w.n ? w.Row(col) : nullptr;
  }
};

// Panels [begin, end): k-major, so the stores are sequential and the loads
// walk `panel` rows of W side by side (a few cache lines each).
void PackPanels(void* ctx, int64_t begin, int64_t end) {
  const PackArgs& a = *static_cast<const PackArgs*>(ctx);
  const int64_t width = a.panel, k = a.w.k;
  for (int64_t p = begin; p < end; ++p) {
    float* panel = a.dst + p * k * width;
    const float* rows[enc::kMaxGemmPanel];
    for (int64_t j = 0; j < width; ++j) rows[j] = a.Column(p * width + j);
    for (int64_t kk = 0; kk < k; ++kk) {
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
  const int64_t width = layout.panel, k = args.w.k;
  const int64_t panels = (outputs + outputs_per_panel - 1) / outputs_per_panel;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (panels * width)) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                     static_cast<long long>(outputs),
                     static_cast<long long>(k));
  }
  const size_t bytes = static_cast<size_t>(panels * k * width) * sizeof(float);
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
  out->precision = ENC_PRECISION_FP32;
  out->layout = layout;
  out->data = args.dst;
  out->bytes = static_cast<int64_t>(bytes);
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

// The fp32 panels of kernels/gemm.h, for the plain kernel of the current
// target.
enc_status PackFp32(const char* fn, const enc::WeightRows& w,
                    enc_packed_b** out) {
  PackArgs args{};
  args.w = w;
  const enc::GemmLayout layout = enc::ChooseGemmKernel().plain;
  auto* packed = new (std::nothrow) enc_packed_b{};
  if (packed == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate the handle", fn);
  }
  if (enc_status s = PackInto(fn, args, layout, w.n, layout.panel, packed)) {
    delete packed;
    return s;
  }
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
    if (enc_status s = CheckPart(fn, parts[i], rows[i], k)) return s;
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
      return PackFp32(fn, w, out);
    case ENC_PRECISION_INT8:
      return enc::PackInt8(w, out);
    case ENC_PRECISION_BF16:
      return enc::PackBf16(num_parts, parts, rows, k, out);
  }
  return enc::Fail(ENC_ERR_INPUT, "%s: unknown precision %d", fn,
                   precision_value);
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
  args.w.num_parts = 2;
  args.w.parts[0] = gate;
  args.w.parts[1] = up;
  args.w.n = n;
  args.w.k = k;
  args.gated = true;
  const enc::GemmLayout layout = enc::ChooseGemmKernel().gated;
  auto* packed = new (std::nothrow) enc_packed_gated{};
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
