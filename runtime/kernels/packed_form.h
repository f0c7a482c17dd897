// A packed matrix's form: everything but its bytes. The packed-weights file
// (src/packed_file.cc, docs/weights.md#packed-weights-files) stores it beside
// each block and, at load, compares it with the form this process would
// pack the same W in: equal forms mean equal layouts, so the block is viewed
// in place with this process's kernel; any difference is named and refused.
#ifndef ENC_RUNTIME_KERNELS_PACKED_FORM_H_
#define ENC_RUNTIME_KERNELS_PACKED_FORM_H_

#include <cstdint>

#include "enc/kernels/gemm.h"

namespace enc {

struct PackedForm {
  int32_t precision;  // enc_precision
  int32_t gated;      // 1: an enc_packed_gated (fp32)
  int64_t n, k;       // W [n, k]; gated: n outputs of each part
  int64_t panels;
  int64_t bytes;  // the one block the panels (and scales, sums) live in
  // The kernel's layout (kernels/gemm_plan.h FormatKernel).
  int64_t target, panel, rows, group_multiple, pad_rows;
  int64_t depth;    // packed K units: k (fp32), groups (int8), pairs (bf16)
  int64_t variant;  // int8: the tile reads |x|; bf16: vdpbf16ps; fp32: 0
};

// The form of a packed handle (gated: `p` is an enc_packed_gated's
// `packed`), and its block.
PackedForm FormOf(const enc_packed_b* p, bool gated, const void** block);

// The form this process packs W [n, k] in (ENC_TARGET applied).
// ENC_ERR_INPUT for a bad precision or a shape too large.
enc_status PlanForm(int32_t precision, bool gated, int64_t n, int64_t k,
                    PackedForm* form);

// The first field in which two forms differ ("panel", "target", ...), or
// nullptr if they are equal.
const char* FormDifference(const PackedForm& a, const PackedForm& b);

// A handle viewing `block`, which holds `form.bytes` bytes laid out as
// `form` says; `form` must equal PlanForm's. gated: *out is an
// enc_packed_gated. Freeing it releases the block (src/mapped_file.h).
enc_status ViewForm(const PackedForm& form, const void* block, void** out);

}  // namespace enc

#endif  // ENC_RUNTIME_KERNELS_PACKED_FORM_H_
