// precision = int8 (kernels/gemm_int8.h): the packing of W at load (per-row
// scales, s8 panels in groups of 4 K steps), the quantization of X at each
// call, and the dispatch to the kernel of the target that packed W.
#include "kernels/gemm_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/gemm.h"

// The AVX-512 VNNI target (vpdpbusd) is compiled here, beside the runtime's
// usual ones: only this kernel has a use for it.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm_int8.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm_int8-inl.h"

#if HWY_ONCE
#include "enc/kernels/threads.h"
#include "src/dispatch.h"
#include "src/large_alloc.h"
#include "src/mapped_file.h"
#include "src/status.h"

namespace enc {
ENC_EXPORT(GetInt8Kernel);
ENC_EXPORT(GetAmxInt8Kernel);
ENC_EXPORT(QuantizeRows);

Int8Kernel ChooseInt8Kernel() {
  if (SupportedAmx() & kAmxInt8) {
    const Int8Kernel amx = ENC_DYNAMIC_DISPATCH(GetAmxInt8Kernel)();
    if (amx.block != nullptr) return amx;
  }
  return ENC_DYNAMIC_DISPATCH(GetInt8Kernel)();
}

namespace {

constexpr int64_t kAlign = 64;

int64_t RoundUp(int64_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

// ---- Packing -------------------------------------------------------------

// W is quantized row by row as X is at each call (QuantizeRows), into s8
// rows of `ldq` bytes; the panels are then a shuffle of those bytes.
struct PackInt8Args {
  const WeightRows* w;
  int64_t panel, groups, ldq;
  int8_t* rows;  // [n, ldq]
  Int8Panels* out;
};

void QuantizeWeightRows(void* ctx, int64_t begin, int64_t end) {
  const PackInt8Args& a = *static_cast<const PackInt8Args*>(ctx);
  for (int64_t r = begin; r < end; ++r) {
    ENC_DYNAMIC_DISPATCH(QuantizeRows)(a.w->Row(r), a.w->k, a.w->k, 0, 1,
                                       a.rows + r * a.ldq, a.ldq,
                                       a.out->scales + r, 0);
  }
}

// Panels [begin, end): each column's groups of 4 bytes, and its sum.
void PackInt8Panels(void* ctx, int64_t begin, int64_t end) {
  const PackInt8Args& a = *static_cast<const PackInt8Args*>(ctx);
  const int64_t width = a.panel;
  for (int64_t p = begin; p < end; ++p) {
    int8_t* dst = a.out->panels + p * a.groups * width * kInt8Group;
    const int64_t cols = std::min(width, a.w->n - p * width);
    for (int64_t g = 0; g < a.groups; ++g) {
      int8_t* out = dst + g * width * kInt8Group;
      for (int64_t j = 0; j < cols; ++j) {
        std::memcpy(out + j * kInt8Group,
                    a.rows + (p * width + j) * a.ldq + g * kInt8Group,
                    kInt8Group);
      }
      std::memset(out + cols * kInt8Group, 0, (width - cols) * kInt8Group);
    }
    for (int64_t j = 0; j < width; ++j) {
      int32_t sum = 0;
      if (j < cols) {
        const int8_t* row = a.rows + (p * width + j) * a.ldq;
        for (int64_t i = 0; i < a.ldq; ++i) sum += row[i];
      }
      a.out->sums[p * width + j] = sum;
    }
  }
}

// ---- The call ------------------------------------------------------------

// The calling thread's quantized X, reused across calls (freed at exit).
class QuantizedX {
 public:
  ~QuantizedX() { std::free(block_); }
  // Room for m rows of `row_bytes`, their absolute values (at
  // abs_offset()) and m scales; false on failure.
  bool Reserve(int64_t m, int64_t row_bytes) {
    abs_offset_ = RoundUp(m * row_bytes);
    const int64_t bytes = 2 * abs_offset_ + m * int64_t{sizeof(float)};
    if (bytes > capacity_) {
      std::free(block_);
      capacity_ = 0;
      block_ = AllocLarge(static_cast<size_t>(bytes));
      if (block_ == nullptr) return false;
      capacity_ = bytes;
    }
    rows_ = static_cast<int8_t*>(block_);
    scales_ = reinterpret_cast<float*>(rows_ + 2 * abs_offset_);
    return true;
  }
  int8_t* rows() const { return rows_; }
  int64_t abs_offset() const { return abs_offset_; }
  float* scales() const { return scales_; }

 private:
  void* block_ = nullptr;
  int64_t capacity_ = 0;
  int8_t* rows_ = nullptr;
  int64_t abs_offset_ = 0;
  float* scales_ = nullptr;
};

struct QuantizeArgs {
  const float* x;
  int64_t ldx, k;
  int8_t* q;
  int64_t ldq;
  float* scale;
  int64_t abs_offset;
};

void QuantizeTask(void* ctx, int64_t begin, int64_t end) {
  const QuantizeArgs& a = *static_cast<const QuantizeArgs*>(ctx);
  ENC_DYNAMIC_DISPATCH(QuantizeRows)(a.x, a.ldx, a.k, begin, end, a.q, a.ldq,
                                     a.scale, a.abs_offset);
}

}  // namespace

bool PlanInt8(int64_t n, int64_t k, Int8Plan* plan) {
  Int8Plan& p = *plan;
  p.kernel = ChooseInt8Kernel();
  PlanPanels(p.kernel, n, (k + kInt8Group - 1) / kInt8Group, &p.panels,
             &p.groups);
  const int64_t width = p.kernel.panel;
  if (p.groups > (int64_t{1} << 40) / (p.panels * width * kInt8Group)) {
    return false;
  }
  p.panel_bytes = RoundUp(p.panels * p.groups * width * kInt8Group);
  p.column_bytes = RoundUp(p.panels * width * int64_t{sizeof(float)});
  p.bytes = p.panel_bytes + 2 * p.column_bytes;
  return true;
}

void ViewInt8(const Int8Plan& plan, void* block, Int8Panels* q) {
  q->kernel = plan.kernel;
  q->block = block;
  q->panels = static_cast<int8_t*>(block);
  q->scales = reinterpret_cast<float*>(q->panels + plan.panel_bytes);
  q->sums = reinterpret_cast<int32_t*>(q->panels + plan.panel_bytes +
                                       plan.column_bytes);
  q->groups = plan.groups;
}

enc_status PackInt8(const WeightRows& w, enc_packed_b** out) {
  const char* fn = "enc_gemm_pack";
  const int64_t n = w.n, k = w.k;
  Int8Plan plan;
  if (!PlanInt8(n, k, &plan)) {
    return Fail(ENC_ERR_INPUT, "%s: shape [%lld, %lld] is too large", fn,
                static_cast<long long>(n), static_cast<long long>(k));
  }
  const int64_t width = plan.kernel.panel, panels = plan.panels;
  const int64_t groups = plan.groups, bytes = plan.bytes;
  auto* packed = new (std::nothrow) enc_packed_b{};
  void* block = AllocLarge(static_cast<size_t>(bytes));
  if (packed == nullptr || block == nullptr) {
    delete packed;
    std::free(block);
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate %lld bytes", fn,
                static_cast<long long>(bytes));
  }
  Int8Panels& q = packed->int8;
  ViewInt8(plan, block, &q);
  std::fill(q.scales + n, q.scales + panels * width, 0.0f);
  const int64_t ldq = groups * kInt8Group;
  auto* rows = static_cast<int8_t*>(std::malloc(static_cast<size_t>(n * ldq)));
  if (rows == nullptr) {
    FreeInt8(&q);
    delete packed;
    return Fail(ENC_ERR_NOMEM, "%s: cannot allocate %lld bytes", fn,
                static_cast<long long>(n * ldq));
  }
  PackInt8Args args{&w, width, groups, ldq, rows, &q};
  enc_parallel_for(n, 16, &QuantizeWeightRows, &args);
  // A row that is not finite has a scale that is not (QuantizeRows).
  for (int64_t r = 0; r < n; ++r) {
    if (!std::isfinite(q.scales[r])) {
      std::free(rows);
      FreeInt8(&q);
      delete packed;
      return Fail(ENC_ERR_INPUT,
                  "%s: row %lld of W is not finite, and precision = int8 "
                  "cannot scale it",
                  fn, static_cast<long long>(r));
    }
  }
  enc_parallel_for(panels, 1, &PackInt8Panels, &args);
  std::free(rows);
  packed->n = n;
  packed->k = k;
  packed->panels = panels;
  packed->precision = ENC_PRECISION_INT8;
  packed->bytes = bytes;
  *out = packed;
  return ENC_OK;
}

void FreeInt8(Int8Panels* panels) {
  if (!ReleaseIfMapped(panels->block)) std::free(panels->block);
  *panels = Int8Panels{};
}

enc_status GemmInt8(int64_t m, const float* x, int64_t ldx,
                    const enc_packed_b* w, const float* bias,
                    enc_activation act, const float* residual, int64_t ldr,
                    float* y, int64_t ldy) {
  static thread_local QuantizedX quantized;
  const Int8Panels& q = w->int8;
  const int64_t ldq = q.groups * kInt8Group;
  const int64_t rows = m + q.kernel.pad_rows;
  if (!quantized.Reserve(rows, ldq)) {
    return Fail(
        ENC_ERR_NOMEM,
        "enc_gemm: cannot allocate %lld bytes for the quantized x",
        static_cast<long long>(rows * (2 * ldq + int64_t{sizeof(float)})));
  }
  std::memset(quantized.rows() + m * ldq, 0,
              static_cast<size_t>(q.kernel.pad_rows * ldq));
  // The quantization is a small fraction of the product: rows in blocks of
  // 16 on the pool.
  QuantizeArgs qa{x,
                  ldx,
                  w->k,
                  quantized.rows(),
                  ldq,
                  quantized.scales(),
                  q.kernel.needs_abs ? quantized.abs_offset() : 0};
  enc_parallel_for(m, 16, &QuantizeTask, &qa);
  const Int8Args args{{bias, act, residual, ldr, y, ldy},
                      m,
                      w->n,
                      w->k,
                      q.groups,
                      quantized.rows(),
                      quantized.abs_offset(),
                      quantized.scales(),
                      q.panels,
                      q.scales,
                      q.sums};
  RunFormat(args, q.kernel, m, w->n, w->k, w->panels);
  return ENC_OK;
}

}  // namespace enc
#endif  // HWY_ONCE
