// Packed-weights files (src/packed_file.h). The format, little-endian:
//
//   FileHeader        magic, version, what the file was packed for (the
//                     descriptor hash, the dispatch target, the sources'
//                     sizes and hash), where the table and data are, the
//                     table's checksum, then the header's own
//   SlotRecord[n]     per slot: its kind, a packed matrix's form
//                     (kernels/packed_form.h), its block's offset and checksum
//   blocks            each 64-byte aligned, as the kernels read them
//
// Loading checks the header, the table and every block's range and form, so
// that no byte of the file can make the loader or a kernel read outside the
// mapping; block checksums (a pass over every byte) only when asked
// (ENC_VERIFY_PACKED=1): a flipped weight byte changes a value, never an
// address.
#include "src/packed_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "enc/kernels/gemm.h"
#include "kernels/gemm.h"
#include "kernels/packed_form.h"
#include "src/mapped_file.h"
#include "src/status.h"
#include "src/target.h"

namespace enc {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'C', 'W', '\r', '\n', '\x1a', '\n'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kAlign = 64;

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // sizeof(FileHeader)
  uint32_t record_bytes;  // sizeof(SlotRecord)
  uint32_t num_slots;
  uint64_t model_hash;  // DescriptorHash of the model it was packed for
  char target[16];      // DispatchTargetName() when packed, NUL-padded
  uint64_t source_bytes;
  uint64_t source_hash;
  uint64_t data_offset;  // first block; the table is right after the header
  uint64_t file_bytes;
  uint64_t table_checksum;
  uint64_t header_checksum;  // of every byte before it
};
static_assert(sizeof(FileHeader) == 96, "the header has no padding");

struct SlotRecord {
  int32_t kind;  // enc_slot_kind
  int32_t reserved;
  PackedForm form;  // a packed kind's; else precision 0, n floats, bytes
  uint64_t offset;
  uint64_t checksum;
};
static_assert(sizeof(SlotRecord) == 8 + sizeof(PackedForm) + 16,
              "the record has no padding");

// ---- Hashing ----------------------------------------------------------------

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full;

inline uint64_t Round(uint64_t acc, uint64_t v) {
  acc += v * kP2;
  acc = (acc << 31) | (acc >> 33);
  return acc * kP1;
}

inline uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP1;
  return h ^ (h >> 32);
}

// A 64-bit hash of bytes (four independent lanes, so it runs near memory
// speed); not cryptographic: it finds corruption, not forgery.
class Hasher {
 public:
  explicit Hasher(uint64_t seed = 0)
      : lanes_{seed + kP1 + kP2, seed + kP2, seed, seed - kP1} {}
  void Update(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    total_ += n;
    while (n > 0 && fill_ > 0) {  // finish a partial block
      buf_[fill_++] = *p++;
      --n;
      if (fill_ == 32) {
        Block(buf_);
        fill_ = 0;
      }
    }
    for (; n >= 32; p += 32, n -= 32) Block(p);
    std::memcpy(buf_, p, n);
    fill_ = n;
  }
  void UpdateU64(uint64_t v) { Update(&v, sizeof v); }
  uint64_t Digest() const {
    uint64_t h = total_;
    for (uint64_t lane : lanes_) h = Round(h, lane);
    for (size_t i = 0; i < fill_; ++i) h = Round(h, buf_[i]);
    return Avalanche(h);
  }

 private:
  void Block(const uint8_t* p) {
    for (int i = 0; i < 4; ++i) {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      lanes_[i] = Round(lanes_[i], v);
    }
  }
  uint64_t lanes_[4];
  uint8_t buf_[32] = {};
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

uint64_t HashBytes(const void* data, size_t n) {
  Hasher h;
  h.Update(data, n);
  return h.Digest();
}

// ---- Slots ------------------------------------------------------------------

bool IsPacked(int32_t kind) {
  return kind == ENC_SLOT_PACKED_MATRIX || kind == ENC_SLOT_PACKED_GATED;
}

// The form a slot of descriptor d has in this process: a packed matrix's
// planned form, or a float array's size.
enc_status ExpectedForm(const enc_weight_desc& d, PackedForm* form) {
  int64_t rows = 0;
  for (int32_t p = 0; p < d.num_parts; ++p) rows += d.rows[p];
  if (IsPacked(d.kind)) {
    const bool gated = d.kind == ENC_SLOT_PACKED_GATED;
    return PlanForm(d.precision, gated, gated ? d.rows[0] : rows, d.cols, form);
  }
  *form = PackedForm{};
  const int64_t floats = d.kind == ENC_SLOT_TABLE ? d.rows[0] * d.cols : rows;
  form->n = floats;
  form->bytes = floats * int64_t{sizeof(float)};
  return ENC_OK;
}

// A slot's form and bytes as loaded.
PackedForm SlotForm(const enc_weight_desc& d, const void* slot,
                    const void** block) {
  if (IsPacked(d.kind)) {
    const bool gated = d.kind == ENC_SLOT_PACKED_GATED;
    const enc_packed_b* p =
        gated ? &static_cast<const enc_packed_gated*>(slot)->packed
              : static_cast<const enc_packed_b*>(slot);
    return FormOf(p, gated, block);
  }
  PackedForm f{};
  ExpectedForm(d, &f);
  *block = slot;
  return f;
}

uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

const char* DescName(const enc_weight_desc& d) {
  return d.names[0] != nullptr ? d.names[0] : "?";
}

// The sources' total size and one hash over their bytes, read in chunks.
enc_status HashSources(const std::vector<std::string>& sources, uint64_t* bytes,
                       uint64_t* hash) {
  Hasher h;
  *bytes = 0;
  std::unique_ptr<uint8_t[]> buf(new (std::nothrow) uint8_t[1 << 20]);
  if (!buf) return Fail(ENC_ERR_NOMEM, "enc_model_pack: out of memory");
  for (const std::string& path : sources) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return Fail(ENC_ERR_IO, "%s: cannot open: %s", path.c_str(),
                  std::strerror(errno));
    }
    for (;;) {
      const ssize_t got = read(fd, buf.get(), 1 << 20);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int err = errno;
        close(fd);
        return Fail(ENC_ERR_IO, "%s: cannot read: %s", path.c_str(),
                    std::strerror(err));
      }
      if (got == 0) break;
      h.Update(buf.get(), static_cast<size_t>(got));
      *bytes += static_cast<uint64_t>(got);
    }
    close(fd);
  }
  *hash = h.Digest();
  return ENC_OK;
}

// Writes all of [data, data + n) to fd.
bool WriteAll(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

std::string TargetName() {
  const char* name = DispatchTargetName();
  return name != nullptr ? name : "?";
}

}  // namespace

uint64_t DescriptorHash(const enc_weight_desc* descs, int32_t n) {
  Hasher h(kVersion);
  h.UpdateU64(static_cast<uint64_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const enc_weight_desc& d = descs[i];
    h.UpdateU64(static_cast<uint64_t>(d.kind));
    h.UpdateU64(static_cast<uint64_t>(d.num_parts));
    for (int32_t p = 0; p < d.num_parts; ++p) {
      const size_t len = std::strlen(d.names[p]);
      h.UpdateU64(len);
      h.Update(d.names[p], len);
      h.UpdateU64(static_cast<uint64_t>(d.rows[p]));
    }
    h.UpdateU64(static_cast<uint64_t>(d.cols));
    h.UpdateU64(static_cast<uint64_t>(d.min_file_rows));
    h.UpdateU64(static_cast<uint64_t>(d.checkpoint));
    h.UpdateU64(static_cast<uint64_t>(d.precision));
  }
  return h.Digest();
}

bool IsPackedFile(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[sizeof kMagic];
  const bool yes = read(fd, magic, sizeof magic) == sizeof magic &&
                   std::memcmp(magic, kMagic, sizeof magic) == 0;
  close(fd);
  return yes;
}

enc_status SavePacked(const char* path, const enc_weight_desc* descs, int32_t n,
                      void* const* slots,
                      const std::vector<std::string>& sources, SaveMode mode) {
  FileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = kVersion;
  header.header_bytes = sizeof(FileHeader);
  header.record_bytes = sizeof(SlotRecord);
  header.num_slots = static_cast<uint32_t>(n);
  header.model_hash = DescriptorHash(descs, n);
  std::strncpy(header.target, TargetName().c_str(), sizeof header.target - 1);
  const bool durable = mode == SaveMode::kPackFile;
  if (durable) {
    if (enc_status s =
            HashSources(sources, &header.source_bytes, &header.source_hash)) {
      return s;
    }
  } else {
    for (const std::string& source : sources) {
      struct stat st;
      if (stat(source.c_str(), &st) == 0) {
        header.source_bytes += static_cast<uint64_t>(st.st_size);
      }
    }
  }
  std::vector<SlotRecord> records(static_cast<size_t>(n));
  std::vector<const void*> blocks(static_cast<size_t>(n));
  uint64_t offset =
      AlignUp(sizeof(FileHeader) + sizeof(SlotRecord) * records.size());
  header.data_offset = offset;
  for (int32_t i = 0; i < n; ++i) {
    SlotRecord& r = records[static_cast<size_t>(i)];
    r.kind = descs[i].kind;
    r.form = SlotForm(descs[i], slots[i], &blocks[static_cast<size_t>(i)]);
    r.offset = offset;
    r.checksum = HashBytes(blocks[static_cast<size_t>(i)],
                           static_cast<size_t>(r.form.bytes));
    offset = AlignUp(offset + static_cast<uint64_t>(r.form.bytes));
  }
  header.file_bytes = offset;
  header.table_checksum =
      HashBytes(records.data(), records.size() * sizeof(SlotRecord));
  header.header_checksum =
      HashBytes(&header, offsetof(FileHeader, header_checksum));

  // A temporary name beside the target, so that the rename is atomic and a
  // reader never maps a half-written file.
  const std::string tmp = std::string(path) + ".tmp." +
                          std::to_string(getpid()) + "." +
                          std::to_string(syscall(SYS_gettid));
  const int fd =
      open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Fail(ENC_ERR_IO, "%s: cannot create: %s", tmp.c_str(),
                std::strerror(errno));
  }
  static const uint8_t kZeros[kAlign] = {};
  bool ok = WriteAll(fd, &header, sizeof header) &&
            WriteAll(fd, records.data(), records.size() * sizeof(SlotRecord));
  uint64_t at = sizeof header + records.size() * sizeof(SlotRecord);
  for (size_t i = 0; ok && i < records.size(); ++i) {
    ok = WriteAll(fd, kZeros, records[i].offset - at) &&
         WriteAll(fd, blocks[i], static_cast<size_t>(records[i].form.bytes));
    at = records[i].offset + static_cast<uint64_t>(records[i].form.bytes);
  }
  ok = ok && WriteAll(fd, kZeros, header.file_bytes - at) &&
       (!durable || fsync(fd) == 0);
  const int err = errno;
  if (close(fd) != 0) ok = false;
  if (!ok || rename(tmp.c_str(), path) != 0) {
    const int why = ok ? errno : err;
    unlink(tmp.c_str());
    return Fail(ENC_ERR_IO, "%s: cannot write: %s", path, std::strerror(why));
  }
  return ENC_OK;
}

std::string CachePath(const enc_weight_desc* descs, int32_t n,
                      const std::vector<std::string>& sources) {
  const char* dir = std::getenv("ENC_CACHE_DIR");
  if (dir == nullptr || dir[0] == '\0') return "";
  Hasher h(DescriptorHash(descs, n));
  const std::string target = TargetName();
  h.Update(target.data(), target.size());
  for (const std::string& source : sources) {
    struct stat st;
    if (stat(source.c_str(), &st) != 0) return "";
    h.UpdateU64(source.size());
    h.Update(source.data(), source.size());
    h.UpdateU64(static_cast<uint64_t>(st.st_dev));
    h.UpdateU64(static_cast<uint64_t>(st.st_ino));
    h.UpdateU64(static_cast<uint64_t>(st.st_size));
    h.UpdateU64(static_cast<uint64_t>(st.st_mtim.tv_sec));
    h.UpdateU64(static_cast<uint64_t>(st.st_mtim.tv_nsec));
  }
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx.encw",
                static_cast<unsigned long long>(h.Digest()));
  return std::string(dir) + name;
}

void RestampPackedChecksums(uint8_t* file, size_t size) {
  if (size < sizeof(FileHeader)) return;
  FileHeader h;
  std::memcpy(&h, file, sizeof h);
  const uint64_t table = uint64_t{h.num_slots} * sizeof(SlotRecord);
  if (table <= size - sizeof(FileHeader)) {
    h.table_checksum = HashBytes(file + sizeof(FileHeader), table);
  }
  h.header_checksum = HashBytes(&h, offsetof(FileHeader, header_checksum));
  std::memcpy(file, &h, sizeof h);
}

namespace {

// Checks the header and table of a mapped packed file against the model.
enc_status CheckHeader(const char* path, const uint8_t* base, size_t size,
                       const enc_weight_desc* descs, int32_t n,
                       const SlotRecord** table) {
  if (size < sizeof(FileHeader)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: truncated packed-weights file (%zu bytes, the header "
                "alone is %zu)",
                path, size, sizeof(FileHeader));
  }
  FileHeader h;
  std::memcpy(&h, base, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    return Fail(ENC_ERR_FORMAT, "%s: not a packed-weights file (bad magic)",
                path);
  }
  if (h.version != kVersion) {
    return Fail(ENC_ERR_FORMAT,
                "%s: packed-weights format version %u; this runtime reads "
                "version %u (pack it again with this encc)",
                path, h.version, kVersion);
  }
  if (h.header_checksum !=
      HashBytes(&h, offsetof(FileHeader, header_checksum))) {
    return Fail(ENC_ERR_FORMAT, "%s: the header's checksum does not match",
                path);
  }
  if (h.header_bytes != sizeof(FileHeader) ||
      h.record_bytes != sizeof(SlotRecord)) {
    return Fail(ENC_ERR_FORMAT, "%s: header or record size differs", path);
  }
  if (h.file_bytes != size) {
    return Fail(ENC_ERR_FORMAT,
                "%s: the header says %llu bytes, the file has %zu (truncated "
                "or appended to)",
                path, static_cast<unsigned long long>(h.file_bytes), size);
  }
  const uint64_t table_end =
      sizeof(FileHeader) + uint64_t{h.num_slots} * sizeof(SlotRecord);
  if (table_end > size || h.data_offset < table_end || h.data_offset > size) {
    return Fail(ENC_ERR_FORMAT, "%s: the section table is outside the file",
                path);
  }
  if (h.table_checksum !=
      HashBytes(base + sizeof(FileHeader), table_end - sizeof(FileHeader))) {
    return Fail(ENC_ERR_FORMAT,
                "%s: the section table's checksum does not match", path);
  }
  const std::string target = TargetName();
  if (std::strncmp(h.target, target.c_str(), sizeof h.target) != 0) {
    char packed_for[sizeof h.target + 1] = {};
    std::memcpy(packed_for, h.target, sizeof h.target);
    return Fail(ENC_ERR_FORMAT,
                "%s: packed for target %s; this process runs %s (pack it "
                "again here, or set ENC_TARGET)",
                path, packed_for, target.c_str());
  }
  *table = reinterpret_cast<const SlotRecord*>(base + sizeof(FileHeader));
  if (h.num_slots != static_cast<uint32_t>(n)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: packed for another model: %u weight slots, this model "
                "has %d",
                path, h.num_slots, n);
  }
  // Name the first slot that differs, else the hash catches what a record
  // does not hold (names, the checkpoint layout).
  for (int32_t i = 0; i < n; ++i) {
    SlotRecord r;
    std::memcpy(&r, *table + i, sizeof r);
    PackedForm want{};
    if (enc_status s = ExpectedForm(descs[i], &want)) return s;
    if (r.kind != descs[i].kind || r.form.precision != want.precision ||
        r.form.n != want.n || r.form.k != want.k) {
      return Fail(ENC_ERR_FORMAT,
                  "%s: packed for another model: slot %d ('%s') is kind %d, "
                  "precision %d, [%lld, %lld]; this model's is kind %d, "
                  "precision %d, [%lld, %lld]",
                  path, i, DescName(descs[i]), r.kind, r.form.precision,
                  static_cast<long long>(r.form.n),
                  static_cast<long long>(r.form.k), descs[i].kind,
                  want.precision, static_cast<long long>(want.n),
                  static_cast<long long>(want.k));
    }
  }
  if (h.model_hash != DescriptorHash(descs, n)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: packed for another model: the weights' names or "
                "checkpoint layout differ",
                path);
  }
  return ENC_OK;
}

bool VerifyAll() {
  const char* v = std::getenv("ENC_VERIFY_PACKED");
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

// Views slot i's block in place; on failure nothing is held.
enc_status ViewSlot(const char* path, const uint8_t* base, size_t size,
                    uint64_t data_offset, const enc_weight_desc& d, int32_t i,
                    const SlotRecord& r, void** slot) {
  PackedForm want{};
  if (enc_status s = ExpectedForm(d, &want)) return s;
  if (r.form.bytes < 0 || r.offset % kAlign != 0 || r.offset < data_offset ||
      r.offset > size ||
      static_cast<uint64_t>(r.form.bytes) > size - r.offset) {
    return Fail(ENC_ERR_FORMAT,
                "%s: slot %d ('%s'): its section (offset %llu, %lld bytes) "
                "is not inside the file",
                path, i, DescName(d), static_cast<unsigned long long>(r.offset),
                static_cast<long long>(r.form.bytes));
  }
  const uint8_t* block = base + r.offset;
  if (VerifyAll() &&
      HashBytes(block, static_cast<size_t>(r.form.bytes)) != r.checksum) {
    return Fail(ENC_ERR_FORMAT,
                "%s: slot %d ('%s'): the section's checksum does not match "
                "(the file is corrupted)",
                path, i, DescName(d));
  }
  if (const char* field = FormDifference(r.form, want)) {
    return Fail(ENC_ERR_FORMAT,
                "%s: slot %d ('%s'): packed for another kernel: its %s "
                "differs from this process's",
                path, i, DescName(d), field);
  }
  if (IsPacked(d.kind)) {
    if (ViewForm(r.form, block, slot) != ENC_OK) {
      const std::string why = enc_last_error();
      return Fail(ENC_ERR_FORMAT, "%s: slot %d ('%s'): %s", path, i,
                  DescName(d), why.c_str());
    }
    return ENC_OK;
  }
  RetainMapped(block);
  *slot = const_cast<uint8_t*>(block);  // read only: kernels never write it
  return ENC_OK;
}

}  // namespace

enc_status LoadPacked(const char* path, const enc_weight_desc* descs, int32_t n,
                      void** slots) {
  if (enc_status s = ApplyTargetCap()) return s;
  const uint8_t* base = nullptr;
  size_t size = 0;
  if (enc_status s = MapFile(path, &base, &size)) return s;
  const SlotRecord* table = nullptr;
  enc_status s = CheckHeader(path, base, size, descs, n, &table);
  uint64_t data_offset = 0;
  if (s == ENC_OK) {
    FileHeader h;
    std::memcpy(&h, base, sizeof h);
    data_offset = h.data_offset;
  }
  for (int32_t i = 0; i < n && s == ENC_OK; ++i) {
    SlotRecord r;
    std::memcpy(&r, table + i, sizeof r);
    s = ViewSlot(path, base, size, data_offset, descs[i], i, r, &slots[i]);
  }
  if (s != ENC_OK) enc_model_free(descs, n, slots);
  ReleaseIfMapped(base);  // the slots hold the mapping now
  return s;
}

}  // namespace enc
