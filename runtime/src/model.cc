// Loading a model from a table of weight descriptors, and validating a
// forward call's input (enc/kernels/model.h, docs/weights.md). Off the hot
// path: clarity and exact messages matter more than speed here.
#include "enc/kernels/model.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "enc/checkpoint_names.h"
#include "enc/kernels/gemm.h"
#include "enc/kernels/weights.h"
#include "src/cache_writer.h"
#include "src/foreign_layout.h"
#include "src/large_alloc.h"
#include "src/layout.h"
#include "src/mapped_file.h"
#include "src/packed_file.h"
#include "src/safetensors.h"
#include "src/overlap.h"
#include "src/status.h"

namespace {

using enc::Fail;

constexpr size_t kAlign = 64;
// Largest slot accepted, in floats (2^40 floats = 4 TiB): keeps every size
// computation below far from overflow.
constexpr uint64_t kMaxSlotFloats = uint64_t{1} << 40;

const char* KindName(int32_t kind) {
  const char* noun = enc_slot_kind_noun(kind);
  return noun != nullptr ? noun : "slot of an unknown kind";
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
      d.kind != ENC_SLOT_TABLE && d.kind != ENC_SLOT_PACKED_GATED) {
    return Fail(ENC_ERR_INPUT, "%s: descriptor %d ('%s'): unknown kind %d", fn,
                i, name, d.kind);
  }
  // Parts: a TABLE has one, a PACKED_GATED exactly two (gate, up).
  const bool gated = d.kind == ENC_SLOT_PACKED_GATED;
  const int32_t min_parts = gated ? 2 : 1;
  const int32_t max_parts = d.kind == ENC_SLOT_TABLE ? 1 : gated ? 2 : 3;
  if (d.num_parts < min_parts || d.num_parts > max_parts) {
    return Fail(
        ENC_ERR_INPUT,
        "%s: descriptor %d ('%s'): num_parts (%d) is outside %d..%d for "
        "%s",
        fn, i, name, d.num_parts, min_parts, max_parts, KindName(d.kind));
  }
  if (gated && d.rows[0] != d.rows[1]) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): a PACKED_GATED's gate and up parts "
                "differ in rows (%lld and %lld)",
                fn, i, name, (long long)d.rows[0], (long long)d.rows[1]);
  }
  uint64_t total = 0;
  for (int32_t p = 0; p < d.num_parts; ++p) {
    if (d.names[p] == nullptr || d.names[p][0] == '\0') {
      return Fail(ENC_ERR_INPUT, "%s: descriptor %d: names[%d] is %s", fn, i, p,
                  d.names[p] ? "empty" : "NULL");
    }
    if (d.rows[p] < 1 || static_cast<uint64_t>(d.rows[p]) > kMaxSlotFloats) {
      return Fail(
          ENC_ERR_INPUT,
          "%s: descriptor %d ('%s'): rows[%d] (%lld) is outside 1..%llu", fn, i,
          d.names[p], p, (long long)d.rows[p],
          (unsigned long long)kMaxSlotFloats);
    }
    total += static_cast<uint64_t>(d.rows[p]);  // <= 3 * 2^40: no overflow
  }
  if (d.kind == ENC_SLOT_VECTOR) {
    if (d.cols != 0) {
      return Fail(
          ENC_ERR_INPUT,
          "%s: descriptor %d ('%s'): cols (%lld) must be 0 for a VECTOR", fn, i,
          name, (long long)d.cols);
    }
  } else if (d.cols < 1 || static_cast<uint64_t>(d.cols) > kMaxSlotFloats) {
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): cols (%lld) is outside 1..%llu for "
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
    return Fail(
        ENC_ERR_INPUT,
        "%s: descriptor %d ('%s'): min_file_rows (%lld) must be %s", fn, i,
        name, (long long)d.min_file_rows,
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
    return Fail(ENC_ERR_INPUT,
                "%s: descriptor %d ('%s'): %llu rows is too large", fn, i, name,
                (unsigned long long)count);
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

uint64_t RoundUp(uint64_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

// 64-byte aligned floats, freed with std::free. NULL on failure.
float* AlignedFloats(uint64_t count) {
  return static_cast<float*>(
      enc::AllocLarge(static_cast<size_t>(count * sizeof(float))));
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

// Where each part of a descriptor is in the file. With enc the part is the
// tensor names[p] itself; in a checkpoint layout names[p] is a canonical
// name, found through the layout's table (families.def) under its
// prefix and alternates, possibly as a row slice of a fused tensor.
struct PartRef {
  std::string tensor;          // the file's name (as the header lists it if
                               // the file lacks every candidate)
  std::vector<int64_t> shape;  // the whole tensor's shape
  int64_t first_row = 0;       // the part is rows [first_row, + d.rows[p])
  int32_t parts = 1;           // > 1: a row slice of a fused tensor
  std::string canonical;       // "" with enc
};

struct ResolvedSlot {
  enc_weight_desc d;
  PartRef parts[3];
};

enc::SafeTensors::Rows RowsOf(const ResolvedSlot& r, int32_t p) {
  return {r.parts[p].first_row, r.d.rows[p]};
}

// Reads the parts of `r` one after another into dst.
enc_status ReadParts(enc_weights* w, const ResolvedSlot& r, float* dst) {
  const enc_weight_desc& d = r.d;
  for (int32_t p = 0; p < d.num_parts; ++p) {
    const PartRef& part = r.parts[p];
    std::string local;
    const enc::SafeTensors& file = enc::FileOf(w, part.tensor, &local);
    if (enc_status s = file.GetRows(local, part.shape, RowsOf(r, p), dst))
      return s;
    file.ReleaseRows(local, RowsOf(r, p));
    dst += d.kind == ENC_SLOT_VECTOR ? d.rows[p] : d.rows[p] * d.cols;
  }
  return ENC_OK;
}

// A TABLE whose file tensor may have more rows than it keeps.
enc_status ReadTableRows(enc_weights* w, const ResolvedSlot& r, float* dst) {
  const enc_weight_desc& d = r.d;
  const char* name = r.parts[0].tensor.c_str();
  const int64_t need =
      d.min_file_rows > d.rows[0] ? d.min_file_rows : d.rows[0];
  if (enc_weights_has(w, name)) {
    int ndim = 0;
    int64_t shape[2] = {0, 0};
    if (enc_status s = enc_weights_shape(w, name, 2, &ndim, shape)) return s;
    if (ndim == 2 && shape[1] == d.cols && shape[0] < need) {
      return Fail(
          ENC_ERR_WEIGHTS,
          "%s: tensor '%s' has shape [%lld, %lld], expected [%lld, %lld] "
          "(or more rows)",
          enc_weights_path(w), name, (long long)shape[0], (long long)shape[1],
          (long long)need, (long long)d.cols);
    }
  }
  // Missing tensors, other ranks and column counts: the loader's message.
  const int64_t shape[2] = {d.rows[0], d.cols};
  enc_status s = enc_weights_get_rows(w, name, 2, shape, dst);
  if (s == ENC_OK) enc_weights_release(w, name);
  return s;
}

std::string ShapeString(const std::vector<int64_t>& shape, bool or_more) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
    if (i == 0 && or_more) s += " or more";
  }
  return s + "]";
}

// Resolves every part of every descriptor (layout, prefix, alternates, row
// slices): the first candidate the file holds, else the name the header
// lists, for CheckAllPresent to report.
enc_status ResolveNames(enc_weights* w, const enc_weight_desc* descs, int32_t n,
                        std::vector<ResolvedSlot>* out) {
  out->assign(static_cast<size_t>(n), ResolvedSlot{});
  // The layouts' gated names are for a model that reads a gate.
  bool gated = false;
  for (int32_t i = 0; i < n; ++i)
    for (int32_t p = 0; p < descs[i].num_parts; ++p)
      gated = gated || (descs[i].checkpoint != ENC_CHECKPOINT_ENC &&
                        enc::checkpoint::IsGateName(descs[i].names[p]));
  for (int32_t i = 0; i < n; ++i) {
    ResolvedSlot& r = (*out)[static_cast<size_t>(i)];
    r.d = descs[i];
    const enc_weight_desc& d = r.d;
    const auto layout = static_cast<enc_checkpoint>(d.checkpoint);
    for (int32_t p = 0; p < d.num_parts; ++p) {
      PartRef& part = r.parts[p];
      std::vector<enc::checkpoint::FileRef> refs =
          enc::checkpoint::Candidates(layout, d.names[p], gated);
      if (refs.empty()) {
        const enc::checkpoint::LayoutRow* row = enc::checkpoint::Find(layout);
        return Fail(
            ENC_ERR_INPUT,
            "enc_model_load: descriptor %d: the %s layout has no tensor "
            "for '%s'",
            i, row ? row->spelling : "?", d.names[p]);
      }
      const enc::checkpoint::FileRef* found = &refs.front();
      for (const enc::checkpoint::FileRef& ref : refs) {
        if (!enc_weights_has(w, ref.name.c_str())) continue;
        found = &ref;
        break;
      }
      if (found->parts > 1 && d.min_file_rows != 0) {
        return Fail(ENC_ERR_INPUT,
                    "enc_model_load: descriptor %d ('%s'): a table with "
                    "min_file_rows cannot be a row slice of '%s'",
                    i, d.names[p], found->name.c_str());
      }
      part.tensor = found->name;
      part.parts = found->parts;
      part.first_row = found->part * d.rows[p];  // < 3 * 2^40: no overflow
      part.shape = {found->parts * d.rows[p]};
      if (d.kind != ENC_SLOT_VECTOR) part.shape.push_back(d.cols);
      if (layout != ENC_CHECKPOINT_ENC) part.canonical = d.names[p];
    }
  }
  return ENC_OK;
}

// Every tensor the descriptors read that the file lacks, reported at once:
// how many, the first few with their shapes (a fused tensor once, with its
// whole shape) and, in a checkpoint layout, their canonical names; and the
// checkpoint layout the file's own names look like, if they look like a
// known one. A file written for another layout lacks them all; naming only
// the first would hide that.
enc_status CheckAllPresent(enc_weights* w,
                           const std::vector<ResolvedSlot>& slots) {
  constexpr size_t kListed = 4;
  struct Missing {
    std::string tensor, shape;
    std::vector<std::string> canonicals;
  };
  std::vector<Missing> missing;
  std::vector<std::string> seen;
  int32_t layout = ENC_CHECKPOINT_ENC;
  for (const ResolvedSlot& r : slots) {
    layout = r.d.checkpoint;
    for (int32_t p = 0; p < r.d.num_parts; ++p) {
      const PartRef& part = r.parts[p];
      const bool known =
          std::find(seen.begin(), seen.end(), part.tensor) != seen.end();
      if (!known) seen.push_back(part.tensor);
      if (enc_weights_has(w, part.tensor.c_str())) continue;
      const bool listed_canonical =
          !part.canonical.empty() && part.canonical != part.tensor;
      if (known) {
        for (Missing& m : missing)
          if (m.tensor == part.tensor && listed_canonical &&
              std::find(m.canonicals.begin(), m.canonicals.end(),
                        part.canonical) == m.canonicals.end())
            m.canonicals.push_back(part.canonical);
        continue;
      }
      const bool or_more = r.d.kind == ENC_SLOT_TABLE && r.d.min_file_rows > 0;
      std::vector<int64_t> shape = part.shape;
      if (or_more) shape[0] = std::max(r.d.rows[p], r.d.min_file_rows);
      missing.push_back({part.tensor, ShapeString(shape, or_more), {}});
      if (listed_canonical) missing.back().canonicals.push_back(part.canonical);
    }
  }
  if (missing.empty()) return ENC_OK;
  auto describe = [](const Missing& m) {
    std::string s = "'" + m.tensor + "' " + m.shape;
    for (size_t i = 0; i < m.canonicals.size(); ++i)
      s += (i == 0 ? " (" : ", ") + m.canonicals[i];
    return m.canonicals.empty() ? s : s + ")";
  };
  std::string what;
  if (missing.size() == 1) {
    what = "tensor " + describe(missing[0]) + " is missing";
  } else {
    what = std::to_string(missing.size()) + " of the " +
           std::to_string(seen.size()) +
           " tensors the model reads are missing: ";
    for (size_t i = 0; i < missing.size() && i < kListed; ++i)
      what += (i > 0 ? ", " : "") + describe(missing[i]);
    if (missing.size() > kListed)
      what += " and " + std::to_string(missing.size() - kListed) + " more";
  }
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
  switch (static_cast<enc_slot_kind>(kind)) {
    case ENC_SLOT_PACKED_MATRIX:
      enc_gemm_packed_free(static_cast<enc_packed_b*>(slot));
      return;
    case ENC_SLOT_PACKED_GATED:
      enc_gemm_gated_free(static_cast<enc_packed_gated*>(slot));
      return;
    case ENC_SLOT_VECTOR:
    case ENC_SLOT_TABLE:
      if (!enc::ReleaseIfMapped(slot)) std::free(slot);  // packed files'
      return;
  }
  std::free(slot);  // not reached: descriptors are checked before loading
}

bool IsPackedKind(int32_t kind) {
  return kind == ENC_SLOT_PACKED_MATRIX || kind == ENC_SLOT_PACKED_GATED;
}

// Packs the parts of a PACKED_MATRIX or PACKED_GATED descriptor into *slot.
enc_status PackParts(const enc_weight_desc& d, const float* const* parts,
                     void** slot) {
  if (d.kind == ENC_SLOT_PACKED_GATED) {
    enc_packed_gated* gated = nullptr;
    enc_status s =
        enc_gemm_pack_gated(parts[0], parts[1], d.rows[0], d.cols, &gated);
    *slot = gated;
    return s;
  }
  enc_packed_b* packed = nullptr;
  enc_status s =
      enc_gemm_pack_parts_as(static_cast<enc_precision>(d.precision),
                             d.num_parts, parts, d.rows, d.cols, &packed);
  *slot = packed;
  return s;
}

// A packed slot whose parts are all F32 in the file is packed straight
// from the mapping, a row slice of a fused tensor included: no float copy.
// *done is false (and nothing happened) if a part needs conversion.
enc_status PackFromFile(enc_weights* w, const ResolvedSlot& r, bool* done,
                        void** packed) {
  const enc_weight_desc& d = r.d;
  *done = false;
  const float* parts[3] = {nullptr, nullptr, nullptr};
  std::string local;
  for (int32_t p = 0; p < d.num_parts; ++p) {
    if (enc_status s =
            enc::FileOf(w, r.parts[p].tensor, &local)
                .ViewRows(local, r.parts[p].shape, RowsOf(r, p), &parts[p]))
      return s;
    if (parts[p] == nullptr) return ENC_OK;
  }
  *done = true;
  enc_status s = PackParts(d, parts, packed);
  for (int32_t p = 0; p < d.num_parts; ++p) {
    enc::FileOf(w, r.parts[p].tensor, &local).ReleaseRows(local, RowsOf(r, p));
  }
  return s;
}

// Fills one slot. On failure nothing is held and *slot stays NULL.
enc_status LoadSlot(enc_weights* w, const ResolvedSlot& r, int32_t i,
                    PackScratch& scratch, void** slot) {
  const enc_weight_desc& d = r.d;
  const char* name = r.parts[0].tensor.c_str();
  int64_t rows = 0;
  uint64_t floats = 0;
  if (enc_status s = CheckDesc("enc_model_load", d, i, &rows, &floats))
    return s;
  const bool packed_kind = IsPackedKind(d.kind);
  void* packed = nullptr;
  if (packed_kind) {
    bool done = false;
    enc_status s = PackFromFile(w, r, &done, &packed);
    if (done || s != ENC_OK) {
      if (s != ENC_OK && s != ENC_ERR_WEIGHTS) {
        const std::string why = enc_last_error();
        return Fail(s, "%s: tensor '%s'%s: %s", enc_weights_path(w), name,
                    d.num_parts > 1 ? " (fused)" : "", why.c_str());
      }
      if (s == ENC_OK) *slot = packed;
      return s;
    }
  }
  float* data = packed_kind ? scratch.Get(floats) : AlignedFloats(floats);
  if (data == nullptr) {
    return Fail(ENC_ERR_NOMEM, "%s: tensor '%s': cannot allocate %llu bytes",
                enc_weights_path(w), name,
                (unsigned long long)(floats * sizeof(float)));
  }
  enc_status s = d.kind == ENC_SLOT_TABLE && d.min_file_rows > 0
                     ? ReadTableRows(w, r, data)
                     : ReadParts(w, r, data);
  if (s != ENC_OK) {
    if (!packed_kind) std::free(data);
    return s;
  }
  if (!packed_kind) {
    *slot = data;
    return ENC_OK;
  }
  // The parts, read one after another, are packed once; the scratch is
  // reused.
  const float* parts[3] = {data, nullptr, nullptr};
  for (int32_t p = 1; p < d.num_parts; ++p) {
    parts[p] = parts[p - 1] + d.rows[p - 1] * d.cols;
  }
  s = PackParts(d, parts, &packed);
  if (s != ENC_OK) {
    const std::string why = enc_last_error();
    return Fail(s, "%s: tensor '%s'%s: %s", enc_weights_path(w), name,
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
  if (enc::IsPackedFile(path)) return enc::LoadPacked(path, descs, n, slots);

  enc_weights* w = nullptr;
  if (enc_status s = enc_weights_open(path, &w)) return s;
  // ENC_CACHE_DIR: a packed copy made by an earlier load of the same files
  // is mapped instead; one that does not fit (or is broken) is rewritten.
  const std::vector<std::string> sources = enc::FilePaths(w);
  const std::string cache = enc::CachePath(descs, n, sources);
  if (!cache.empty() && enc::IsPackedFile(cache.c_str()) &&
      enc::LoadPacked(cache.c_str(), descs, n, slots) == ENC_OK) {
    enc_weights_close(w);
    return ENC_OK;
  }
  std::vector<ResolvedSlot> resolved;
  enc_status s = ResolveNames(w, descs, n, &resolved);
  if (s == ENC_OK) s = CheckAllPresent(w, resolved);
  PackScratch scratch;
  for (int32_t i = 0; i < n && s == ENC_OK; ++i) {
    s = LoadSlot(w, resolved[static_cast<size_t>(i)], i, scratch, &slots[i]);
  }
  enc_weights_close(w);
  if (s != ENC_OK) {
    enc_model_free(descs, n, slots);
    return s;
  }
  if (!cache.empty()) {
    // The cache is an optimisation: a directory that cannot be written
    // costs the next load its packing, not this load its model.
    mkdir(std::getenv("ENC_CACHE_DIR"), 0755);
    enc::StartCacheWrite(cache, descs, n, slots, sources);
  }
  return ENC_OK;
}

extern "C" enc_status enc_model_pack(const char* weights_path,
                                     const char* packed_path,
                                     const enc_weight_desc* descs, int32_t n) {
  constexpr const char* fn = "enc_model_pack";
  if (weights_path == nullptr || packed_path == nullptr) {
    return Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                weights_path == nullptr ? "weights_path" : "packed_path");
  }
  if (enc::IsPackedFile(weights_path)) {
    return Fail(ENC_ERR_INPUT,
                "%s: %s is already a packed-weights file; pack from the "
                "safetensors file or model directory",
                fn, weights_path);
  }
  std::vector<std::string> sources;
  {
    enc_weights* w = nullptr;
    if (enc_status s = enc_weights_open(weights_path, &w)) return s;
    sources = enc::FilePaths(w);
    enc_weights_close(w);
  }
  void** slots = nullptr;
  if (enc_status s = enc_model_create(weights_path, descs, n, &slots)) {
    return s;
  }
  enc_status s = enc::SavePacked(packed_path, descs, n, slots, sources,
                                 enc::SaveMode::kPackFile);
  enc_model_destroy(descs, n, slots);
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
  if (out_slots == nullptr)
    return Fail(ENC_ERR_INPUT, "%s: out_slots is NULL", fn);
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
  return Fail(
      ENC_ERR_INPUT,
      "%s_forward_attention: probs is NULL (it receives [blocks, batch, "
      "heads, seq_len, seq_len] floats)",
      name != nullptr ? name : "model");
}

extern "C" enc_status enc_check_out_apart(const enc_model_info* info,
                                          const enc_input* in, const float* out,
                                          int64_t out_floats) {
  if (info == nullptr || in == nullptr || out == nullptr || out_floats <= 0)
    return ENC_OK;
  // enc_check_input bounded batch * seq_len * d_model and made batch and
  // seq_len >= 1, so every range below is non-empty; the integer arrays are
  // smaller.
  const uint64_t tokens = uint64_t(in->batch) * uint64_t(in->seq_len);
  const uint64_t out_bytes = sizeof(float) * uint64_t(out_floats);
  // out == embeddings works: the first op reads each input row before it
  // writes that row or any later one (enc_embed_floats), and nothing reads
  // the input after it.
  if (info->vocab == 0 && in->embeddings != out &&
      enc::OverlapBytes(in->embeddings,
                        sizeof(float) * tokens * uint64_t(info->d_model), out,
                        out_bytes)) {
    return Fail(ENC_ERR_INPUT,
                "bad input: out overlaps the input embeddings without being "
                "them (the forward computes its hidden states in out); pass "
                "the same array or separate ones");
  }
  // The ids are read while out's rows are written, the lengths by every
  // layer: no overlap at all.
  struct Ints {
    const int32_t* data;
    uint64_t count;
    const char* name;
  };
  const Ints ints[] = {
      {info->vocab > 0 ? in->tokens : nullptr, tokens, "tokens"},
      {in->token_types, tokens, "token_types"},
      {in->lengths, uint64_t(in->batch), "lengths"},
  };
  for (const Ints& a : ints) {
    if (a.data != nullptr &&
        enc::OverlapBytes(a.data, sizeof(int32_t) * a.count, out, out_bytes)) {
      return Fail(ENC_ERR_INPUT,
                  "bad input: out overlaps %s (the forward computes its "
                  "hidden states in out while it reads them); pass separate "
                  "arrays",
                  a.name);
    }
  }
  return ENC_OK;
}

extern "C" enc_status enc_check_input(const enc_model_info* info,
                                      const enc_input* in, const float* out) {
  if (info == nullptr)
    return Fail(ENC_ERR_INPUT, "enc_check_input: info is NULL");
  if (info->d_model < 1 || info->max_len < 1 || info->vocab < 0 ||
      info->type_vocab < 0 || (info->type_vocab > 0 && info->vocab == 0)) {
    return Fail(
        ENC_ERR_INPUT,
        "enc_check_input: bad model info (d_model %d, max_len %d, vocab "
        "%d, type_vocab %d)",
        info->d_model, info->max_len, info->vocab, info->type_vocab);
  }
  if (in == nullptr)
    return Fail(ENC_ERR_INPUT, "bad input: the input (in) is NULL");
  if (out == nullptr)
    return Fail(ENC_ERR_INPUT, "bad input: the output (out) is NULL");
  if (in->batch < 1) {
    return Fail(ENC_ERR_INPUT, "bad input: batch is %d, must be >= 1",
                in->batch);
  }
  if (in->seq_len < 1 || in->seq_len > info->max_len) {
    return Fail(ENC_ERR_INPUT,
                "bad input: seq_len is %d, outside 1..%d (max_len)",
                in->seq_len, info->max_len);
  }
  // batch * seq_len * d_model floats must be addressable in bytes.
  int64_t elems = 0, bytes = 0;
  if (__builtin_mul_overflow(int64_t{in->batch}, int64_t{in->seq_len},
                             &elems) ||
      __builtin_mul_overflow(elems, int64_t{info->d_model}, &elems) ||
      __builtin_mul_overflow(elems, int64_t{sizeof(float)}, &bytes) ||
      static_cast<uint64_t>(bytes) > SIZE_MAX) {
    return Fail(ENC_ERR_INPUT,
                "bad input: batch (%d) * seq_len (%d) * d_model (%d) floats "
                "overflow",
                in->batch, in->seq_len, info->d_model);
  }
  if (enc_status s =
          enc::CheckLengths("bad input", in->batch, in->seq_len, in->lengths)) {
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
