// Elementwise kernels: argument checks, per-target dispatch, rows split over
// the thread pool.
#include "enc/kernels/elementwise.h"

#include "enc/kernels/threads.h"
#include "src/status.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/elementwise-inl.h"

HWY_BEFORE_NAMESPACE();
namespace enc {
namespace HWY_NAMESPACE {
void ActivationRowsT(int32_t act, int64_t rows, int64_t d, const float* x,
                     int64_t ld_x, float* y, int64_t ld_y) {
  ActivationRows(act, rows, d, x, ld_x, y, ld_y);
}
void AddRowsT(int64_t rows, int64_t d, const float* a, int64_t ld_a,
              const float* b, int64_t ld_b, float* y, int64_t ld_y) {
  AddRows(rows, d, a, ld_a, b, ld_b, y, ld_y);
}
void MulRowsT(int64_t rows, int64_t d, const float* a, int64_t ld_a,
              const float* b, int64_t ld_b, float* y, int64_t ld_y) {
  MulRows(rows, d, a, ld_a, b, ld_b, y, ld_y);
}
}  // namespace HWY_NAMESPACE
}  // namespace enc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/dispatch.h"

namespace enc {
ENC_EXPORT(ActivationRowsT);
ENC_EXPORT(AddRowsT);
ENC_EXPORT(MulRowsT);

namespace {
// Rows [begin, end) of y = act(a) (ActivationRowsT), a + b (AddRowsT) or
// a * b (MulRowsT).
enum class RowOp { kActivation, kAdd, kMul };
struct RowsTask {
  RowOp op;
  int32_t act;  // kActivation only
  int64_t d;
  const float* a;
  int64_t ld_a;
  const float* b;  // kAdd and kMul only
  int64_t ld_b;
  float* y;
  int64_t ld_y;
};
void RunRowsTask(void* ctx, int64_t begin, int64_t end) {
  const RowsTask& t = *static_cast<RowsTask*>(ctx);
  const float* a = t.a + begin * t.ld_a;
  const float* b = t.b == nullptr ? nullptr : t.b + begin * t.ld_b;
  float* y = t.y + begin * t.ld_y;
  switch (t.op) {
    case RowOp::kActivation:
      ENC_DYNAMIC_DISPATCH(ActivationRowsT)
      (t.act, end - begin, t.d, a, t.ld_a, y, t.ld_y);
      return;
    case RowOp::kAdd:
      ENC_DYNAMIC_DISPATCH(AddRowsT)
      (end - begin, t.d, a, t.ld_a, b, t.ld_b, y, t.ld_y);
      return;
    case RowOp::kMul:
      ENC_DYNAMIC_DISPATCH(MulRowsT)
      (end - begin, t.d, a, t.ld_a, b, t.ld_b, y, t.ld_y);
      return;
  }
}

enc_status CheckRows(const char* fn, int64_t rows, int64_t d, int64_t ld_y,
                     const float* y) {
  if (rows < 0)
    return Fail(ENC_ERR_INPUT, "%s: rows (%lld) < 0", fn, (long long)rows);
  if (d < 1) return Fail(ENC_ERR_INPUT, "%s: d (%lld) < 1", fn, (long long)d);
  if (y == nullptr) return Fail(ENC_ERR_INPUT, "%s: y is NULL", fn);
  if (ld_y < d) {
    return Fail(ENC_ERR_INPUT, "%s: ld_y (%lld) < d (%lld)", fn,
                (long long)ld_y, (long long)d);
  }
  return ENC_OK;
}

// enc_add_rows and enc_mul_rows: the same checks and split.
enc_status BinaryRows(const char* fn, bool mul, int64_t rows, int64_t d,
                      const float* a, int64_t ld_a, const float* b,
                      int64_t ld_b, float* y, int64_t ld_y) {
  if (enc_status s = CheckRows(fn, rows, d, ld_y, y)) return s;
  if (a == nullptr || b == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn, a == nullptr ? "a" : "b");
  }
  if (ld_a < d || ld_b < d) {
    return Fail(ENC_ERR_INPUT,
                "%s: ld_a (%lld) and ld_b (%lld) must be >= d (%lld)", fn,
                (long long)ld_a, (long long)ld_b, (long long)d);
  }
  RowsTask task{
      mul ? RowOp::kMul : RowOp::kAdd, 0, d, a, ld_a, b, ld_b, y, ld_y};
  enc_parallel_for(rows, 16, RunRowsTask, &task);
  return ENC_OK;
}
}  // namespace
}  // namespace enc

extern "C" enc_status enc_activation_rows(int32_t act, int64_t rows, int64_t d,
                                          const float* x, int64_t ld_x,
                                          float* y, int64_t ld_y) {
  using enc::Fail;
  const char* fn = "enc_activation_rows";
  if (!enc::IsActivation(act)) {
    return Fail(ENC_ERR_INPUT, "%s: unknown activation %d", fn, act);
  }
  if (enc_status s = enc::CheckRows(fn, rows, d, ld_y, y)) return s;
  if (x == nullptr) return Fail(ENC_ERR_INPUT, "%s: x is NULL", fn);
  if (ld_x < d)
    return Fail(ENC_ERR_INPUT, "%s: ld_x (%lld) < d", fn, (long long)ld_x);
  enc::RowsTask task{
      enc::RowOp::kActivation, act, d, x, ld_x, nullptr, 0, y, ld_y};
  enc_parallel_for(rows, 16, enc::RunRowsTask, &task);
  return ENC_OK;
}

extern "C" enc_status enc_add_rows(int64_t rows, int64_t d, const float* a,
                                   int64_t ld_a, const float* b, int64_t ld_b,
                                   float* y, int64_t ld_y) {
  return enc::BinaryRows("enc_add_rows", /*mul=*/false, rows, d, a, ld_a, b,
                         ld_b, y, ld_y);
}

extern "C" enc_status enc_mul_rows(int64_t rows, int64_t d, const float* a,
                                   int64_t ld_a, const float* b, int64_t ld_b,
                                   float* y, int64_t ld_y) {
  return enc::BinaryRows("enc_mul_rows", /*mul=*/true, rows, d, a, ld_a, b,
                         ld_b, y, ld_y);
}
#endif  // HWY_ONCE
