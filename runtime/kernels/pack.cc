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
#include "kernels/packed_form.h"
#include "src/large_alloc.h"
#include "src/mapped_file.h"
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

// The fp32 panels of W [outputs, k] for this process's kernel: its layout,
// panel count and bytes. False if the shape is too large.
struct Fp32Plan {
  enc::GemmLayout layout;
  int64_t panels, bytes;
};
bool PlanFp32(bool gated, int64_t outputs, int64_t k, Fp32Plan* plan) {
  const enc::GemmKernel kernel = enc::ChooseGemmKernel();
  plan->layout = gated ? kernel.gated : kernel.plain;
  const int64_t width = plan->layout.panel;
  // A gated panel computes half its width of outputs (kernels/gemm.h).
  const int64_t per_panel = gated ? width / 2 : width;
  plan->panels = (outputs + per_panel - 1) / per_panel;
  // Guard the byte count against overflow (k * n stays far below 2^62 here).
  if (k > (int64_t{1} << 40) / (plan->panels * width)) return false;
  plan->bytes = plan->panels * k * width * int64_t{sizeof(float)};
  return true;
}

// Packs `args` (parts, n, k, gated set) into `out`, with `outputs` the
// columns of Y it computes.
enc_status PackInto(const char* fn, PackArgs& args, int64_t outputs,
                    enc_packed_b* out) {
  const int64_t k = args.w.k;
  Fp32Plan plan;
  if (!PlanFp32(args.gated, outputs, k, &plan)) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                     static_cast<long long>(outputs),
                     static_cast<long long>(k));
  }
  const enc::GemmLayout layout = plan.layout;
  const int64_t width = layout.panel, panels = plan.panels;
  const size_t bytes = static_cast<size_t>(plan.bytes);
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
  auto* packed = new (std::nothrow) enc_packed_b{};
  if (packed == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate the handle", fn);
  }
  if (enc_status s = PackInto(fn, args, w.n, packed)) {
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
  auto* packed = new (std::nothrow) enc_packed_gated{};
  if (packed == nullptr) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: cannot allocate the handle", fn);
  }
  if (enc_status s = PackInto(fn, args, n, &packed->packed)) {
    delete packed;
    return s;
  }
  *out = packed;
  return ENC_OK;
}

namespace {
// A block the handle owns, or views in a packed-weights file's mapping.
void FreeBlock(void* block) {
  if (!enc::ReleaseIfMapped(block)) std::free(block);
}
}  // namespace

extern "C" void enc_gemm_packed_free(enc_packed_b* p) {
  if (p == nullptr) return;
  FreeBlock(p->data);
  FreeBlock(p->bf16.data);
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

namespace enc {
int64_t PanelWidth(const enc_packed_b& w) {
  switch (w.precision) {
    case ENC_PRECISION_FP32:
      return w.layout.panel;
    case ENC_PRECISION_INT8:
      return w.int8.kernel.panel;
    case ENC_PRECISION_BF16:
      return w.bf16.kernel.panel;
  }
  return 0;
}

enc_packed_b ColumnPanels(const enc_packed_b& w, int64_t c0, int64_t c1,
                          int64_t* first_col) {
  const int64_t width = PanelWidth(w);
  const int64_t p0 = c0 / width, p1 = (c1 + width - 1) / width;
  enc_packed_b view = w;
  view.panels = p1 - p0;
  view.n = std::min(w.n, p1 * width) - p0 * width;
  view.bytes = 0;  // owns nothing
  switch (w.precision) {
    case ENC_PRECISION_FP32:
      view.data = w.data + p0 * w.k * width;
      break;
    case ENC_PRECISION_INT8:
      view.int8.block = nullptr;
      view.int8.panels =
          w.int8.panels + p0 * w.int8.groups * width * kInt8Group;
      view.int8.scales = w.int8.scales + p0 * width;
      view.int8.sums = w.int8.sums + p0 * width;
      break;
    case ENC_PRECISION_BF16:
      view.bf16.data = w.bf16.data + p0 * w.bf16.kpairs * width;
      break;
  }
  *first_col = p0 * width;
  return view;
}
}  // namespace enc

extern "C" void enc_gemm_gated_free(enc_packed_gated* p) {
  if (p == nullptr) return;
  FreeBlock(p->packed.data);
  delete p;
}

extern "C" int64_t enc_gemm_gated_n(const enc_packed_gated* p) {
  return p == nullptr ? 0 : p->packed.n;
}

extern "C" int64_t enc_gemm_gated_k(const enc_packed_gated* p) {
  return p == nullptr ? 0 : p->packed.k;
}

// ---- Forms (kernels/packed_form.h) ------------------------------------------

namespace enc {
namespace {

// The layout fields of a form: the kernel's, and the panels it packs.
template <class Kernel>
void SetLayout(const Kernel& kernel, int64_t panels, int64_t bytes,
               int64_t depth, bool variant, PackedForm* f) {
  f->target = kernel.target;
  f->panel = kernel.panel;
  f->rows = kernel.rows;
  f->group_multiple = kernel.group_multiple;
  f->pad_rows = kernel.pad_rows;
  f->panels = panels;
  f->bytes = bytes;
  f->depth = depth;
  f->variant = variant ? 1 : 0;
}

}  // namespace

PackedForm FormOf(const enc_packed_b* p, bool gated, const void** block) {
  PackedForm f{};
  f.precision = p->precision;
  f.gated = gated ? 1 : 0;
  f.n = p->n;
  f.k = p->k;
  switch (p->precision) {
    case ENC_PRECISION_FP32:
      SetLayout(p->layout, p->panels, p->bytes, p->k, false, &f);
      *block = p->data;
      break;
    case ENC_PRECISION_INT8:
      SetLayout(p->int8.kernel, p->panels, p->bytes, p->int8.groups,
                p->int8.kernel.needs_abs, &f);
      *block = p->int8.block;
      break;
    case ENC_PRECISION_BF16:
      SetLayout(p->bf16.kernel, p->panels, p->bytes, p->bf16.kpairs,
                p->bf16.kernel.dot, &f);
      *block = p->bf16.data;
      break;
  }
  return f;
}

enc_status PlanForm(int32_t precision, bool gated, int64_t n, int64_t k,
                    PackedForm* form) {
  const char* fn = "enc_model_load";
  if (enc_status s = ApplyTargetCap()) return s;
  PackedForm f{};
  f.precision = precision;
  f.gated = gated ? 1 : 0;
  f.n = n;
  f.k = k;
  // The value is checked before it becomes an enc_precision (a cast of a
  // value outside the enumeration is undefined), so the switch below needs
  // no default arm and a new precision fails to compile until it is planned.
  auto no_form = [&] {
    return Fail(ENC_ERR_INPUT,
                "%s: no packed form for precision %d%s of [%lld, %lld]", fn,
                precision, gated ? " (gated)" : "", static_cast<long long>(n),
                static_cast<long long>(k));
  };
  const bool known = precision == ENC_PRECISION_FP32 ||
                     precision == ENC_PRECISION_INT8 ||
                     precision == ENC_PRECISION_BF16;
  bool ok = known && n >= 1 && k >= 1 && n <= (int64_t{1} << 40) &&
            k <= (int64_t{1} << 40) &&
            (!gated || precision == ENC_PRECISION_FP32);
  if (!ok) return no_form();
  switch (static_cast<enc_precision>(precision)) {
    case ENC_PRECISION_FP32: {
      Fp32Plan plan;
      ok = PlanFp32(gated, n, k, &plan);
      SetLayout(plan.layout, plan.panels, plan.bytes, k, false, &f);
      break;
    }
    case ENC_PRECISION_INT8: {
      Int8Plan plan;
      ok = PlanInt8(n, k, &plan);
      SetLayout(plan.kernel, plan.panels, plan.bytes, plan.groups,
                plan.kernel.needs_abs, &f);
      break;
    }
    case ENC_PRECISION_BF16: {
      Bf16Plan plan;
      ok = PlanBf16(n, k, &plan);
      SetLayout(plan.kernel, plan.panels, plan.bytes, plan.kpairs,
                plan.kernel.dot, &f);
      break;
    }
  }
  if (!ok) return no_form();
  *form = f;
  return ENC_OK;
}

const char* FormDifference(const PackedForm& a, const PackedForm& b) {
  if (a.precision != b.precision) return "precision";
  if (a.gated != b.gated) return "gated";
  if (a.n != b.n) return "rows (n)";
  if (a.k != b.k) return "columns (k)";
  if (a.target != b.target) return "kernel target";
  if (a.panel != b.panel) return "panel width";
  if (a.rows != b.rows) return "micro-tile rows";
  if (a.group_multiple != b.group_multiple) return "K group multiple";
  if (a.pad_rows != b.pad_rows) return "padding rows";
  if (a.variant != b.variant) return "kernel variant";
  if (a.depth != b.depth) return "packed depth";
  if (a.panels != b.panels) return "panel count";
  if (a.bytes != b.bytes) return "byte count";
  return nullptr;
}

enc_status ViewForm(const PackedForm& form, const void* block, void** out) {
  const char* fn = "enc_model_load";
  *out = nullptr;
  PackedForm now{};
  if (enc_status s =
          PlanForm(form.precision, form.gated != 0, form.n, form.k, &now)) {
    return s;
  }
  if (const char* field = FormDifference(form, now)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: packed for another kernel: its %s differs from this "
                "process's",
                fn, field);
  }
  void* data =
      const_cast<void*>(block);  // read only: the kernels never write W
  enc_packed_b* p = nullptr;
  enc_packed_gated* gated = nullptr;
  if (form.gated) {
    gated = new (std::nothrow) enc_packed_gated{};
    if (gated != nullptr) p = &gated->packed;
  } else {
    p = new (std::nothrow) enc_packed_b{};
  }
  if (p == nullptr) {
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate a handle", fn);
  }
  p->n = form.n;
  p->k = form.k;
  p->panels = form.panels;
  p->precision = static_cast<enc_precision>(form.precision);
  p->bytes = form.bytes;
  switch (p->precision) {
    case ENC_PRECISION_FP32: {
      Fp32Plan plan;
      PlanFp32(form.gated != 0, form.n, form.k, &plan);
      p->layout = plan.layout;
      p->data = static_cast<float*>(data);
      break;
    }
    case ENC_PRECISION_INT8: {
      Int8Plan plan;
      PlanInt8(form.n, form.k, &plan);
      ViewInt8(plan, data, &p->int8);
      break;
    }
    case ENC_PRECISION_BF16: {
      Bf16Plan plan;
      PlanBf16(form.n, form.k, &plan);
      p->bf16.kernel = plan.kernel;
      p->bf16.data = static_cast<uint32_t*>(data);
      p->bf16.kpairs = plan.kpairs;
      break;
    }
  }
  RetainMapped(block);
  *out = form.gated ? static_cast<void*>(gated) : static_cast<void*>(p);
  return ENC_OK;
}

}  // namespace enc
