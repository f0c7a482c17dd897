// The safetensors loader against files crafted here: valid ones in each
// supported dtype, and every kind of damage docs/weights.md#errors lists.
#include "src/safetensors.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "enc/kernels/weights.h"

namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "enc_st_" + std::to_string(getpid()) + "_" +
         name;
}

void WriteRaw(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string LE64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

// A file with the given header text and data bytes.
std::string File(const std::string& header, const std::string& data) {
  return LE64(header.size()) + header + data;
}

std::string Bytes(const void* p, size_t n) {
  return std::string(static_cast<const char*>(p), n);
}

struct Opened {
  enc_status status;
  enc_weights* w;
  std::string error;
};

Opened OpenBytes(const std::string& name, const std::string& bytes) {
  const std::string path = TempPath(name);
  WriteRaw(path, bytes);
  enc_weights* w = nullptr;
  const enc_status s = enc_weights_open(path.c_str(), &w);
  Opened o{s, w, enc_last_error()};
  unlink(path.c_str());  // the mapping stays valid
  return o;
}

void ExpectOpenFails(const std::string& name, const std::string& bytes,
                     enc_status want, const std::string& needle) {
  SCOPED_TRACE(name);
  Opened o = OpenBytes(name, bytes);
  EXPECT_EQ(want, o.status) << o.error;
  EXPECT_EQ(nullptr, o.w);
  EXPECT_NE(std::string::npos, o.error.find(TempPath(name))) << o.error;
  EXPECT_NE(std::string::npos, o.error.find(needle)) << o.error;
  enc_weights_close(o.w);
}

const char kTensorA[] =
    "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";

std::string SixFloats() {
  const float v[6] = {1, -2, 3.5f, 0, 1e-30f, 6};
  return Bytes(v, sizeof(v));
}

TEST(SafeTensors, ReadsF32F16BF16) {
  const float f32[4] = {1.5f, -0.0f, 3e38f, -1e-40f};
  // F16: 1.0, -2.0, smallest subnormal, largest subnormal, 65504, -inf, nan, -0
  const uint16_t f16[8] = {0x3c00, 0xc000, 0x0001, 0x03ff,
                           0x7bff, 0xfc00, 0x7e00, 0x8000};
  // BF16: 1.0, -3.0, a subnormal, +inf
  const uint16_t bf16[4] = {0x3f80, 0xc040, 0x0001, 0x7f80};
  const std::string header =
      "{\"__metadata__\":{\"format\":\"pt\"},"
      "\"w32\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
      "\"w16\":{\"dtype\":\"F16\",\"shape\":[8],\"data_offsets\":[16,32]},"
      "\"wbf\":{\"dtype\":\"BF16\",\"shape\":[1,4],\"data_offsets\":[32,40]},"
      "\"scalar\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[40,44]},"
      "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[44,44]},"
      "\"ints\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[44,48]}}   "
      " ";
  const float one = 1.0f;
  const int32_t seven = 7;
  Opened o = OpenBytes(
      "valid", File(header, Bytes(f32, 16) + Bytes(f16, 16) + Bytes(bf16, 8) +
                                Bytes(&one, 4) + Bytes(&seven, 4)));
  ASSERT_EQ(ENC_OK, o.status) << o.error;
  enc_weights* w = o.w;

  float got[8];
  const int64_t s22[2] = {2, 2};
  ASSERT_EQ(ENC_OK, enc_weights_get(w, "w32", 2, s22, got));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(0, std::memcmp(&f32[i], &got[i], 4)) << i;

  const int64_t s8[1] = {8};
  ASSERT_EQ(ENC_OK, enc_weights_get(w, "w16", 1, s8, got));
  EXPECT_EQ(1.0f, got[0]);
  EXPECT_EQ(-2.0f, got[1]);
  EXPECT_EQ(std::ldexp(1.0f, -24), got[2]);
  EXPECT_EQ(std::ldexp(1023.0f, -24), got[3]);
  EXPECT_EQ(65504.0f, got[4]);
  EXPECT_TRUE(std::isinf(got[5]) && got[5] < 0);
  EXPECT_TRUE(std::isnan(got[6]));
  EXPECT_TRUE(got[7] == 0.0f && std::signbit(got[7]));

  const int64_t s14[2] = {1, 4};
  ASSERT_EQ(ENC_OK, enc_weights_get(w, "wbf", 2, s14, got));
  EXPECT_EQ(1.0f, got[0]);
  EXPECT_EQ(-3.0f, got[1]);
  EXPECT_EQ(std::ldexp(1.0f, -133), got[2]);
  EXPECT_TRUE(std::isinf(got[3]) && got[3] > 0);

  ASSERT_EQ(ENC_OK, enc_weights_get(w, "scalar", 0, nullptr, got));
  EXPECT_EQ(1.0f, got[0]);
  const int64_t s03[2] = {0, 3};
  EXPECT_EQ(ENC_OK, enc_weights_get(w, "empty", 2, s03, got));

  // Introspection and the "more rows" read.
  EXPECT_EQ(1, enc_weights_has(w, "w32"));
  EXPECT_EQ(0, enc_weights_has(w, "nope"));
  EXPECT_EQ(0, enc_weights_has(w, "__metadata__"));
  int ndim = 0;
  int64_t shape[4] = {0};
  ASSERT_EQ(ENC_OK, enc_weights_shape(w, "wbf", 4, &ndim, shape));
  EXPECT_EQ(2, ndim);
  EXPECT_EQ(1, shape[0]);
  EXPECT_EQ(4, shape[1]);
  const int64_t s12[2] = {1, 2};
  std::fill(got, got + 8, 9.0f);
  ASSERT_EQ(ENC_OK, enc_weights_get_rows(w, "w32", 2, s12, got))
      << enc_last_error();
  EXPECT_EQ(1.5f, got[0]);
  EXPECT_EQ(9.0f, got[2]);
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get(w, "w32", 2, s12, got));
  const int64_t s32[2] = {3, 2};
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get_rows(w, "w32", 2, s32, got));

  // Missing, wrong shape, wrong dtype: ENC_ERR_WEIGHTS naming file and tensor.
  EXPECT_EQ(ENC_ERR_WEIGHTS,
            enc_weights_get(w, "blocks.0.attn.q.weight", 2, s22, got));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find("blocks.0.attn.q.weight"));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find(TempPath("valid")));
  const int64_t s4[1] = {4};
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get(w, "w32", 1, s4, got));
  EXPECT_NE(std::string::npos, std::string(enc_last_error()).find("w32"));
  const int64_t s1[1] = {1};
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get(w, "ints", 1, s1, got));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find("unsupported dtype"));

  // Bad arguments.
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(w, "w32", 2, s22, nullptr));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(w, nullptr, 2, s22, got));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(nullptr, "w32", 2, s22, got));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(w, "w32", -1, s22, got));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(w, "w32", 2, nullptr, got));
  const int64_t neg[2] = {-2, -2};
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_get(w, "w32", 2, neg, got));
  enc_weights_close(w);
  enc_weights_close(nullptr);
}

TEST(SafeTensors, ViewsAlignedF32InPlace) {
  const float f32[4] = {1.5f, -2.0f, 3.0f, 4.0f};
  const uint16_t f16[4] = {0x3c00, 0xc000, 0x0001, 0x03ff};
  const std::string tensors =
      "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
      "\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[16,24]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[26,30]}";
  // With the header padded to 8 bytes "a" is aligned; "b" sits 2 bytes off.
  std::string header = "{" + tensors + "}";
  while ((8 + header.size()) % 8 != 0) header += ' ';
  const uint16_t pad = 0;
  const float one = 1.0f;
  Opened o =
      OpenBytes("view", File(header, Bytes(f32, 16) + Bytes(f16, 8) +
                                         Bytes(&pad, 2) + Bytes(&one, 4)));
  ASSERT_EQ(ENC_OK, o.status) << o.error;
  const float* view = nullptr;
  const int64_t s22[2] = {2, 2}, s4[1] = {4}, s1[1] = {1};
  ASSERT_EQ(ENC_OK, enc_weights_view_f32(o.w, "a", 2, s22, &view))
      << enc_last_error();
  ASSERT_NE(nullptr, view);
  EXPECT_EQ(0, std::memcmp(view, f32, 16));
  enc_weights_release(o.w, "a");  // pages dropped, data still readable
  EXPECT_EQ(-2.0f, view[1]);
  // Not F32, or not aligned: no view, the caller converts with get.
  view = f32;
  ASSERT_EQ(ENC_OK, enc_weights_view_f32(o.w, "h", 1, s4, &view));
  EXPECT_EQ(nullptr, view);
  view = f32;
  ASSERT_EQ(ENC_OK, enc_weights_view_f32(o.w, "b", 1, s1, &view));
  EXPECT_EQ(nullptr, view);
  float got = 0;
  ASSERT_EQ(ENC_OK, enc_weights_get(o.w, "b", 1, s1, &got));
  EXPECT_EQ(1.0f, got);
  // The same checks as get.
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_view_f32(o.w, "a", 1, s4, &view));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find("'a' has shape [2, 2]"))
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_WEIGHTS,
            enc_weights_view_f32(o.w, "missing", 1, s4, &view));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_view_f32(o.w, "a", 2, s22, nullptr));
  enc_weights_release(o.w, "missing");
  enc_weights_release(nullptr, "a");
  enc_weights_close(o.w);
}

// Rows of a tensor (a row slice of a fused one): F32 viewed in place at the
// slice, F16 converted for the slice alone, rows outside the tensor refused.
TEST(SafeTensors, ReadsAndViewsRowSlices) {
  const float f32[6] = {1, 2, 3, 4, 5, 6};
  const uint16_t f16[3] = {0x3c00, 0xc000, 0x4200};  // 1, -2, 3
  const std::string header =
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[3,2],\"data_offsets\":[0,24]},"
      "\"h\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[24,30]}}";
  std::string padded = header;
  while ((8 + padded.size()) % 8 != 0) padded.insert(padded.size() - 1, " ");
  const std::string path = TempPath("rows");
  WriteRaw(path, File(padded, Bytes(f32, 24) + Bytes(f16, 6)));
  std::unique_ptr<enc::SafeTensors> file;
  ASSERT_EQ(ENC_OK, enc::SafeTensors::Open(path, &file)) << enc_last_error();
  unlink(path.c_str());
  const float* view = nullptr;
  ASSERT_EQ(ENC_OK, file->ViewRows("w", {3, 2}, {1, 2}, &view))
      << enc_last_error();
  ASSERT_NE(nullptr, view);
  EXPECT_EQ(3.0f, view[0]);
  EXPECT_EQ(6.0f, view[3]);
  file->ReleaseRows("w", {1, 2});  // pages dropped, data still readable
  EXPECT_EQ(4.0f, view[1]);
  float got[2] = {0, 0};
  ASSERT_EQ(ENC_OK, file->GetRows("h", {3}, {1, 2}, got)) << enc_last_error();
  EXPECT_EQ(-2.0f, got[0]);
  EXPECT_EQ(3.0f, got[1]);
  ASSERT_EQ(ENC_OK, file->ViewRows("h", {3}, {0, 1}, &view));
  EXPECT_EQ(nullptr, view);  // F16: converted, not viewed
  // The whole tensor's shape is checked, and named, as for Get.
  EXPECT_EQ(ENC_ERR_WEIGHTS, file->GetRows("w", {2, 2}, {0, 1}, got));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error())
                .find("'w' has shape [3, 2], expected [2, 2]"))
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, file->GetRows("w", {3, 2}, {2, 2}, got));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find("rows 2..4 are outside its 3"))
      << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, file->ViewRows("w", {3, 2}, {-1, 1}, &view));
  file->ReleaseRows("missing", {0, 1});
  file->ReleaseRows("w", {3, 1});
}

// The resident pages (smaps Rss, in KiB) of the mapping holding `p`, or -1.
long MappingRssKib(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("Rss:", 0) == 0) {
      return std::stol(line.substr(4));
    }
  }
  return -1;
}

// Releasing a small tensor drops the pages around it too (a fault on it may
// have mapped its large folio, neighbours' pages included), and what was
// dropped reads back the same.
TEST(SafeTensors, ReleaseDropsTheNeighbourhood) {
  const size_t n = 1 << 18;  // 1 MiB of floats on each side
  std::vector<float> a(n), c(n);
  for (size_t i = 0; i < n; ++i) a[i] = c[n - 1 - i] = static_cast<float>(i);
  const float b[4] = {1, 2, 3, 4};
  const std::string mib = std::to_string(n * 4);
  const std::string header =
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(n) +
      "],\"data_offsets\":[0," + mib +
      "]},\"b\":{\"dtype\":\"F32\","
      "\"shape\":[4],\"data_offsets\":[" +
      mib + "," + std::to_string(n * 4 + 16) +
      "]},\"c\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(n) +
      "],\"data_offsets\":[" + std::to_string(n * 4 + 16) + "," +
      std::to_string(2 * n * 4 + 16) + "]}}";
  std::string padded = header;
  while ((8 + padded.size()) % 8 != 0) padded.insert(padded.size() - 1, " ");
  const std::string path = TempPath("neighbourhood");
  WriteRaw(path, File(padded, Bytes(a.data(), n * 4) + Bytes(b, 16) +
                                  Bytes(c.data(), n * 4)));
  std::unique_ptr<enc::SafeTensors> file;
  ASSERT_EQ(ENC_OK, enc::SafeTensors::Open(path, &file)) << enc_last_error();
  unlink(path.c_str());
  const float *va = nullptr, *vc = nullptr;
  ASSERT_EQ(ENC_OK, file->ViewRows("a", {int64_t(n)}, {0, int64_t(n)}, &va));
  ASSERT_EQ(ENC_OK, file->ViewRows("c", {int64_t(n)}, {0, int64_t(n)}, &vc));
  ASSERT_NE(nullptr, va);
  ASSERT_NE(nullptr, vc);
  double sum = 0;
  for (size_t i = 0; i < n; i += 256) sum += va[i] + vc[i];  // every page
  EXPECT_GT(sum, 0);
  const long before = MappingRssKib(va);
  ASSERT_GE(before, 2 * 1024) << "the file's pages were not mapped";
  file->Release("b");
  EXPECT_LE(MappingRssKib(va), 8) << "before the release: " << before;
  EXPECT_EQ(static_cast<float>(n - 1), va[n - 1]);
  EXPECT_EQ(static_cast<float>(n - 1), vc[0]);
  float got[4] = {};
  ASSERT_EQ(ENC_OK, file->GetRows("b", {4}, {0, 4}, got));
  EXPECT_EQ(4.0f, got[3]);
}

TEST(SafeTensors, HalfConversionIsExactForEveryValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float got = enc::HalfToFloat(static_cast<uint16_t>(h));
    _Float16 half;
    const uint16_t bits = static_cast<uint16_t>(h);
    std::memcpy(&half, &bits, 2);
    const float want = static_cast<float>(half);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << h;
      continue;
    }
    ASSERT_EQ(0, std::memcmp(&got, &want, 4)) << "half 0x" << std::hex << h;
  }
}

TEST(SafeTensors, OpenErrors) {
  enc_weights* w = reinterpret_cast<enc_weights*>(1);
  EXPECT_EQ(ENC_ERR_IO, enc_weights_open("/nonexistent/dir/w.safetensors", &w));
  EXPECT_EQ(nullptr, w);
  EXPECT_NE(
      std::string::npos,
      std::string(enc_last_error()).find("/nonexistent/dir/w.safetensors"));
  const std::string dir = TempPath("dir");
  mkdir(dir.c_str(), 0700);
  EXPECT_EQ(ENC_ERR_IO, enc_weights_open(dir.c_str(), &w));
  EXPECT_NE(std::string::npos, std::string(enc_last_error()).find("directory"));
  rmdir(dir.c_str());
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_open(nullptr, &w));
  EXPECT_EQ(ENC_ERR_INPUT, enc_weights_open("x", nullptr));
}

TEST(SafeTensors, RejectsMalformedFiles) {
  const std::string data = SixFloats();
  ExpectOpenFails("empty", "", ENC_ERR_FORMAT, "shorter");
  ExpectOpenFails("seven", "1234567", ENC_ERR_FORMAT, "shorter");
  ExpectOpenFails("len_past_end", LE64(100) + "{}", ENC_ERR_FORMAT, "exceeds");
  ExpectOpenFails("len_2_63", LE64(uint64_t{1} << 63) + kTensorA + data,
                  ENC_ERR_FORMAT, "exceeds");
  ExpectOpenFails("len_max", LE64(~uint64_t{0}) + kTensorA + data,
                  ENC_ERR_FORMAT, "exceeds");
  ExpectOpenFails("not_json", File("{\"a\": nope", data), ENC_ERR_FORMAT,
                  "JSON");
  ExpectOpenFails("empty_header", File("", data), ENC_ERR_FORMAT, "JSON");
  ExpectOpenFails("bad_utf8", File("{\"\xff\xfe\":1}", data), ENC_ERR_FORMAT,
                  "JSON");
  ExpectOpenFails("array", File("[1,2]", data), ENC_ERR_FORMAT,
                  "not a JSON object");
  ExpectOpenFails("number", File("42", data), ENC_ERR_FORMAT,
                  "not a JSON object");
  ExpectOpenFails("truncated", File(kTensorA, data.substr(0, 20)),
                  ENC_ERR_FORMAT, "'a'");
  ExpectOpenFails(
      "out_of_bounds",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}}",
           data),
      ENC_ERR_FORMAT, "outside");
  ExpectOpenFails(
      "huge_offsets",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":"
           "[18446744073709551608,18446744073709551615]}}",
           data),
      ENC_ERR_FORMAT, "'a'");
  ExpectOpenFails(
      "reversed",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}",
           data),
      ENC_ERR_FORMAT, "reversed");
  ExpectOpenFails(
      "size_mismatch",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
           data),
      ENC_ERR_FORMAT,
      "'a': 8 bytes of data for F32 [3] (3 elements: 12 bytes expected)");
  ExpectOpenFails(
      "overlap",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
           "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
           data),
      ENC_ERR_FORMAT, "overlap");
  ExpectOpenFails(
      "duplicate",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
           "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
           data),
      ENC_ERR_FORMAT, "duplicate");
  ExpectOpenFails(
      "duplicate_field",
      File("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[2],"
           "\"data_offsets\":[0,8]}}",
           data),
      ENC_ERR_FORMAT, "duplicate");
  ExpectOpenFails(
      "overflow",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,16],"
           "\"data_offsets\":[0,0]}}",
           data),
      ENC_ERR_FORMAT, "too many elements");
  ExpectOpenFails(
      "overflow_exact_wrap",  // 2^32 * 2^32 wraps to 0 in 64 bits
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
           "\"data_offsets\":[0,0]}}",
           data),
      ENC_ERR_FORMAT, "too many elements");
  ExpectOpenFails(
      "bits_overflow",  // 2^60 elements of 64 bits: 2^66 bits
      File("{\"a\":{\"dtype\":\"F64\",\"shape\":[1152921504606846976],"
           "\"data_offsets\":[0,0]}}",
           data),
      ENC_ERR_FORMAT,
      "'a': 0 bytes of data for F64 [1152921504606846976] "
      "(1152921504606846976 elements: more than 2^64 bits expected)");
  ExpectOpenFails(
      "partial_byte",  // three 4-bit values: 12 bits
      File("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}",
           data),
      ENC_ERR_FORMAT, "(3 elements: 12 bits, not whole bytes)");
  ExpectOpenFails(
      "negative_dim",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}",
           data),
      ENC_ERR_FORMAT, "non-negative");
  ExpectOpenFails(
      "float_dim",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}",
           data),
      ENC_ERR_FORMAT, "non-negative");
  ExpectOpenFails(
      "unknown_dtype",
      File("{\"a\":{\"dtype\":\"F7\",\"shape\":[2],\"data_offsets\":[0,8]}}",
           data),
      ENC_ERR_FORMAT, "unknown dtype");
  ExpectOpenFails("no_dtype",
                  File("{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", data),
                  ENC_ERR_FORMAT, "dtype");
  ExpectOpenFails(
      "no_shape",
      File("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", data),
      ENC_ERR_FORMAT, "shape");
  ExpectOpenFails(
      "bad_offsets",
      File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}",
           data),
      ENC_ERR_FORMAT, "data_offsets");
  ExpectOpenFails("entry_not_object", File("{\"a\":[1]}", data), ENC_ERR_FORMAT,
                  "not an object");
  ExpectOpenFails("metadata_not_object", File("{\"__metadata__\":[1]}", data),
                  ENC_ERR_FORMAT, "__metadata__");
  ExpectOpenFails("metadata_not_strings",
                  File("{\"__metadata__\":{\"k\":1}}", data), ENC_ERR_FORMAT,
                  "__metadata__");
}

TEST(SafeTensors, AcceptsEmptyHeaderObjectAndUnusedDtypes) {
  Opened o = OpenBytes("empty_obj", File("{}", ""));
  ASSERT_EQ(ENC_OK, o.status) << o.error;
  const int64_t s[1] = {1};
  float x;
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get(o.w, "a", 1, s, &x));
  enc_weights_close(o.w);
  // An F64 tensor is fine to have, an error only when asked for.
  const double d = 1.0;
  o = OpenBytes(
      "f64",
      File("{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
           Bytes(&d, 8)));
  ASSERT_EQ(ENC_OK, o.status) << o.error;
  EXPECT_EQ(ENC_ERR_WEIGHTS, enc_weights_get(o.w, "a", 1, s, &x));
  EXPECT_NE(std::string::npos,
            std::string(enc_last_error()).find("unsupported dtype F64"));
  enc_weights_close(o.w);
}

}  // namespace
