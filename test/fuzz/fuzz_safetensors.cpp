// libFuzzer target for the safetensors loader (docs/weights.md). The bytes are
// written to a file and opened three ways:
//  - SafeTensors::Open, then every tensor it accepts is checked against the
//    file itself (bounds, byte length, no overlap) and every F32/F16/BF16 one
//    is read back and compared with an independent conversion: a loader that
//    accepts a bad header, or reads the wrong bytes, fails here even when
//    nothing crashes (reads past a file's end inside its last mapped page
//    are invisible to ASan);
//  - enc_model_load with the descriptor table of a small model (fused QKV,
//    tables with extra rows, F16/BF16 conversion, packing), as generated
//    code does;
//  - the enc_weights_* C ABI on a few names.
// With ENC_FUZZ_PACKED (fuzz_packed) it fuzzes packed-weights files instead
// (docs/weights.md#packed-weights-files): a valid file is packed once from
// the toy's weights, and each input is a list of patches to it (and a
// truncation), optionally with its checksums restamped so that the patches
// reach the checks behind them. What loads is then read whole: every vector
// and table summed, every packed matrix multiplied.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "enc/kernels/gemm.h"
#include "enc/kernels/model.h"
#include "enc/kernels/weights.h"
#include "src/packed_file.h"
#include "src/safetensors.h"

namespace {

[[noreturn]] void Violation(const char* what, const std::string& name) {
  std::fprintf(stderr, "fuzz_safetensors: %s (tensor '%s', last error '%s')\n",
               what, name.c_str(), enc_last_error());
  __builtin_trap();
}

// What a small model asks for (fuzz_toy.enc's names and shapes).
const enc_weight_desc kDescs[] = {
    {ENC_SLOT_TABLE,
     1,
     {"embed.tokens"},
     {32},
     8,
     0,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
    {ENC_SLOT_TABLE,
     1,
     {"embed.positions"},
     {16},
     8,
     16,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
    {ENC_SLOT_VECTOR,
     1,
     {"embed.norm.weight"},
     {8},
     0,
     0,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
    {ENC_SLOT_PACKED_MATRIX,
     3,
     {"blocks.0.attn.q.weight", "blocks.0.attn.k.weight",
      "blocks.0.attn.v.weight"},
     {8, 8, 8},
     8,
     0,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
    {ENC_SLOT_VECTOR,
     3,
     {"blocks.0.attn.q.bias", "blocks.0.attn.k.bias", "blocks.0.attn.v.bias"},
     {8, 8, 8},
     0,
     0,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
    {ENC_SLOT_PACKED_MATRIX,
     1,
     {"blocks.0.ffn.up.weight"},
     {16},
     8,
     0,
     ENC_CHECKPOINT_ENC,
     ENC_PRECISION_FP32},
};
constexpr int32_t kNumDescs = sizeof(kDescs) / sizeof(kDescs[0]);

std::string g_path;

void WriteFile(const uint8_t* data, size_t size) {
  const int fd = ::open(g_path.c_str(), O_WRONLY | O_TRUNC | O_CREAT, 0600);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) std::abort();
    done += static_cast<size_t>(w);
  }
  ::close(fd);
}

#ifndef ENC_FUZZ_PACKED
// Exact IEEE half -> float, written differently from the loader's.
float HalfRef(uint16_t h) {
  return static_cast<float>(__builtin_bit_cast(_Float16, h));
}

bool SameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) ||
         __builtin_bit_cast(uint32_t, a) == __builtin_bit_cast(uint32_t, b);
}

// Checks what Open accepted against the file bytes.
void CheckAccepted(const enc::SafeTensors& st, const uint8_t* data,
                   size_t size) {
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | data[i];
  if (size < 8 || header_len > size - 8)
    Violation("accepted a bad header length", "");
  const uint8_t* section = data + 8 + header_len;
  const uint64_t section_size = size - 8 - header_len;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& [name, t] : st.tensors()) {
    uint64_t count = 1;
    for (int64_t d : t.shape) {
      if (d < 0 || __builtin_mul_overflow(count, uint64_t(d), &count)) {
        Violation("accepted a bad shape", name);
      }
    }
    if (count != t.count) Violation("wrong element count", name);
    if (t.begin > t.end || t.end > section_size)
      Violation("accepted bad offsets", name);
    unsigned __int128 bits = (unsigned __int128)count * t.bits;
    if (bits != (unsigned __int128)(t.end - t.begin) * 8) {
      Violation("accepted a byte length that disagrees with the shape", name);
    }
    if (t.end > t.begin) spans.emplace_back(t.begin, t.end);

    const bool f32 = t.dtype == "F32", f16 = t.dtype == "F16",
               bf16 = t.dtype == "BF16";
    if (!(f32 || f16 || bf16) || count > (1u << 16)) continue;
    std::vector<float> dst(count + 1, -7.0f);
    if (st.Get(name, t.shape, false, dst.data()) != ENC_OK) {
      Violation("cannot read an accepted tensor", name);
    }
    if (dst[count] != -7.0f) Violation("wrote past the tensor", name);
    const uint8_t* src = section + t.begin;
    for (uint64_t i = 0; i < count; ++i) {
      float want;
      if (f32) {
        std::memcpy(&want, src + 4 * i, 4);
      } else {
        const uint16_t h = uint16_t(src[2 * i] | (src[2 * i + 1] << 8));
        want = f16 ? HalfRef(h) : __builtin_bit_cast(float, uint32_t{h} << 16);
      }
      if (!SameFloat(dst[i], want)) Violation("wrong value", name);
    }
    // A shape that differs must be refused, not read.
    std::vector<int64_t> other = t.shape;
    other.push_back(1);
    if (st.Get(name, other, false, dst.data()) != ENC_ERR_WEIGHTS) {
      Violation("read with the wrong rank", name);
    }
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i - 1].second > spans[i].first)
      Violation("accepted overlapping tensors", "");
  }
}

#endif  // ENC_FUZZ_PACKED

}  // namespace

#ifdef ENC_FUZZ_PACKED
namespace {

std::vector<uint8_t> g_valid;  // a packed file of the toy's weights

uint32_t ReadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Reads every byte a loaded model's slots hold, as a forward would.
void ReadSlots(void* const* slots) {
  float x[2 * 16], y[2 * 64];
  std::fill(x, x + 2 * 16, 1.0f);
  volatile float sink = 0.0f;
  for (int32_t i = 0; i < kNumDescs; ++i) {
    const enc_weight_desc& d = kDescs[i];
    if (d.kind == ENC_SLOT_PACKED_MATRIX) {
      auto* w = static_cast<const enc_packed_b*>(slots[i]);
      if (enc_gemm_packed_n(w) > 64 || enc_gemm_packed_k(w) > 16 ||
          enc_gemm(2, x, 16, w, nullptr, ENC_ACT_NONE, nullptr, 0, y, 64) !=
              ENC_OK) {
        Violation("a loaded packed matrix does not run", d.names[0]);
      }
      sink = sink + y[0];
      continue;
    }
    int64_t floats = d.kind == ENC_SLOT_TABLE ? d.rows[0] * d.cols : 0;
    if (d.kind == ENC_SLOT_VECTOR) {
      for (int32_t p = 0; p < d.num_parts; ++p) floats += d.rows[p];
    }
    const auto* v = static_cast<const float*>(slots[i]);
    for (int64_t j = 0; j < floats; ++j) sink = sink + v[j];
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  g_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz_packed." +
           std::to_string(getpid()) + ".encw";
  std::atexit([] { ::unlink(g_path.c_str()); });
  if (enc_model_pack(ENC_FUZZ_WEIGHTS, g_path.c_str(), kDescs, kNumDescs) !=
      ENC_OK) {
    std::fprintf(stderr, "fuzz_packed: cannot pack %s: %s\n", ENC_FUZZ_WEIGHTS,
                 enc_last_error());
    std::abort();
  }
  FILE* f = std::fopen(g_path.c_str(), "rb");
  if (f == nullptr) std::abort();
  uint8_t buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) {
    g_valid.insert(g_valid.end(), buf, buf + got);
  }
  std::fclose(f);
  return 0;
}

// Input: a flags byte (bit 0: restamp the checksums; bit 1: truncate to the
// next u32, modulo the size), then patches of (u32 offset, u8 length,
// bytes) applied to the valid file.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> file = g_valid;
  size_t at = 0;
  const uint8_t flags = size > 0 ? data[at++] : 0;
  if ((flags & 2) != 0 && at + 4 <= size) {
    file.resize(ReadU32(data + at) % (file.size() + 1));
    at += 4;
  }
  while (at + 5 <= size && !file.empty()) {
    const size_t offset = ReadU32(data + at) % file.size();
    const size_t len =
        std::min<size_t>({data[at + 4], size - at - 5, file.size() - offset});
    std::memcpy(file.data() + offset, data + at + 5, len);
    at += 5 + len;
  }
  if ((flags & 1) != 0) enc::RestampPackedChecksums(file.data(), file.size());
  WriteFile(file.data(), file.size());
  void* slots[kNumDescs];
  const enc_status load =
      enc_model_load(g_path.c_str(), kDescs, kNumDescs, slots);
  if (load == ENC_OK) {
    ReadSlots(slots);
    enc_model_free(kDescs, kNumDescs, slots);
  } else {
    for (void* s : slots) {
      if (s != nullptr) Violation("a slot is held after a failed load", "");
    }
    if (enc_last_error()[0] == '\0') Violation("no error message", "");
  }
  return 0;
}
#else
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  g_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz_safetensors." +
           std::to_string(getpid()) + ".safetensors";
  std::atexit([] { ::unlink(g_path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  WriteFile(data, size);

  std::unique_ptr<enc::SafeTensors> st;
  const enc_status open = enc::SafeTensors::Open(g_path, &st);
  if (open != ENC_OK && open != ENC_ERR_FORMAT)
    Violation("unexpected Open status", "");
  if (open == ENC_OK) CheckAccepted(*st, data, size);
  st.reset();

  void* slots[kNumDescs];
  const enc_status load =
      enc_model_load(g_path.c_str(), kDescs, kNumDescs, slots);
  if (load != ENC_OK && load != ENC_ERR_FORMAT && load != ENC_ERR_WEIGHTS) {
    Violation("unexpected enc_model_load status", "");
  }
  if ((open == ENC_OK) != (load != ENC_ERR_FORMAT))
    Violation("Open and load disagree", "");
  if (load == ENC_OK) {
    enc_model_free(kDescs, kNumDescs, slots);
  } else {
    for (void* s : slots) {
      if (s != nullptr) Violation("a slot is held after a failed load", "");
    }
    if (enc_last_error()[0] == '\0') Violation("no error message", "");
  }

  enc_weights* w = nullptr;
  if (enc_weights_open(g_path.c_str(), &w) == ENC_OK) {
    // Fewer rows than the file holds: the first rows only.
    const int64_t rows[2] = {4, 8};
    float dst[32];
    enc_weights_get_rows(w, "embed.positions", 2, rows, dst);
    int ndim = 0;
    int64_t shape[4];
    if (enc_weights_has(w, "embed.tokens") &&
        enc_weights_shape(w, "embed.tokens", 4, &ndim, shape) != ENC_OK) {
      Violation("has but no shape", "embed.tokens");
    }
    enc_weights_close(w);
  }
  return 0;
}
#endif  // ENC_FUZZ_PACKED
