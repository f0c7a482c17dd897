#include "src/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "enc/kernels/weights.h"
#include "src/model_dir.h"
#include "src/status.h"

namespace enc {
namespace {

using json = nlohmann::json;

// Header lengths above this are absurd (the reference implementation's limit).
constexpr uint64_t kMaxHeader = uint64_t{100} << 20;

// Every dtype of the safetensors format, with its size in bits. Only F32, F16
// and BF16 can be loaded; the others are valid files but "unsupported" when a
// model asks for such a tensor.
int DTypeBits(const std::string& dtype) {
  static const std::pair<const char*, int> kTypes[] = {
      {"BOOL", 8},    {"U8", 8},   {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8},
      {"F8_E8M0", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16},    {"BF16", 16},
      {"I32", 32},    {"U32", 32}, {"F32", 32}, {"F64", 64},    {"I64", 64},
      {"U64", 64},    {"C64", 64}, {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}};
  for (const auto& t : kTypes) {
    if (dtype == t.first) return t.second;
  }
  return 0;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// A JSON value as a short string for messages.
std::string Brief(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float f = std::ldexp(static_cast<float>(mant), -24);
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf, or NaN with its payload
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float BFloat16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

SafeTensors::~SafeTensors() {
  if (map_ != nullptr) munmap(const_cast<uint8_t*>(map_), size_);
}

const TensorInfo* SafeTensors::Find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

enc_status SafeTensors::Open(const std::string& path,
                             std::unique_ptr<SafeTensors>* out) {
  out->reset();
  const char* p = path.c_str();
  const int fd = ::open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Fail(ENC_ERR_IO, "%s: cannot open weights: %s", p,
                std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Fail(ENC_ERR_IO, "%s: cannot stat weights: %s", p, std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Fail(ENC_ERR_IO, "%s: is a directory, not a weights file", p);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Fail(ENC_ERR_IO, "%s: is not a regular file", p);
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < 8) {
    ::close(fd);
    return Fail(ENC_ERR_FORMAT,
                "%s: not a safetensors file: %llu bytes, shorter than the "
                "8-byte header length",
                p, (unsigned long long)size);
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) {
    return Fail(ENC_ERR_IO, "%s: cannot map weights: %s", p,
                std::strerror(map_errno));
  }
  std::unique_ptr<SafeTensors> st_file(new (std::nothrow) SafeTensors());
  if (!st_file) {
    munmap(map, size);
    return Fail(ENC_ERR_NOMEM, "%s: out of memory", p);
  }
  SafeTensors& f = *st_file;
  f.path_ = path;
  f.map_ = static_cast<const uint8_t*>(map);
  f.size_ = size;

  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | f.map_[i];
  if (header_len > size - 8) {
    return Fail(ENC_ERR_FORMAT,
                "%s: header length %llu exceeds the file size (%llu bytes)", p,
                (unsigned long long)header_len, (unsigned long long)size);
  }
  if (header_len > kMaxHeader) {
    return Fail(ENC_ERR_FORMAT, "%s: header length %llu is too large", p,
                (unsigned long long)header_len);
  }
  f.data_ = f.map_ + 8 + header_len;
  f.data_size_ = size - 8 - header_len;

  // Parse, noting the first duplicate key of any object.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int /*depth*/, json::parse_event_t event,
                      json& parsed) -> bool {
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && parsed.is_string() &&
            !keys.back().insert(parsed.get<std::string>()).second &&
            duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      default:
        break;
    }
    return true;
  };
  const char* hb = reinterpret_cast<const char*>(f.map_ + 8);
  json header;
  try {
    header =
        json::parse(hb, hb + header_len, callback, /*allow_exceptions=*/true);
  } catch (const json::exception& e) {
    return Fail(ENC_ERR_FORMAT, "%s: header is not valid JSON: %s", p,
                e.what());
  } catch (const std::bad_alloc&) {
    return Fail(ENC_ERR_NOMEM, "%s: out of memory parsing the header", p);
  }
  if (!duplicate.empty()) {
    return Fail(ENC_ERR_FORMAT, "%s: header has a duplicate key '%s'", p,
                duplicate.c_str());
  }
  if (!header.is_object()) {
    return Fail(ENC_ERR_FORMAT, "%s: header is not a JSON object", p);
  }

  std::vector<std::pair<uint64_t, const std::string*>> intervals;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& v = it.value();
    const char* n = name.c_str();
    if (name == "__metadata__") {
      if (!v.is_object()) {
        return Fail(ENC_ERR_FORMAT, "%s: __metadata__ is not an object", p);
      }
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) {
          return Fail(ENC_ERR_FORMAT,
                      "%s: __metadata__ entry '%s' is not a string", p,
                      m.key().c_str());
        }
      }
      continue;
    }
    if (!v.is_object()) {
      return Fail(ENC_ERR_FORMAT, "%s: tensor '%s': entry is not an object", p,
                  n);
    }
    TensorInfo t;
    auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) {
      return Fail(ENC_ERR_FORMAT,
                  "%s: tensor '%s': missing or non-string dtype", p, n);
    }
    t.dtype = dt->get<std::string>();
    t.bits = DTypeBits(t.dtype);
    if (t.bits == 0) {
      return Fail(ENC_ERR_FORMAT, "%s: tensor '%s': unknown dtype '%s'", p, n,
                  t.dtype.c_str());
    }
    auto sh = v.find("shape");
    if (sh == v.end() || !sh->is_array()) {
      return Fail(ENC_ERR_FORMAT, "%s: tensor '%s': missing or non-array shape",
                  p, n);
    }
    uint64_t count = 1;
    for (const json& dim : *sh) {
      if (!dim.is_number_unsigned()) {
        return Fail(
            ENC_ERR_FORMAT,
            "%s: tensor '%s': shape entry %s is not a non-negative integer", p,
            n, Brief(dim).c_str());
      }
      const uint64_t x = dim.get<uint64_t>();
      if (x > static_cast<uint64_t>(INT64_MAX) ||
          __builtin_mul_overflow(count, x, &count) ||
          count > (uint64_t{1} << 60)) {
        return Fail(ENC_ERR_FORMAT,
                    "%s: tensor '%s': shape %s has too many elements", p, n,
                    Brief(*sh).c_str());
      }
      t.shape.push_back(static_cast<int64_t>(x));
    }
    t.count = count;
    auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 ||
        !(*off)[0].is_number_unsigned() || !(*off)[1].is_number_unsigned()) {
      return Fail(ENC_ERR_FORMAT,
                  "%s: tensor '%s': data_offsets must be two non-negative "
                  "integers [begin, end]",
                  p, n);
    }
    t.begin = (*off)[0].get<uint64_t>();
    t.end = (*off)[1].get<uint64_t>();
    if (t.begin > t.end) {
      return Fail(ENC_ERR_FORMAT,
                  "%s: tensor '%s': data_offsets [%llu, %llu] are reversed", p,
                  n, (unsigned long long)t.begin, (unsigned long long)t.end);
    }
    if (t.end > f.data_size_) {
      return Fail(ENC_ERR_FORMAT,
                  "%s: tensor '%s': data_offsets [%llu, %llu] are outside the "
                  "data section (%llu bytes); the file may be truncated",
                  p, n, (unsigned long long)t.begin, (unsigned long long)t.end,
                  (unsigned long long)f.data_size_);
    }
    uint64_t bits = 0;
    const bool too_many =
        __builtin_mul_overflow(count, static_cast<uint64_t>(t.bits), &bits);
    if (too_many || bits % 8 != 0 || t.end - t.begin != bits / 8) {
      // What the shape and dtype call for, so that the message says it.
      const std::string want =
          too_many        ? "more than 2^64 bits expected"
          : bits % 8 != 0 ? std::to_string(bits) + " bits, not whole bytes"
                          : std::to_string(bits / 8) + " bytes expected";
      return Fail(ENC_ERR_FORMAT,
                  "%s: tensor '%s': %llu bytes of data for %s %s (%llu "
                  "elements: %s)",
                  p, n, (unsigned long long)(t.end - t.begin), t.dtype.c_str(),
                  ShapeString(t.shape).c_str(), (unsigned long long)count,
                  want.c_str());
    }
    auto inserted = f.tensors_.emplace(name, std::move(t));
    if (inserted.first->second.end > inserted.first->second.begin) {
      intervals.emplace_back(inserted.first->second.begin,
                             &inserted.first->first);
    }
  }
  std::sort(intervals.begin(), intervals.end());
  for (size_t i = 1; i < intervals.size(); ++i) {
    const TensorInfo& prev = f.tensors_.at(*intervals[i - 1].second);
    if (prev.end > intervals[i].first) {
      return Fail(ENC_ERR_FORMAT, "%s: tensors '%s' and '%s' overlap", p,
                  intervals[i - 1].second->c_str(),
                  intervals[i].second->c_str());
    }
  }
  *out = std::move(st_file);
  return ENC_OK;
}

enc_status SafeTensors::Check(const std::string& name,
                              const std::vector<int64_t>& shape,
                              bool allow_more_rows,
                              const TensorInfo** out) const {
  const char* p = path_.c_str();
  const char* n = name.c_str();
  const TensorInfo* t = Find(name);
  if (t == nullptr) {
    return Fail(ENC_ERR_WEIGHTS,
                "%s: tensor '%s' is missing (expected shape %s)", p, n,
                ShapeString(shape).c_str());
  }
  bool same = t->shape.size() == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) {
    same = t->shape[i] == shape[i] ||
           (i == 0 && allow_more_rows && t->shape[0] >= shape[0]);
  }
  if (!same) {
    return Fail(ENC_ERR_WEIGHTS, "%s: tensor '%s' has shape %s, expected %s%s",
                p, n, ShapeString(t->shape).c_str(), ShapeString(shape).c_str(),
                allow_more_rows ? " (or more rows)" : "");
  }
  if (t->dtype != "F32" && t->dtype != "F16" && t->dtype != "BF16") {
    return Fail(ENC_ERR_WEIGHTS,
                "%s: tensor '%s' has unsupported dtype %s (F32, F16 or BF16 "
                "expected)",
                p, n, t->dtype.c_str());
  }
  *out = t;
  return ENC_OK;
}

void SafeTensors::Convert(const TensorInfo& t, uint64_t begin, uint64_t count,
                          float* dst) const {
  const uint8_t* src = data_ + begin;
  if (t.dtype == "F32") {
    std::memcpy(dst, src, count * 4);
  } else if (t.dtype == "F16") {
    for (uint64_t i = 0; i < count; ++i) {
      dst[i] = HalfToFloat(
          static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
    }
  } else {
    for (uint64_t i = 0; i < count; ++i) {
      dst[i] = BFloat16ToFloat(
          static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
    }
  }
}

enc_status SafeTensors::Get(const std::string& name,
                            const std::vector<int64_t>& shape,
                            bool allow_more_rows, float* dst) const {
  const TensorInfo* t = nullptr;
  if (enc_status s = Check(name, shape, allow_more_rows, &t)) return s;
  uint64_t count = 1;
  for (int64_t d : shape) count *= static_cast<uint64_t>(d);  // <= t->count
  Convert(*t, t->begin, count, dst);
  // The tensor now lives in dst: drop its file pages from this process's
  // resident set, so that loading a model peaks near its converted size
  // rather than file + copies.
  ReleaseBytes(t->begin, t->end);
  return ENC_OK;
}

enc_status SafeTensors::View(const std::string& name,
                             const std::vector<int64_t>& shape,
                             const float** data) const {
  *data = nullptr;
  const TensorInfo* t = nullptr;
  if (enc_status s = Check(name, shape, false, &t)) return s;
  const uint8_t* src = data_ + t->begin;
  if (t->dtype == "F32" &&
      reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) {
    *data = reinterpret_cast<const float*>(src);
  }
  return ENC_OK;
}

bool SafeTensors::RowBytes(const TensorInfo& t, Rows rows, uint64_t* begin,
                           uint64_t* end) {
  if (t.shape.empty() || rows.first < 0 || rows.count < 0 ||
      rows.first > t.shape[0] || rows.count > t.shape[0] - rows.first) {
    return false;
  }
  // t.count (the product of the shape) fits the data section: no overflow.
  const uint64_t row_elems =
      t.shape[0] == 0 ? 0 : t.count / static_cast<uint64_t>(t.shape[0]);
  const uint64_t bytes = static_cast<uint64_t>(t.bits / 8) * row_elems;
  *begin = t.begin + static_cast<uint64_t>(rows.first) * bytes;
  *end = *begin + static_cast<uint64_t>(rows.count) * bytes;
  return true;
}

enc_status SafeTensors::CheckRows(const std::string& name,
                                  const std::vector<int64_t>& shape, Rows rows,
                                  const TensorInfo** t, uint64_t* begin,
                                  uint64_t* end) const {
  if (enc_status s = Check(name, shape, false, t)) return s;
  if (!RowBytes(**t, rows, begin, end)) {
    return Fail(
        ENC_ERR_INPUT, "%s: tensor '%s': rows %lld..%lld are outside its %lld",
        path_.c_str(), name.c_str(), (long long)rows.first,
        (long long)(rows.first + rows.count), (long long)(*t)->shape[0]);
  }
  return ENC_OK;
}

enc_status SafeTensors::GetRows(const std::string& name,
                                const std::vector<int64_t>& shape, Rows rows,
                                float* dst) const {
  const TensorInfo* t = nullptr;
  uint64_t begin = 0, end = 0;
  if (enc_status s = CheckRows(name, shape, rows, &t, &begin, &end)) return s;
  Convert(*t, begin, (end - begin) / static_cast<uint64_t>(t->bits / 8), dst);
  ReleaseBytes(begin, end);
  return ENC_OK;
}

enc_status SafeTensors::ViewRows(const std::string& name,
                                 const std::vector<int64_t>& shape, Rows rows,
                                 const float** data) const {
  *data = nullptr;
  const TensorInfo* t = nullptr;
  uint64_t begin = 0, end = 0;
  if (enc_status s = CheckRows(name, shape, rows, &t, &begin, &end)) return s;
  const uint8_t* src = data_ + begin;
  if (t->dtype == "F32" &&
      reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) {
    *data = reinterpret_cast<const float*>(src);
  }
  return ENC_OK;
}

void SafeTensors::Release(const std::string& name) const {
  if (const TensorInfo* t = Find(name)) ReleaseBytes(t->begin, t->end);
}

void SafeTensors::ReleaseRows(const std::string& name, Rows rows) const {
  uint64_t begin = 0, end = 0;
  if (const TensorInfo* t = Find(name); t && RowBytes(*t, rows, &begin, &end))
    ReleaseBytes(begin, end);
}

// The range is widened to the 2 MiB around it, within the mapping: a read
// of a small tensor faults in the page cache's whole (large) folio around
// it, neighbours' pages included, and those would otherwise stay mapped
// until the file is closed (92 MB of a BERT-base load's peak). Dropping a
// page of this read-only private mapping loses nothing: a later read faults
// it back in from the page cache.
void SafeTensors::ReleaseBytes(uint64_t begin, uint64_t end) const {
  constexpr uintptr_t kNeighbourhood = uintptr_t{2} << 20;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = reinterpret_cast<uintptr_t>(map_);
  const uintptr_t hi = (lo + size_) & ~(page - 1);
  const uintptr_t src = reinterpret_cast<uintptr_t>(data_) + begin;
  uintptr_t first = src > lo + kNeighbourhood ? src - kNeighbourhood : lo;
  uintptr_t last = src + (end - begin) + kNeighbourhood;
  first &= ~(page - 1);
  last = std::min(last & ~(page - 1), hi);
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }
}

}  // namespace enc

// The C ABI for generated code.
struct enc_weights {
  std::unique_ptr<enc::SafeTensors> file;  // the model's (or the only) file
  std::vector<enc::ModuleFile> modules;    // a directory's Dense modules
};

std::vector<std::string> enc::FilePaths(const enc_weights* w) {
  std::vector<std::string> paths{w->file->path()};
  for (const enc::ModuleFile& m : w->modules) {
    paths.push_back(m.file->path());
  }
  return paths;
}

namespace {
enc_status ToShape(const char* fn, int ndim, const int64_t* shape,
                   std::vector<int64_t>* out) {
  if (ndim < 0 || ndim > 64) {
    return enc::Fail(ENC_ERR_INPUT, "%s: ndim (%d) is outside 0..64", fn, ndim);
  }
  if (ndim > 0 && shape == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "%s: shape is NULL", fn);
  }
  uint64_t count = 1;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0 ||
        __builtin_mul_overflow(count, static_cast<uint64_t>(shape[i]),
                               &count) ||
        count > (uint64_t{1} << 60)) {
      return enc::Fail(ENC_ERR_INPUT, "%s: bad shape dimension %d (%lld)", fn,
                       i, (long long)shape[i]);
    }
    out->push_back(shape[i]);
  }
  return ENC_OK;
}

enc_status GetImpl(const char* fn, enc_weights* w, const char* name, int ndim,
                   const int64_t* shape, float* dst, bool more_rows) {
  if (w == nullptr || name == nullptr || dst == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                     w == nullptr      ? "weights"
                     : name == nullptr ? "name"
                                       : "dst");
  }
  if (more_rows && ndim < 1) {
    return enc::Fail(ENC_ERR_INPUT, "%s: ndim (%d) < 1", fn, ndim);
  }
  std::vector<int64_t> s;
  if (enc_status st = ToShape(fn, ndim, shape, &s)) return st;
  std::string local;
  return enc::FileOf(w, name, &local).Get(local, s, more_rows, dst);
}
}  // namespace

namespace enc {
const SafeTensors& FileOf(const enc_weights* w) { return *w->file; }

const SafeTensors& FileOf(const enc_weights* w, const std::string& name,
                          std::string* local) {
  for (const ModuleFile& m : w->modules) {
    if (name.compare(0, m.prefix.size(), m.prefix) == 0) {
      *local = name.substr(m.prefix.size());
      return *m.file;
    }
  }
  *local = name;
  return *w->file;
}
}  // namespace enc

extern "C" enc_status enc_weights_open(const char* path, enc_weights** out) {
  if (out == nullptr)
    return enc::Fail(ENC_ERR_INPUT, "enc_weights_open: out is NULL");
  *out = nullptr;
  if (path == nullptr)
    return enc::Fail(ENC_ERR_INPUT, "enc_weights_open: path is NULL");
  std::unique_ptr<enc::SafeTensors> file;
  std::vector<enc::ModuleFile> modules;
  try {
    struct stat st;
    if (::stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      if (enc_status s = enc::OpenModelDirectory(path, &file, &modules))
        return s;
    } else if (enc_status s = enc::SafeTensors::Open(path, &file)) {
      return s;
    }
    *out = new enc_weights{std::move(file), std::move(modules)};
  } catch (const std::bad_alloc&) {
    return enc::Fail(ENC_ERR_NOMEM, "%s: out of memory", path);
  }
  return ENC_OK;
}

extern "C" enc_status enc_weights_get(enc_weights* w, const char* name,
                                      int ndim, const int64_t* shape,
                                      float* dst) {
  return GetImpl("enc_weights_get", w, name, ndim, shape, dst, false);
}

extern "C" enc_status enc_weights_get_rows(enc_weights* w, const char* name,
                                           int ndim, const int64_t* shape,
                                           float* dst) {
  return GetImpl("enc_weights_get_rows", w, name, ndim, shape, dst, true);
}

extern "C" enc_status enc_weights_view_f32(enc_weights* w, const char* name,
                                           int ndim, const int64_t* shape,
                                           const float** data) {
  const char* fn = "enc_weights_view_f32";
  if (w == nullptr || name == nullptr || data == nullptr) {
    return enc::Fail(ENC_ERR_INPUT, "%s: %s is NULL", fn,
                     w == nullptr      ? "weights"
                     : name == nullptr ? "name"
                                       : "data");
  }
  *data = nullptr;
  std::vector<int64_t> s;
  if (enc_status st = ToShape(fn, ndim, shape, &s)) return st;
  std::string local;
  return enc::FileOf(w, name, &local).View(local, s, data);
}

extern "C" void enc_weights_release(enc_weights* w, const char* name) {
  if (w == nullptr || name == nullptr) return;
  std::string local;
  enc::FileOf(w, name, &local).Release(local);
}

extern "C" int enc_weights_has(const enc_weights* w, const char* name) {
  if (w == nullptr || name == nullptr) return 0;
  std::string local;
  return enc::FileOf(w, name, &local).Find(local) != nullptr;
}

extern "C" enc_status enc_weights_shape(const enc_weights* w, const char* name,
                                        int max_ndim, int* ndim,
                                        int64_t* shape) {
  if (w == nullptr || name == nullptr || ndim == nullptr ||
      (max_ndim > 0 && shape == nullptr)) {
    return enc::Fail(ENC_ERR_INPUT, "enc_weights_shape: NULL argument");
  }
  std::string local;
  const enc::SafeTensors& file = enc::FileOf(w, name, &local);
  const enc::TensorInfo* t = file.Find(local);
  if (t == nullptr) {
    return enc::Fail(ENC_ERR_WEIGHTS, "%s: tensor '%s' is missing",
                     file.path().c_str(), local.c_str());
  }
  *ndim = static_cast<int>(t->shape.size());
  for (int i = 0; i < max_ndim && i < *ndim; ++i) shape[i] = t->shape[i];
  return ENC_OK;
}

extern "C" const char* enc_weights_path(const enc_weights* w) {
  return w ? w->file->path().c_str() : "";
}

extern "C" void enc_weights_close(enc_weights* w) { delete w; }
