// Loading a model from a table of weight descriptors, and validating a
// forward call's input (enc/kernels/model.h, docs/weights.md). Off the hot path: clarity and
// exact messages matter more than speed here.
#include "enc/kernels/model.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "enc/checkpoint_names.h"
#include "enc/kernels/gemm.h"
#include "enc/kernels/weights.h"
#include "src/foreign_layout.h"
#include "src/large_alloc.h"
#include "src/layout.h"
#include "src/safetensors.h"
#include "src/status.h"

namespace {

using enc::Fail;

constexpr size_t kAlign = 64;
// Largest slot accepted, in floats (2^40 floats = 4 TiB): keeps every size
// computation below far from overflow.
constexpr uint64_t kMaxSlotFloats = uint64_t{1} << 40;

const char* KindName(int32_t kind) {
  switch (kind) {
    case ENC_SLOT_VECTOR: return "VECTOR";
    case ENC_SLOT_PACKED_MATRIX: return "PACKED_MATRIX";
    case ENC_SLOT_TABLE: return "TABLE";
  }
  return "?";
}

// The first part's name, for messages about a descriptor that may be broken.
const char* FirstName(const enc_weight_desc& d) {
  return d.num_parts >= 1 && d.num_parts <= 3 && d.names[0] ? d.names[0] : "?";
}

// Checks descriptor i; on success *rows is the total row count (the rows
// kept, for a TABLE) and *floats the slot's float count.
enc_status CheckDesc(const char* fn, const enc_weight_desc& d, int32_t i,
                     int64_t* rows, uint64_t* floats) {
  const char* name = FirstName(d);
  if (d.kind != ENC_SLOT_VECTOR && d.kind != ENC_SLOT_PACKED_MATRIX &&
      d.kind != ENC_SLOT_TABLE) {
    return Fail(ENC_ERR_INPUT, "%s: descriptor %d ('%s'): unknown kind %d", fn,
                i, name, d.kind);
  }
  const int32_t max_parts = d.kind == ENC_SLOT_TABLE ? 1 : 3;
  if (d.num_parts < 1 || d.num_parts > max_parts) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): num_parts (%d) is outside 1..%d for "
                "a %s",
                fn, i, name, d.num_parts, max_parts, KindName(d.kind));
  }
  uint64_t total = 0;
  for (int32_t p = 0; p < d.num_parts; ++p) {
    if (d.names[p] == nullptr || d.names[p][0] == '\0') {
      return Fail(ENC_ERR_INPUT, "%s: descriptor %d: names[%d] is %s", fn, i, p,
                  d.names[p] ? "empty" : "NULL");
    }
    if (d.rows[p] < 1 || static_cast<uint64_t>(d.rows[p]) > kMaxSlotFloats) {
      return Fail(ENC_ERR_INPUT,
                  "%s: descriptor %d ('%s'): rows[%d] (%lld) is outside 1..%llu",
                  fn, i, d.names[p], p, (long long)d.rows[p],
                  (unsigned long long)kMaxSlotFloats);
    }
    total += static_cast<uint64_t>(d.rows[p]);  // <= 3 * 2^40: no overflow
  }
  if (d.kind == ENC_SLOT_VECTOR) {
    if (d.cols != 0) {
      return Fail(ENC_ERR_INPUT,
                  "%s: descriptor %d ('%s'): cols (%lld) must be 0 for a VECTOR",
                  fn, i, name, (long long)d.cols);
    }
  } else if (d.cols < 1 || static_cast<uint64_t>(d.cols) > kMaxSlotFloats) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): cols (%lld) is outside 1..%llu for a "
                "%s",
                fn, i, name, (long long)d.cols,
                (unsigned long long)kMaxSlotFloats, KindName(d.kind));
  }
  if (enc::checkpoint::Find(d.checkpoint) == nullptr) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): checkpoint (%d) is not a layout of "
                "enc_checkpoint",
                fn, i, name, d.checkpoint);
  }
  const int32_t precision = d.precision;
  if (precision != ENC_PRECISION_FP32 && precision != ENC_PRECISION_INT8 &&
      precision != ENC_PRECISION_BF16) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): precision (%d) is not an "
                "enc_precision",
                fn, i, name, precision);
  }
  if (precision != ENC_PRECISION_FP32 && d.kind != ENC_SLOT_PACKED_MATRIX) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): precision (%d) must be "
                "ENC_PRECISION_FP32 unless the kind is PACKED_MATRIX",
                fn, i, name, precision);
  }
  if (d.min_file_rows < 0 ||
      (d.min_file_rows != 0 && d.kind != ENC_SLOT_TABLE)) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): min_file_rows (%lld) must be %s", fn,
                i, name, (long long)d.min_file_rows,
                d.kind == ENC_SLOT_TABLE ? ">= 0" : "0 unless the kind is TABLE");
  }
  uint64_t count = total;
  if (d.kind != ENC_SLOT_VECTOR &&
      (__builtin_mul_overflow(total, static_cast<uint64_t>(d.cols), &count) ||
       count > kMaxSlotFloats)) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): [%llu, %lld] is too large", fn, i,
                name, (unsigned long long)total, (long long)d.cols);
  }
  if (count > kMaxSlotFloats) {
    return Fail(ENC_ERR_INPUT, "%s: descriptor %d ('%s'): %llu rows is too large",
                fn, i, name, (unsigned long long)count);
  }
  *rows = static_cast<int64_t>(total);
  *floats = count;
  return ENC_OK;
}

enc_status CheckDescs(const char* fn, const enc_weight_desc* descs, int32_t n) {
  if (n < 0) return Fail(ENC_ERR_INPUT, "%s: n (%d) is negative", fn, n);
  if (n > 0 && descs == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: descs is NULL (n = %d)", fn, n);
  }
  for (int32_t i = 0; i < n; ++i) {
    int64_t rows;
    uint64_t floats;
    if (enc_status s = CheckDesc(fn, descs[i], i, &rows, &floats)) return s;
  }
  return ENC_OK;
}

uint64_t RoundUp(uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// 64-byte aligned floats, freed with std::free. NULL on failure.
float* AlignedFloats(uint64_t count) {
  return static_cast<float*>(enc::AllocLarge(static_cast<size_t>(count * sizeof(float))));
}

// Where a packed matrix is converted to float before packing: one buffer,
// grown to the largest such matrix and reused, so each weight's floats are
// written into memory that is already mapped.
struct PackScratch {
  float* data = nullptr;
  uint64_t floats = 0;
  ~PackScratch() { std::free(data); }
  float* Get(uint64_t n) {
    if (n > floats) {
      std::free(data);
      data = AlignedFloats(n);
      floats = data != nullptr ? n : 0;
    }
    return data;
  }
};

// Reads the parts of `d` one after another into dst.
enc_status ReadParts(enc_weights* w, const enc_weight_desc& d, float* dst) {
  for (int32_t p = 0; p < d.num_parts; ++p) {
    if (d.kind == ENC_SLOT_VECTOR) {
      const int64_t shape[1] = {d.rows[p]};
      if (enc_status s = enc_weights_get(w, d.names[p], 1, shape, dst)) return s;
      dst += d.rows[p];
    } else {
      const int64_t shape[2] = {d.rows[p], d.cols};
      if (enc_status s = enc_weights_get(w, d.names[p], 2, shape, dst)) return s;
      dst += d.rows[p] * d.cols;
    }
  }
  return ENC_OK;
}

// A TABLE whose file tensor may have more rows than it keeps.
enc_status ReadTableRows(enc_weights* w, const enc_weight_desc& d, float* dst) {
  const char* name = d.names[0];
  const int64_t need = d.min_file_rows > d.rows[0] ? d.min_file_rows : d.rows[0];
  if (enc_weights_has(w, name)) {
    int ndim = 0;
    int64_t shape[2] = {0, 0};
    if (enc_status s = enc_weights_shape(w, name, 2, &ndim, shape)) return s;
    if (ndim == 2 && shape[1] == d.cols && shape[0] < need) {
      return Fail(ENC_ERR_WEIGHTS,
                  "%s: tensor '%s' has shape [%lld, %lld], expected [%lld, %lld] "
                  "(or more rows)",
                  enc_weights_path(w), name, (long long)shape[0],
                  (long long)shape[1], (long long)need, (long long)d.cols);
    }
  }
  // Missing tensors, other ranks and column counts: the loader's message.
  const int64_t shape[2] = {d.rows[0], d.cols};
  return enc_weights_get_rows(w, name, 2, shape, dst);
}

// The shape a descriptor's part p needs, as messages print it.
std::string PartShape(const enc_weight_desc& d, int32_t p) {
  std::string s = "[" + std::to_string(d.rows[p]);
  if (d.kind == ENC_SLOT_TABLE && d.min_file_rows > 0) s += " or more";
  if (d.kind != ENC_SLOT_VECTOR) s += ", " + std::to_string(d.cols);
  return s + "]";
}

// The descriptors with each name as the file holds it. In a checkpoint
// layout a tensor may be under the layout's prefix or an alternate name
// (checkpoint_layouts.def): the first the file has is read. A name the file
// lacks stays as the header lists it, for CheckAllPresent to report.
struct ResolvedDescs {
  std::vector<enc_weight_desc> descs;
  std::deque<std::string> names;  // what descs' names point at
};

void ResolveNames(enc_weights* w, const enc_weight_desc* descs, int32_t n,
                  ResolvedDescs* out) {
  out->descs.assign(descs, descs + n);
  for (enc_weight_desc& d : out->descs) {
    if (d.checkpoint == ENC_CHECKPOINT_ENC) continue;
    const auto layout = static_cast<enc_checkpoint>(d.checkpoint);
    for (int32_t p = 0; p < d.num_parts; ++p) {
      if (enc_weights_has(w, d.names[p])) continue;
      for (const std::string& name : enc::checkpoint::Candidates(layout, d.names[p])) {
        if (!enc_weights_has(w, name.c_str())) continue;
        out->names.push_back(name);
        d.names[p] = out->names.back().c_str();
        break;
      }
    }
  }
}

// A missing tensor as messages list it: its name, shape and, in a
// checkpoint layout, its canonical name (docs/weights.md).
std::string MissingName(const enc_weight_desc& d, int32_t p) {
  std::string s = std::string("'") + d.names[p] + "' " + PartShape(d, p);
  if (d.checkpoint != ENC_CHECKPOINT_ENC) {
    const std::string canonical = enc::checkpoint::Canonical(
        static_cast<enc_checkpoint>(d.checkpoint), d.names[p]);
    if (!canonical.empty() && canonical != d.names[p]) s += " (" + canonical + ")";
  }
  return s;
}

// Every tensor the descriptors name that the file lacks, reported at once:
// how many, the first few with their shapes, and the checkpoint layout the
// file's own names look like, if they look like a known one. A file written
// for another layout lacks them all; naming only the first would hide that.
enc_status CheckAllPresent(enc_weights* w, const enc_weight_desc* descs,
                           int32_t n) {
  constexpr int kListed = 4;
  std::string listed, first;
  int missing = 0, total = 0;
  int32_t layout = ENC_CHECKPOINT_ENC;
  for (int32_t i = 0; i < n; ++i) {
    layout = descs[i].checkpoint;
    for (int32_t p = 0; p < descs[i].num_parts; ++p, ++total) {
      if (enc_weights_has(w, descs[i].names[p])) continue;
      if (missing == 0) first = MissingName(descs[i], p);
      if (++missing > kListed) continue;
      if (!listed.empty()) listed += ", ";
      listed += MissingName(descs[i], p);
    }
  }
  if (missing == 0) return ENC_OK;
  std::string what = missing == 1
                         ? "tensor " + first + " is missing"
                         : std::to_string(missing) + " of the " +
                               std::to_string(total) +
                               " tensors the model reads are missing: " + listed;
  if (missing > kListed) what += " and " + std::to_string(missing - kListed) + " more";
  const enc::checkpoint::LayoutRow* row = enc::checkpoint::Find(layout);
  if (row != nullptr && layout != ENC_CHECKPOINT_ENC) {
    what += std::string("; the model reads the Hugging Face ") + row->spelling +
            " layout (checkpoint = " + row->spelling + ")";
  }
  enc::ForeignLayout foreign;
  if (enc::GuessForeignLayout(enc::FileOf(w), &foreign)) {
    std::string example = foreign.example.substr(0, 96);
    what += "; the file looks like a Hugging Face " +
            std::string(foreign.family) + " checkpoint (it holds '" + example +
            "')";
    if (layout == ENC_CHECKPOINT_ENC)
      what += ", whose tensor names this model does not read (docs/weights.md)";
  }
  return Fail(ENC_ERR_WEIGHTS, "%s: %s", enc_weights_path(w), what.c_str());
}

void FreeSlot(int32_t kind, void* slot) {
  if (kind == ENC_SLOT_PACKED_MATRIX) {
    enc_gemm_packed_free(static_cast<enc_packed_b*>(slot));
  } else {
    std::free(slot);
  }
}

// A PACKED_MATRIX whose parts are all F32 in the file is packed straight
// from the mapping: no float copy. *done is false (and nothing happened) if a
// part needs conversion.
enc_status PackFromFile(enc_weights* w, const enc_weight_desc& d, bool* done,
                        enc_packed_b** packed) {
  *done = false;
  const float* parts[3] = {nullptr, nullptr, nullptr};
  for (int32_t p = 0; p < d.num_parts; ++p) {
    const int64_t shape[2] = {d.rows[p], d.cols};
    if (enc_status s = enc_weights_view_f32(w, d.names[p], 2, shape, &parts[p])) return s;
    if (parts[p] == nullptr) return ENC_OK;
  }
  *done = true;
  enc_status s =
      enc_gemm_pack_parts_as(static_cast<enc_precision>(d.precision),
                             d.num_parts, parts, d.rows, d.cols, packed);
  for (int32_t p = 0; p < d.num_parts; ++p) enc_weights_release(w, d.names[p]);
  return s;
}

// Fills one slot. On failure nothing is held and *slot stays NULL.
enc_status LoadSlot(enc_weights* w, const enc_weight_desc& d, int32_t i,
                    PackScratch& scratch, void** slot) {
  int64_t rows = 0;
  uint64_t floats = 0;
  if (enc_status s = CheckDesc("enc_model_load", d, i, &rows, &floats)) return s;
  const bool packed_kind = d.kind == ENC_SLOT_PACKED_MATRIX;
  enc_packed_b* packed = nullptr;
  if (packed_kind) {
    bool done = false;
    enc_status s = PackFromFile(w, d, &done, &packed);
    if (done || s != ENC_OK) {
      if (s != ENC_OK && s != ENC_ERR_WEIGHTS) {
        const std::string why = enc_last_error();
        return Fail(s, "%s: tensor '%s'%s: %s", enc_weights_path(w), d.names[0],
                    d.num_parts > 1 ? " (fused)" : "", why.c_str());
      }
      if (s == ENC_OK) *slot = packed;
      return s;
    }
  }
  float* data = packed_kind ? scratch.Get(floats) : AlignedFloats(floats);
  if (data == nullptr) {
    return Fail(ENC_ERR_NOMEM, "%s: tensor '%s': cannot allocate %llu bytes",
                enc_weights_path(w), d.names[0],
                (unsigned long long)(floats * sizeof(float)));
  }
  enc_status s = d.kind == ENC_SLOT_TABLE && d.min_file_rows > 0
                     ? ReadTableRows(w, d, data)
                     : ReadParts(w, d, data);
  if (s != ENC_OK) {
    if (!packed_kind) std::free(data);
    return s;
  }
  if (!packed_kind) {
    *slot = data;
    return ENC_OK;
  }
  // The concatenation [rows, cols] is packed once; the scratch is reused.
  const float* concatenation = data;
  s = enc_gemm_pack_parts_as(static_cast<enc_precision>(d.precision), 1,
                             &concatenation, &rows, d.cols, &packed);
  if (s != ENC_OK) {
    const std::string why = enc_last_error();
    return Fail(s, "%s: tensor '%s'%s: %s", enc_weights_path(w), d.names[0],
                d.num_parts > 1 ? " (fused)" : "", why.c_str());
  }
  *slot = packed;
  return ENC_OK;
}

}  // namespace

extern "C" enc_status enc_model_load(const char* path,
                                     const enc_weight_desc* descs, int32_t n,
                                     void** slots) {
  constexpr const char* fn = "enc_model_load";
  if (n < 0) return Fail(ENC_ERR_INPUT, "%s: n (%d) is negative", fn, n);
  if (n > 0 && slots == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: slots is NULL (n = %d)", fn, n);
  }
  for (int32_t i = 0; i < n; ++i) slots[i] = nullptr;
  if (path == nullptr) return Fail(ENC_ERR_INPUT, "%s: path is NULL", fn);
  // Descriptors are checked before the file is touched: a broken table is
  // the compiler's bug, whatever the file holds.
  if (enc_status s = CheckDescs(fn, descs, n)) return s;

  enc_weights* w = nullptr;
  if (enc_status s = enc_weights_open(path, &w)) return s;
  ResolvedDescs resolved;
  ResolveNames(w, descs, n, &resolved);
  enc_status s = CheckAllPresent(w, resolved.descs.data(), n);
  PackScratch scratch;
  for (int32_t i = 0; i < n && s == ENC_OK; ++i) {
    s = LoadSlot(w, resolved.descs[i], i, scratch, &slots[i]);
  }
  enc_weights_close(w);
  if (s != ENC_OK) enc_model_free(descs, n, slots);
  return s;
}

extern "C" void enc_model_free(const enc_weight_desc* descs, int32_t n,
                               void** slots) {
  // Without descriptors the kinds are unknown: nothing can be freed safely.
  if (slots == nullptr || descs == nullptr || n <= 0) return;
  for (int32_t i = 0; i < n; ++i) {
    if (slots[i] == nullptr) continue;
    FreeSlot(descs[i].kind, slots[i]);
    slots[i] = nullptr;
  }
}

extern "C" enc_status enc_model_create(const char* path,
                                       const enc_weight_desc* descs, int32_t n,
                                       void*** out_slots) {
  constexpr const char* fn = "enc_model_create";
  if (out_slots == nullptr) return Fail(ENC_ERR_INPUT, "%s: out_slots is NULL", fn);
  *out_slots = nullptr;
  if (path == nullptr) return Fail(ENC_ERR_INPUT, "%s: path is NULL", fn);
  if (enc_status s = CheckDescs(fn, descs, n)) return s;
  void** slots = static_cast<void**>(
      std::calloc(n > 0 ? static_cast<size_t>(n) : 1, sizeof(void*)));
  if (slots == nullptr) {
    return Fail(ENC_ERR_NOMEM, "%s: %s: cannot allocate %d slots", fn, path, n);
  }
  if (enc_status s = enc_model_load(path, descs, n, slots)) {
    std::free(slots);
    return s;
  }
  *out_slots = slots;
  return ENC_OK;
}

extern "C" void enc_model_destroy(const enc_weight_desc* descs, int32_t n,
                                  void** slots) {
  if (slots == nullptr) return;
  enc_model_free(descs, n, slots);
  std::free(slots);
}

namespace {
// The bytes a slot's elements take in its precision (enc_model_bytes).
uint64_t SlotBytes(const enc_weight_desc& d, int64_t rows, uint64_t count) {
  switch (static_cast<enc_precision>(d.precision)) {
    case ENC_PRECISION_FP32:
      break;
    case ENC_PRECISION_INT8:  // a byte each, and a scale per row
      return count + static_cast<uint64_t>(rows) * sizeof(float);
    case ENC_PRECISION_BF16:
      return count * 2;
  }
  return count * sizeof(float);
}
}  // namespace

extern "C" int64_t enc_model_bytes(const enc_weight_desc* descs, int32_t n) {
  if (CheckDescs("enc_model_bytes", descs, n) != ENC_OK) return -1;
  uint64_t total = 0;  // n < 2^31 slots of < 2^42 bytes: no overflow
  for (int32_t i = 0; i < n; ++i) {
    int64_t rows = 0;
    uint64_t floats = 0;
    CheckDesc("enc_model_bytes", descs[i], i, &rows, &floats);
    total += RoundUp(SlotBytes(descs[i], rows, floats));
  }
  return static_cast<int64_t>(total);
}

// ---- Input validation -------------------------------------------------------

namespace {

// Checks ids[b * seq_len + i] in [0, limit) for every b, i.
enc_status CheckIds(const char* field, const char* what, const int32_t* ids,
                    int32_t batch, int32_t seq_len, int32_t limit) {
  const int64_t count = int64_t{batch} * seq_len;
  for (int64_t k = 0; k < count; ++k) {
    if (ids[k] < 0 || ids[k] >= limit) {
      return Fail(ENC_ERR_INPUT,
                  "bad input: %s at batch row %lld, position %lld is %d, "
                  "outside the %s 0..%d",
                  field, (long long)(k / seq_len), (long long)(k % seq_len),
                  ids[k], what, limit - 1);
    }
  }
  return ENC_OK;
}

}  // namespace

extern "C" enc_status enc_check_model(const void* model, const char* name) {
  if (model != nullptr) return ENC_OK;
  return Fail(ENC_ERR_INPUT, "%s_forward: model is NULL (was it loaded?)",
              name != nullptr ? name : "model");
}

extern "C" enc_status enc_check_probs(const float* probs, const char* name) {
  if (probs != nullptr) return ENC_OK;
  return Fail(ENC_ERR_INPUT,
              "%s_forward_attention: probs is NULL (it receives [blocks, batch, "
              "heads, seq_len, seq_len] floats)",
              name != nullptr ? name : "model");
}

extern "C" enc_status enc_check_input(const enc_model_info* info,
                                      const enc_input* in, const float* out) {
  if (info == nullptr) return Fail(ENC_ERR_INPUT, "enc_check_input: info is NULL");
  if (info->d_model < 1 || info->max_len < 1 || info->vocab < 0 ||
      info->type_vocab < 0 || (info->type_vocab > 0 && info->vocab == 0)) {
    return Fail(ENC_ERR_INPUT,
                "enc_check_input: bad model info (d_model %d, max_len %d, vocab "
                "%d, type_vocab %d)",
                info->d_model, info->max_len, info->vocab, info->type_vocab);
  }
  if (in == nullptr) return Fail(ENC_ERR_INPUT, "bad input: the input (in) is NULL");
  if (out == nullptr) return Fail(ENC_ERR_INPUT, "bad input: the output (out) is NULL");
  if (in->batch < 1) {
    return Fail(ENC_ERR_INPUT, "bad input: batch is %d, must be >= 1", in->batch);
  }
  if (in->seq_len < 1 || in->seq_len > info->max_len) {
    return Fail(ENC_ERR_INPUT, "bad input: seq_len is %d, outside 1..%d (max_len)",
                in->seq_len, info->max_len);
  }
  // batch * seq_len * d_model floats must be addressable in bytes.
  int64_t elems = 0, bytes = 0;
  if (__builtin_mul_overflow(int64_t{in->batch}, int64_t{in->seq_len}, &elems) ||
      __builtin_mul_overflow(elems, int64_t{info->d_model}, &elems) ||
      __builtin_mul_overflow(elems, int64_t{sizeof(float)}, &bytes) ||
      static_cast<uint64_t>(bytes) > SIZE_MAX) {
    return Fail(ENC_ERR_INPUT,
                "bad input: batch (%d) * seq_len (%d) * d_model (%d) floats "
                "overflow",
                in->batch, in->seq_len, info->d_model);
  }
  if (enc_status s = enc::CheckLengths("bad input", in->batch, in->seq_len,
                                       in->lengths)) {
    return s;
  }
  if (info->vocab > 0) {
    if (in->tokens == nullptr) {
      return Fail(ENC_ERR_INPUT,
                  "bad input: tokens is NULL (the model takes token ids, vocab "
                  "%d)",
                  info->vocab);
    }
    if (enc_status s = CheckIds("tokens", "vocabulary", in->tokens, in->batch,
                                in->seq_len, info->vocab)) {
      return s;
    }
  } else if (in->embeddings == nullptr) {
    return Fail(ENC_ERR_INPUT,
                "bad input: embeddings is NULL (the model takes float "
                "embeddings [batch, seq_len, %d], vocab 0)",
                info->d_model);
  }
  if (in->token_types != nullptr) {
    if (info->type_vocab == 0) {
      return Fail(ENC_ERR_INPUT,
                  "bad input: token_types is given but the model has no token "
                  "types (type_vocab 0); pass NULL");
    }
    if (enc_status s = CheckIds("token_types", "token types", in->token_types,
                                in->batch, in->seq_len, info->type_vocab)) {
      return s;
    }
  }
  return ENC_OK;
}
