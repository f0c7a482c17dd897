// The generated code's glue (enc/kernels/model.h): loading slots from weight
// descriptors against safetensors files written here, input validation for
// forward calls, and the per-thread workspace.
#include "enc/kernels/model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "enc/kernels/gemm.h"

namespace {

// ---- Writing safetensors files ----------------------------------------------

struct Tensor {
  std::string name;
  std::string dtype;  // "F32" or "F16"
  std::vector<int64_t> shape;
  std::vector<float> values;  // F16: exactly representable values only
};

uint16_t ToHalf(float f) {  // exact for normal halves and zero
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  if ((u & 0x7fffffff) == 0) return sign;
  const int exp = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  EXPECT_TRUE(exp > 0 && exp < 31 && (u & 0x1fff) == 0)
      << f << " is not a half";
  return static_cast<uint16_t>(sign | (exp << 10) | ((u >> 13) & 0x3ff));
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "enc_model_" + std::to_string(getpid()) + "_" +
         name + ".safetensors";
}

// Writes the tensors as a safetensors file and returns its path.
std::string WriteFile(const std::string& name,
                      const std::vector<Tensor>& tensors) {
  std::string header = "{", data;
  for (const Tensor& t : tensors) {
    size_t count = 1;
    for (int64_t d : t.shape) count *= static_cast<size_t>(d);
    EXPECT_EQ(count, t.values.size()) << t.name;
    const size_t begin = data.size();
    for (float v : t.values) {
      if (t.dtype == "F16") {
        const uint16_t h = ToHalf(v);
        data.push_back(static_cast<char>(h & 0xff));
        data.push_back(static_cast<char>(h >> 8));
      } else {
        char b[4];
        std::memcpy(b, &v, 4);
        data.append(b, 4);
      }
    }
    if (header.size() > 1) header += ",";
    header += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    }
    header += "],\"data_offsets\":[" + std::to_string(begin) + "," +
              std::to_string(data.size()) + "]}";
  }
  header += "}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  bytes += header + data;
  const std::string path = TempPath(name);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Distinct values, exact in F16: (seed + i) / 8 wrapped to [-8, 8).
std::vector<float> Values(size_t count, int seed) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) {
    v[i] = static_cast<float>(static_cast<int>((seed * 7 + i * 3) % 128) - 64) /
           8.0f;
  }
  return v;
}

Tensor T(const std::string& name, const std::string& dtype,
         std::vector<int64_t> shape, int seed) {
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  return Tensor{name, dtype, shape, Values(count, seed)};
}

enc_weight_desc Vector(std::vector<const char*> names,
                       std::vector<int64_t> rows) {
  enc_weight_desc d{};
  d.kind = ENC_SLOT_VECTOR;
  d.num_parts = static_cast<int32_t>(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    d.names[i] = names[i];
    d.rows[i] = rows[i];
  }
  return d;
}

enc_weight_desc Matrix(std::vector<const char*> names,
                       std::vector<int64_t> rows, int64_t cols) {
  enc_weight_desc d = Vector(names, rows);
  d.kind = ENC_SLOT_PACKED_MATRIX;
  d.cols = cols;
  return d;
}

enc_weight_desc Table(const char* name, int64_t rows, int64_t cols,
                      int64_t min_file_rows = 0) {
  enc_weight_desc d = Vector({name}, {rows});
  d.kind = ENC_SLOT_TABLE;
  d.cols = cols;
  d.min_file_rows = min_file_rows;
  return d;
}

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Loads `descs` from `path` expecting `want`; on failure checks that every
// slot is NULL and that the message holds each needle.
void ExpectLoadFails(const std::string& path,
                     const std::vector<enc_weight_desc>& descs, enc_status want,
                     const std::vector<std::string>& needles) {
  std::vector<void*> slots(descs.size(),
                           reinterpret_cast<void*>(uintptr_t{0x40}));
  const enc_status s =
      enc_model_load(path.c_str(), descs.data(),
                     static_cast<int32_t>(descs.size()), slots.data());
  const std::string error = enc_last_error();
  EXPECT_EQ(want, s) << error;
  for (void* slot : slots) EXPECT_EQ(nullptr, slot);
  for (const std::string& n : needles) EXPECT_TRUE(Contains(error, n)) << error;
  if (s == ENC_OK)
    enc_model_free(descs.data(), static_cast<int32_t>(descs.size()),
                   slots.data());
}

// ---- Loading ----------------------------------------------------------------

constexpr int64_t kD = 5, kCols = 7;

TEST(ModelLoad, EveryKindIncludingFusedQkv) {
  const std::vector<Tensor> tensors = {
      T("q.weight", "F32", {kD, kCols}, 1),
      T("k.weight", "F16", {kD, kCols}, 2),
      T("v.weight", "F32", {3, kCols}, 3),  // parts may differ in rows
      T("q.bias", "F32", {kD}, 4),
      T("k.bias", "F16", {kD}, 5),
      T("v.bias", "F32", {3}, 6),
      T("up.weight", "F16", {9, kCols}, 7),
      T("norm.weight", "F16", {kCols}, 8),
      T("embed.tokens", "F16", {11, kCols}, 9),
      T("embed.positions", "F32", {10, kCols}, 10),  // more rows than kept
      T("unused", "F32", {2}, 11),
  };
  const std::string path = WriteFile("kinds", tensors);
  const std::vector<enc_weight_desc> descs = {
      Matrix({"q.weight", "k.weight", "v.weight"}, {kD, kD, 3}, kCols),
      Vector({"q.bias", "k.bias", "v.bias"}, {kD, kD, 3}),
      Matrix({"up.weight"}, {9}, kCols),
      Vector({"norm.weight"}, {kCols}),
      Table("embed.tokens", 11, kCols),
      Table("embed.positions", 4, kCols, 4),
  };
  const int32_t n = static_cast<int32_t>(descs.size());
  std::vector<void*> slots(descs.size(), nullptr);
  ASSERT_EQ(ENC_OK, enc_model_load(path.c_str(), descs.data(), n, slots.data()))
      << enc_last_error();
  unlink(path.c_str());  // the model holds copies, not the mapping
  for (int32_t i = 0; i < n; ++i) {
    ASSERT_NE(nullptr, slots[i]);
    // Float slots are aligned; a packed slot is an opaque handle.
    if (descs[i].kind != ENC_SLOT_PACKED_MATRIX) {
      EXPECT_TRUE(Aligned(slots[i])) << i;
    }
  }

  // Vectors: the parts, concatenated.
  const float* bias = static_cast<const float*>(slots[1]);
  for (int p = 0, at = 0; p < 3; ++p) {
    for (float v : tensors[3 + p].values) EXPECT_EQ(v, bias[at++]) << p;
  }
  const float* norm = static_cast<const float*>(slots[3]);
  for (int64_t i = 0; i < kCols; ++i) EXPECT_EQ(tensors[7].values[i], norm[i]);
  // Tables: all rows, or the first rows[0] of a longer tensor.
  const float* tokens = static_cast<const float*>(slots[4]);
  for (int64_t i = 0; i < 11 * kCols; ++i)
    EXPECT_EQ(tensors[8].values[i], tokens[i]);
  const float* positions = static_cast<const float*>(slots[5]);
  for (int64_t i = 0; i < 4 * kCols; ++i)
    EXPECT_EQ(tensors[9].values[i], positions[i]);

  // Packed matrices: enc_gemm against the concatenated rows.
  struct Case {
    int slot;
    std::vector<int> parts;
  };
  for (const Case& c : {Case{0, {0, 1, 2}}, Case{2, {6}}}) {
    SCOPED_TRACE(c.slot);
    std::vector<float> w;
    for (int p : c.parts)
      w.insert(w.end(), tensors[p].values.begin(), tensors[p].values.end());
    const int64_t rows = static_cast<int64_t>(w.size()) / kCols;
    const enc_packed_b* packed =
        static_cast<const enc_packed_b*>(slots[c.slot]);
    EXPECT_EQ(rows, enc_gemm_packed_n(packed));
    EXPECT_EQ(kCols, enc_gemm_packed_k(packed));
    const int64_t m = 3;
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> x(m * kCols), y(m * rows, NAN);
    for (float& v : x) v = dist(rng);
    ASSERT_EQ(ENC_OK, enc_gemm(m, x.data(), kCols, packed, nullptr,
                               ENC_ACT_NONE, nullptr, 0, y.data(), rows))
        << enc_last_error();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < rows; ++j) {
        double ref = 0;
        for (int64_t k = 0; k < kCols; ++k)
          ref += double{x[i * kCols + k]} * w[j * kCols + k];
        EXPECT_NEAR(ref, y[i * rows + j], 1e-4 * std::max(1.0, std::fabs(ref)))
            << i << "," << j;
      }
    }
  }

  // Bytes held: each slot's floats rounded up to 64 bytes.
  auto round = [](int64_t floats) { return (floats * 4 + 63) / 64 * 64; };
  EXPECT_EQ(round(13 * kCols) + round(13) + round(9 * kCols) + round(kCols) +
                round(11 * kCols) + round(4 * kCols),
            enc_model_bytes(descs.data(), n));

  enc_model_free(descs.data(), n, slots.data());
  for (void* s : slots) EXPECT_EQ(nullptr, s);
  enc_model_free(descs.data(), n, slots.data());  // all NULL: a no-op
  enc_model_free(descs.data(), n, nullptr);
}

enc_weight_desc Gated(const char* gate, const char* up, int64_t rows,
                      int64_t cols) {
  enc_weight_desc d = Matrix({gate, up}, {rows, rows}, cols);
  d.kind = ENC_SLOT_PACKED_GATED;
  return d;
}

// A gated FFN's gate and up weights load into one packed gated slot: straight
// from the file's F32 tensors, or through a conversion (an F16 part); the
// slot computes act(x Wg^T) * (x Wu^T).
TEST(ModelLoad, PackedGatedFromGateAndUp) {
  const int64_t n = 9;
  const std::vector<Tensor> tensors = {
      T("ffn.gate.weight", "F32", {n, kCols}, 1),
      T("ffn.up.weight", "F32", {n, kCols}, 2),
      T("half.up.weight", "F16", {n, kCols}, 3),
  };
  const std::string path = WriteFile("gated", tensors);
  const std::vector<enc_weight_desc> descs = {
      Gated("ffn.gate.weight", "ffn.up.weight", n, kCols),
      Gated("ffn.gate.weight", "half.up.weight", n, kCols),
  };
  const int32_t count = static_cast<int32_t>(descs.size());
  std::vector<void*> slots(descs.size(), nullptr);
  ASSERT_EQ(ENC_OK,
            enc_model_load(path.c_str(), descs.data(), count, slots.data()))
      << enc_last_error();
  unlink(path.c_str());
  for (int slot = 0; slot < count; ++slot) {
    SCOPED_TRACE(slot);
    const std::vector<float>& wg = tensors[0].values;
    const std::vector<float>& wu = tensors[1 + slot].values;
    const auto* packed = static_cast<const enc_packed_gated*>(slots[slot]);
    ASSERT_NE(nullptr, packed);
    EXPECT_EQ(n, enc_gemm_gated_n(packed));
    EXPECT_EQ(kCols, enc_gemm_gated_k(packed));
    const int64_t m = 3;
    std::mt19937 rng(43);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> x(m * kCols), y(m * n, NAN);
    for (float& v : x) v = dist(rng);
    ASSERT_EQ(ENC_OK, enc_gemm_gated(m, x.data(), kCols, packed, nullptr,
                                     nullptr, ENC_ACT_RELU, y.data(), n))
        << enc_last_error();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double g = 0, u = 0;
        for (int64_t k = 0; k < kCols; ++k) {
          g += double{x[i * kCols + k]} * wg[j * kCols + k];
          u += double{x[i * kCols + k]} * wu[j * kCols + k];
        }
        const double ref = std::max(g, 0.0) * u;
        EXPECT_NEAR(ref, y[i * n + j], 1e-4 * std::max(1.0, std::fabs(ref)))
            << i << "," << j;
      }
    }
  }
  auto round = [](int64_t floats) { return (floats * 4 + 63) / 64 * 64; };
  EXPECT_EQ(2 * round(2 * n * kCols), enc_model_bytes(descs.data(), count));
  enc_model_free(descs.data(), count, slots.data());
  for (void* s : slots) EXPECT_EQ(nullptr, s);
}

// precision = int8: the matrices are packed as int8 (both the path straight
// from an F32 file and the one through a converted copy), enc_model_bytes
// counts a byte per element and a scale per row, and a weight int8 cannot
// scale fails the load naming its tensor.
TEST(ModelLoad, Int8Matrices) {
  std::vector<Tensor> tensors = {T("q.weight", "F32", {kD, kCols}, 1),
                                 T("k.weight", "F16", {kD, kCols}, 2)};
  const std::string path = WriteFile("int8", tensors);
  std::vector<enc_weight_desc> descs = {Matrix({"q.weight"}, {kD}, kCols),
                                        Matrix({"k.weight"}, {kD}, kCols)};
  const int64_t fp32_bytes = enc_model_bytes(descs.data(), 2);
  for (enc_weight_desc& d : descs) d.precision = ENC_PRECISION_INT8;
  // kD * kCols bytes and kD scales per matrix, each rounded up to 64.
  EXPECT_EQ(2 * 64, enc_model_bytes(descs.data(), 2));
  EXPECT_EQ(2 * 192, fp32_bytes);
  std::vector<void*> slots(2, nullptr);
  ASSERT_EQ(ENC_OK, enc_model_load(path.c_str(), descs.data(), 2, slots.data()))
      << enc_last_error();
  for (int i = 0; i < 2; ++i) {
    const auto* packed = static_cast<const enc_packed_b*>(slots[i]);
    EXPECT_EQ(ENC_PRECISION_INT8, enc_gemm_packed_precision(packed)) << i;
    // x = e_0: row 0 of W^T, i.e. column 0 of W, quantized per row of W.
    std::vector<float> x(kCols, 0.0f), y(kD, NAN);
    x[0] = 1.0f;
    ASSERT_EQ(ENC_OK, enc_gemm(1, x.data(), kCols, packed, nullptr,
                               ENC_ACT_NONE, nullptr, 0, y.data(), kD));
    for (int64_t r = 0; r < kD; ++r) {
      float max = 0;
      for (int64_t c = 0; c < kCols; ++c) {
        max = std::max(max, std::fabs(tensors[i].values[r * kCols + c]));
      }
      EXPECT_NEAR(tensors[i].values[r * kCols], y[r], max / 127)
          << i << ", " << r;
    }
  }
  enc_model_free(descs.data(), 2, slots.data());
  unlink(path.c_str());

  tensors[0].values[3] = INFINITY;
  const std::string bad = WriteFile("int8-inf", tensors);
  ExpectLoadFails(bad, descs, ENC_ERR_INPUT, {"q.weight", "not finite"});
  unlink(bad.c_str());
}

TEST(ModelLoad, TableWithFewerRowsFails) {
  const std::string path =
      WriteFile("few_rows", {T("norm.weight", "F32", {kCols}, 1),
                             T("embed.positions", "F16", {3, kCols}, 2),
                             T("big", "F32", {5, kCols}, 3)});
  ExpectLoadFails(
      path,
      {Vector({"norm.weight"}, {kCols}), Table("embed.positions", 4, kCols, 4)},
      ENC_ERR_WEIGHTS, {path, "'embed.positions'", "[3, 7]", "[4, 7]"});
  // min_file_rows above rows[0]: the file needs that many.
  ExpectLoadFails(path, {Table("big", 4, kCols, 6)}, ENC_ERR_WEIGHTS,
                  {path, "'big'", "[5, 7]", "[6, 7]"});
  // Without min_file_rows the shape must match exactly.
  ExpectLoadFails(path, {Table("big", 4, kCols)}, ENC_ERR_WEIGHTS,
                  {path, "'big'", "[5, 7]", "[4, 7]"});
  // With it, the columns must still match.
  ExpectLoadFails(path, {Table("big", 4, 6, 4)}, ENC_ERR_WEIGHTS,
                  {path, "'big'", "[5, 7]"});
  unlink(path.c_str());
}

TEST(ModelLoad, MissingTensorFailsAndFreesEverything) {
  const std::string path = WriteFile(
      "missing", {T("norm.weight", "F32", {kCols}, 1),
                  T("blocks.0.attn.q.weight", "F32", {kD, kCols}, 2),
                  T("blocks.0.attn.k.weight", "F32", {kD, kCols}, 3),
                  T("blocks.0.attn.o.weight", "F32", {kD, kCols}, 4)});
  const enc_weight_desc qkv =
      Matrix({"blocks.0.attn.q.weight", "blocks.0.attn.k.weight",
              "blocks.0.attn.v.weight"},
             {kD, kD, kD}, kCols);
  ExpectLoadFails(path,
                  {Vector({"norm.weight"}, {kCols}),
                   Matrix({"blocks.0.attn.o.weight"}, {kD}, kCols), qkv},
                  ENC_ERR_WEIGHTS,
                  {path, "'blocks.0.attn.v.weight'", "missing"});
  ExpectLoadFails(path, {Table("embed.positions", 4, kCols, 4)},
                  ENC_ERR_WEIGHTS, {path, "'embed.positions'", "missing"});
  unlink(path.c_str());
}

TEST(ModelLoad, MissingTensorsAreCountedAndListed) {
  const std::string path =
      WriteFile("several_missing", {T("present", "F32", {kCols}, 1)});
  std::vector<enc_weight_desc> descs = {Vector({"present"}, {kCols})};
  const char* names[] = {"a.weight", "b.weight", "c.weight",
                         "d.weight", "e.weight", "f.weight"};
  for (const char* name : names) descs.push_back(Matrix({name}, {kD}, kCols));
  // The first four with their shapes, then how many more.
  ExpectLoadFails(path, descs, ENC_ERR_WEIGHTS,
                  {path, "6 of the 7 tensors the model reads are missing",
                   "'a.weight' [5, 7], 'b.weight' [5, 7], 'c.weight' [5, 7], "
                   "'d.weight' [5, 7] "
                   "and 2 more"});
  // Parts of a fused slot count one by one; a table that may be longer says so.
  ExpectLoadFails(path,
                  {Matrix({"present", "q", "k"}, {kD, kD, kD}, kCols),
                   Table("embed.positions", 4, kCols, 4)},
                  ENC_ERR_WEIGHTS,
                  {"3 of the 4 tensors",
                   "'q' [5, 7], 'k' [5, 7], 'embed.positions' [4 or more, 7]"});
  EXPECT_FALSE(Contains(enc_last_error(), "Hugging Face")) << enc_last_error();
  unlink(path.c_str());
}

TEST(ModelLoad, AFileInAHuggingFaceLayoutIsNamed) {
  struct Case {
    const char* tensor;
    const char* family;
  } cases[] = {
      {"encoder.layer.0.attention.self.query.weight",
       "BERT, RoBERTa or ELECTRA"},
      {"bert.encoder.layer.11.attention.self.query.weight", "BERT"},
      {"roberta.encoder.layer.0.attention.self.query.weight", "RoBERTa"},
      {"electra.encoder.layer.3.attention.self.query.weight", "ELECTRA"},
      {"transformer.layer.0.attention.q_lin.weight", "DistilBERT"},
      {"distilbert.transformer.layer.5.attention.q_lin.weight", "DistilBERT"},
      {"encoder.block.0.layer.0.SelfAttention.q.weight", "T5"},
      {"layers.0.attn.Wqkv.weight", "ModernBERT"},
      {"model.layers.21.attn.Wqkv.weight", "ModernBERT"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tensor);
    const std::string path = WriteFile(
        "hf", {T("embeddings.word_embeddings.weight", "F32", {kD, kCols}, 1),
               T(c.tensor, "F32", {kD, kCols}, 2)});
    ExpectLoadFails(
        path,
        {Matrix({"blocks.0.attn.q.weight"}, {kD}, kCols), Vector({"v"}, {kD})},
        ENC_ERR_WEIGHTS,
        {path, "2 of the 2 tensors",
         std::string("looks like a Hugging Face ") + c.family +
             " checkpoint (it holds '" + c.tensor + "')"});
    unlink(path.c_str());
  }
  // Names that only resemble a layout (no layer number) are not one.
  const std::string path = WriteFile(
      "not_hf",
      {T("encoder.layer.x.attention.self.query.weight", "F32", {kD}, 1)});
  ExpectLoadFails(path, {Vector({"v"}, {kD})}, ENC_ERR_WEIGHTS,
                  {"'v'", "is missing"});
  EXPECT_FALSE(Contains(enc_last_error(), "Hugging Face")) << enc_last_error();
  unlink(path.c_str());
}

TEST(ModelLoad, WrongShapeFails) {
  const std::string path =
      WriteFile("shape", {T("v", "F32", {kD}, 1), T("m", "F16", {kD, kCols}, 2),
                          T("m3", "F32", {kD, kCols, 1}, 3)});
  ExpectLoadFails(path, {Vector({"v"}, {kD + 1})}, ENC_ERR_WEIGHTS,
                  {path, "'v'", "[5]", "[6]"});
  ExpectLoadFails(path, {Vector({"v", "m"}, {kD, kD})}, ENC_ERR_WEIGHTS,
                  {path, "'m'", "[5, 7]"});
  ExpectLoadFails(path, {Matrix({"m"}, {kD}, kCols + 1)}, ENC_ERR_WEIGHTS,
                  {path, "'m'", "[5, 7]", "[5, 8]"});
  ExpectLoadFails(path, {Matrix({"v", "m"}, {kD, kD}, kCols)}, ENC_ERR_WEIGHTS,
                  {path, "'v'"});
  ExpectLoadFails(path, {Table("m3", kD, kCols)}, ENC_ERR_WEIGHTS,
                  {path, "'m3'"});
  ExpectLoadFails(path, {Table("m3", kD, kCols, kD)}, ENC_ERR_WEIGHTS,
                  {path, "'m3'"});
  unlink(path.c_str());
}

TEST(ModelLoad, FileErrorsComeFromTheLoader) {
  const std::string missing = TempPath("does_not_exist");
  ExpectLoadFails(missing, {Vector({"v"}, {1})}, ENC_ERR_IO, {missing});
  const std::string garbage = TempPath("garbage");
  std::ofstream(garbage, std::ios::binary) << "not a safetensors file";
  ExpectLoadFails(garbage, {Vector({"v"}, {1})}, ENC_ERR_FORMAT, {garbage});
  unlink(garbage.c_str());
}

TEST(ModelLoad, BadArgumentsAndDescriptors) {
  const std::string path = WriteFile(
      "args", {T("v", "F32", {kD}, 1), T("m", "F32", {kD, kCols}, 2)});
  const enc_weight_desc good = Vector({"v"}, {kD});
  void* slot = nullptr;
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_load(nullptr, &good, 1, &slot));
  EXPECT_TRUE(Contains(enc_last_error(), "path")) << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_load(path.c_str(), &good, 1, nullptr));
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_load(path.c_str(), nullptr, 1, &slot));
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_load(path.c_str(), &good, -1, &slot));
  EXPECT_EQ(ENC_OK, enc_model_load(path.c_str(), nullptr, 0,
                                   nullptr));  // nothing to load
  EXPECT_EQ(0, enc_model_bytes(nullptr, 0));

  struct Bad {
    const char* what;
    enc_weight_desc desc;
  };
  std::vector<Bad> bad;
  auto add = [&](const char* what, enc_weight_desc d) {
    bad.push_back({what, d});
  };
  enc_weight_desc d = good;
  d.kind = 7;
  add("kind", d);
  d = good;
  d.num_parts = 0;
  add("num_parts", d);
  d = good;
  d.num_parts = 4;
  add("num_parts", d);
  d = Table("m", kD, kCols);
  d.num_parts = 2;
  d.names[1] = "m";
  d.rows[1] = kD;
  add("num_parts", d);
  d = Vector({"v", "v"}, {kD, kD});
  d.names[1] = nullptr;
  add("names[1]", d);
  d = Vector({""}, {kD});
  add("names[0]", d);
  d = good;
  d.rows[0] = 0;
  add("rows[0]", d);
  d = good;
  d.cols = 3;
  add("cols", d);
  d = Matrix({"m"}, {kD}, 0);
  add("cols", d);
  d = Matrix({"m"}, {kD}, kCols);
  d.min_file_rows = kD;
  add("min_file_rows", d);
  d = Table("m", kD, kCols, -1);
  add("min_file_rows", d);
  d = Matrix({"m"}, {int64_t{1} << 40}, int64_t{1} << 40);
  add("too large", d);
  d = Matrix({"m"}, {kD}, kCols);  // a gated slot has gate and up parts
  d.kind = ENC_SLOT_PACKED_GATED;
  add("num_parts (1) is outside 2..2", d);
  d = Gated("m", "m", kD, kCols);
  d.rows[1] = kD - 1;
  add("differ in rows", d);
  d = Matrix({"m"}, {kD}, kCols);
  d.precision = 3;
  add("precision", d);
  d = good;
  d.precision = ENC_PRECISION_INT8;
  add("precision", d);
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    // A broken descriptor is reported before anything is loaded, wherever it
    // is.
    ExpectLoadFails(path, {good, b.desc}, ENC_ERR_INPUT,
                    {"descriptor 1", b.what});
    EXPECT_EQ(-1, enc_model_bytes(&b.desc, 1));
  }
  unlink(path.c_str());
}

TEST(ModelCreate, AllocatesLoadsAndCleansUp) {
  const std::string path = WriteFile(
      "create", {T("v", "F16", {kD}, 1), T("m", "F32", {kD, kCols}, 2)});
  const enc_weight_desc descs[2] = {Vector({"v"}, {kD}),
                                    Matrix({"m"}, {kD}, kCols)};
  void** slots = reinterpret_cast<void**>(uintptr_t{0x40});
  ASSERT_EQ(ENC_OK, enc_model_create(path.c_str(), descs, 2, &slots))
      << enc_last_error();
  ASSERT_NE(nullptr, slots);
  EXPECT_NE(nullptr, slots[0]);
  EXPECT_EQ(kD, enc_gemm_packed_n(static_cast<const enc_packed_b*>(slots[1])));
  enc_model_destroy(descs, 2, slots);
  enc_model_destroy(descs, 2, nullptr);

  const enc_weight_desc missing[2] = {Vector({"v"}, {kD}),
                                      Matrix({"w"}, {kD}, kCols)};
  slots = reinterpret_cast<void**>(uintptr_t{0x40});
  EXPECT_EQ(ENC_ERR_WEIGHTS,
            enc_model_create(path.c_str(), missing, 2, &slots));
  EXPECT_EQ(nullptr, slots);
  EXPECT_TRUE(Contains(enc_last_error(), "'w'")) << enc_last_error();

  slots = reinterpret_cast<void**>(uintptr_t{0x40});
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_create(nullptr, descs, 2, &slots));
  EXPECT_EQ(nullptr, slots);
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_create(path.c_str(), descs, 2, nullptr));
  EXPECT_TRUE(Contains(enc_last_error(), "out_slots")) << enc_last_error();
  EXPECT_EQ(ENC_ERR_INPUT, enc_model_create(path.c_str(), descs, -2, &slots));
  EXPECT_EQ(nullptr, slots);
  unlink(path.c_str());
}

// ---- Input validation -------------------------------------------------------

class CheckInput : public ::testing::Test {
 protected:
  static constexpr int32_t kBatch = 2, kSeq = 3;
  enc_model_info tokens_info{8, 4, 10,
                             2};  // d_model, max_len, vocab, type_vocab
  enc_model_info floats_info{8, 4, 0, 0};
  std::vector<int32_t> ids{0, 9, 5, 1, 2, 3};
  std::vector<int32_t> types{0, 1, 1, 0, 0, 1};
  std::vector<int32_t> lengths{3, 0};
  std::vector<float> embeddings = std::vector<float>(kBatch * kSeq * 8, 0.5f);
  std::vector<float> out = std::vector<float>(kBatch * kSeq * 8, -7.0f);

  enc_input Tokens() const {
    return enc_input{kBatch,     kSeq,         nullptr,
                     ids.data(), types.data(), lengths.data()};
  }
  enc_input Floats() const {
    return enc_input{kBatch,  kSeq,    embeddings.data(),
                     nullptr, nullptr, nullptr};
  }
  // Expects ENC_ERR_INPUT with every needle in the message, and out untouched.
  void Fails(const enc_model_info* info, const enc_input* in,
             const std::vector<std::string>& needles,
             const float* o = nullptr) {
    const enc_status s = enc_check_input(info, in, o ? o : out.data());
    const std::string error = enc_last_error();
    EXPECT_EQ(ENC_ERR_INPUT, s) << error;
    for (const std::string& n : needles)
      EXPECT_TRUE(Contains(error, n)) << error;
    for (float v : out) ASSERT_EQ(-7.0f, v);
  }
};

TEST_F(CheckInput, ValidInputsPass) {
  enc_input in = Tokens();
  EXPECT_EQ(ENC_OK, enc_check_input(&tokens_info, &in, out.data()))
      << enc_last_error();
  in.token_types = nullptr;
  in.lengths = nullptr;
  EXPECT_EQ(ENC_OK, enc_check_input(&tokens_info, &in, out.data()))
      << enc_last_error();
  in.seq_len = 4;  // == max_len
  in.batch = 1;
  EXPECT_EQ(ENC_OK, enc_check_input(&tokens_info, &in, out.data()))
      << enc_last_error();
  in = Floats();
  EXPECT_EQ(ENC_OK, enc_check_input(&floats_info, &in, out.data()))
      << enc_last_error();
  in.tokens = ids.data();  // unused by a float model: ignored
  EXPECT_EQ(ENC_OK, enc_check_input(&floats_info, &in, out.data()))
      << enc_last_error();
  for (float v : out) EXPECT_EQ(-7.0f, v);
}

// enc_check_out_apart: a forward that computes its hidden states in out
// refuses an out that shares bytes with what it reads after it starts
// writing; the embeddings may be out itself.
TEST_F(CheckInput, OutApartFromWhatTheForwardReads) {
  const int64_t out_floats = kBatch * kSeq * 8;
  enc_input in = Floats();
  EXPECT_EQ(ENC_OK,
            enc_check_out_apart(&floats_info, &in, out.data(), out_floats));
  std::vector<float> both(2 * out_floats, 0.5f);
  in.embeddings = both.data();
  EXPECT_EQ(ENC_OK,
            enc_check_out_apart(&floats_info, &in, both.data(), out_floats))
      << "out == embeddings is an in-place forward";
  EXPECT_EQ(ENC_ERR_INPUT, enc_check_out_apart(&floats_info, &in,
                                               both.data() + 8, out_floats));
  EXPECT_TRUE(Contains(enc_last_error(), "embeddings")) << enc_last_error();
  EXPECT_EQ(ENC_OK, enc_check_out_apart(&floats_info, &in,
                                        both.data() + out_floats, out_floats))
      << "adjacent arrays share no byte";
  // A float model does not read tokens: a stray pointer into out is fine.
  in.tokens = reinterpret_cast<const int32_t*>(both.data() + out_floats);
  EXPECT_EQ(ENC_OK, enc_check_out_apart(&floats_info, &in,
                                        both.data() + out_floats, out_floats));

  // Token ids, types and lengths inside out: each is named.
  struct Case {
    const char* name;
    size_t at;  // offset in `arena`, in int32s
  };
  for (const Case& c :
       {Case{"tokens", 0}, Case{"token_types", 8}, Case{"lengths", 16}}) {
    std::vector<int32_t> arena(4 * out_floats, 0);
    enc_input t = Tokens();
    const std::string name = c.name;
    const int32_t* const inside = arena.data() + out_floats + c.at;
    std::copy(name == "lengths"  ? lengths.begin()
              : name == "tokens" ? ids.begin()
                                 : types.begin(),
              name == "lengths"  ? lengths.end()
              : name == "tokens" ? ids.end()
                                 : types.end(),
              arena.begin() + out_floats + c.at);
    (name == "tokens"        ? t.tokens
     : name == "token_types" ? t.token_types
                             : t.lengths) = inside;
    float* const over = reinterpret_cast<float*>(arena.data() + out_floats);
    EXPECT_EQ(ENC_ERR_INPUT,
              enc_check_out_apart(&tokens_info, &t, over, out_floats))
        << name;
    EXPECT_TRUE(Contains(enc_last_error(), "out overlaps " + name))
        << enc_last_error();
    // Ending one float before the array: no shared byte.
    float* const before =
        reinterpret_cast<float*>(arena.data() + c.at);  // [c.at, c.at + n)
    EXPECT_EQ(ENC_OK, enc_check_out_apart(&tokens_info, &t, before, out_floats))
        << name << ": " << enc_last_error();
  }
  // A token model does not read embeddings: a stray pointer into out is fine.
  in = Tokens();
  in.embeddings = out.data() + 4;
  EXPECT_EQ(ENC_OK,
            enc_check_out_apart(&tokens_info, &in, out.data(), out_floats));
}

TEST_F(CheckInput, NullPointersAndInfo) {
  enc_input in = Tokens();
  Fails(&tokens_info, nullptr, {"in"});
  EXPECT_EQ(ENC_ERR_INPUT, enc_check_input(&tokens_info, &in, nullptr));
  EXPECT_TRUE(Contains(enc_last_error(), "out")) << enc_last_error();
  Fails(nullptr, &in, {"info"});
  enc_model_info bad{0, 4, 10, 0};
  Fails(&bad, &in, {"model info"});
  bad = {8, 0, 10, 0};
  Fails(&bad, &in, {"model info"});
  bad = {8, 4, 0, 2};  // types without tokens
  Fails(&bad, &in, {"model info"});
  in.tokens = nullptr;
  Fails(&tokens_info, &in, {"tokens is NULL"});
  in = Floats();
  in.embeddings = nullptr;
  Fails(&floats_info, &in, {"embeddings is NULL"});
}

TEST_F(CheckInput, BatchAndSeqLen) {
  enc_input in = Tokens();
  in.batch = 0;
  Fails(&tokens_info, &in, {"batch", "0"});
  in.batch = -3;
  Fails(&tokens_info, &in, {"batch", "-3"});
  in = Tokens();
  in.seq_len = 0;
  Fails(&tokens_info, &in, {"seq_len", "0", "1..4"});
  in.seq_len = 5;
  Fails(&tokens_info, &in, {"seq_len", "5", "1..4"});
  in.seq_len = -1;
  Fails(&tokens_info, &in, {"seq_len", "-1"});
}

TEST_F(CheckInput, Overflow) {
  // 2^31-1 * 2^31-1 * 65536 elements do not fit an int64 byte count; nothing
  // is read (the pointers are too short for this batch).
  const enc_model_info big{65536, INT32_MAX, 0, 0};
  enc_input in{INT32_MAX, INT32_MAX, embeddings.data(),
               nullptr,   nullptr,   nullptr};
  Fails(&big, &in, {"overflow"});
}

TEST_F(CheckInput, Lengths) {
  enc_input in = Tokens();
  lengths = {3, 4};
  in.lengths = lengths.data();
  Fails(&tokens_info, &in, {"lengths[1]", "4", "0..3"});
  lengths = {-1, 2};
  in.lengths = lengths.data();
  Fails(&tokens_info, &in, {"lengths[0]", "-1", "0..3"});
}

TEST_F(CheckInput, EveryTokenIdIsChecked) {
  enc_input in = Tokens();
  // Last position of the last row, inside padding (lengths[1] == 0): checked
  // too.
  ids = {0, 9, 5, 1, 2, 10};
  in.tokens = ids.data();
  Fails(&tokens_info, &in,
        {"tokens", "batch row 1", "position 2", "10", "0..9"});
  ids = {0, 9, -1, 1, 2, 3};
  in.tokens = ids.data();
  Fails(&tokens_info, &in,
        {"tokens", "batch row 0", "position 2", "-1", "0..9"});
}

TEST_F(CheckInput, TokenTypes) {
  enc_input in = Tokens();
  types = {0, 1, 1, 0, 2, 0};
  in.token_types = types.data();
  Fails(&tokens_info, &in,
        {"token_types", "batch row 1", "position 1", "2", "0..1"});
  types = {0, 1, 1, 0, 0, -5};
  in.token_types = types.data();
  Fails(&tokens_info, &in,
        {"token_types", "batch row 1", "position 2", "-5", "0..1"});
  // A model without token types rejects them rather than ignoring them.
  types = {0, 0, 0, 0, 0, 0};
  in.token_types = types.data();
  const enc_model_info no_types{8, 4, 10, 0};
  Fails(&no_types, &in, {"token_types", "type_vocab 0"});
  in = Floats();
  in.token_types = types.data();
  Fails(&floats_info, &in, {"token_types"});
}

// ---- Workspace --------------------------------------------------------------

TEST(Workspace, GrowsAlignedAndIsReused) {
  void* a = enc_workspace(100);
  ASSERT_NE(nullptr, a);
  EXPECT_TRUE(Aligned(a));
  EXPECT_GE(enc_workspace_capacity(), 100);
  std::memset(a, 1, 100);
  EXPECT_EQ(a, enc_workspace(100));  // same size: no allocation
  EXPECT_EQ(a, enc_workspace(10));   // never shrinks
  EXPECT_EQ(a, enc_workspace(0));
  const int64_t cap = enc_workspace_capacity();
  void* b = enc_workspace(cap + (1 << 20));
  ASSERT_NE(nullptr, b);
  EXPECT_TRUE(Aligned(b));
  EXPECT_GE(enc_workspace_capacity(), cap + (1 << 20));
  std::memset(b, 2, cap + (1 << 20));
  EXPECT_EQ(b, enc_workspace(1000));
  EXPECT_EQ(b, enc_workspace(cap + (1 << 20)));
}

TEST(Workspace, FailuresReturnNull) {
  void* keep = enc_workspace(64);
  ASSERT_NE(nullptr, keep);
  EXPECT_EQ(nullptr, enc_workspace(-1));
  EXPECT_TRUE(Contains(enc_last_error(), "negative")) << enc_last_error();
  EXPECT_EQ(keep, enc_workspace(64));  // a bad request leaves the buffer alone
  EXPECT_EQ(nullptr, enc_workspace(INT64_MAX));
  EXPECT_TRUE(Contains(enc_last_error(), "enc_workspace")) << enc_last_error();
  void* again = enc_workspace(64);  // usable after a failed growth
  ASSERT_NE(nullptr, again);
  EXPECT_TRUE(Aligned(again));
}

TEST(Workspace, EachThreadHasItsOwn) {
  constexpr int kThreads = 4;
  std::atomic<int> ready{0};
  std::vector<void*> buffers(kThreads, nullptr);
  std::vector<bool> intact(kThreads, false);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      EXPECT_EQ(0, enc_workspace_capacity());  // a new thread starts empty
      unsigned char* p = static_cast<unsigned char*>(enc_workspace(4096));
      buffers[t] = p;
      if (p == nullptr) {
        ready++;
        return;
      }
      std::memset(p, t + 1, 4096);
      ready++;
      while (ready.load() < kThreads)
        std::this_thread::yield();  // all alive at once
      bool ok = enc_workspace(4096) == p;
      for (int i = 0; i < 4096; ++i) ok = ok && p[i] == t + 1;
      intact[t] = ok;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(nullptr, buffers[t]);
    EXPECT_TRUE(Aligned(buffers[t]));
    EXPECT_TRUE(intact[t]) << t;
    for (int u = 0; u < t; ++u) EXPECT_NE(buffers[u], buffers[t]);
  }
  EXPECT_NE(nullptr, enc_workspace(1));  // the main thread's own, unaffected
}

}  // namespace

// A checkpoint layout's tensors are found by their canonical names under the
// layout's names, prefix and gamma / beta; a missing one is listed under the
// layout's name with its canonical name.
TEST(ModelLoad, CheckpointLayoutPrefixesAndAlternates) {
  const std::vector<Tensor> tensors = {
      T("bert.embeddings.LayerNorm.gamma", "F32", {kCols}, 1),
      T("bert.embeddings.LayerNorm.beta", "F32", {kCols}, 2),
      T("encoder.layer.0.attention.self.query.weight", "F32", {kD, kCols}, 3),
      T("bert.pooler.dense.bias", "F32", {kCols}, 4),  // unused
  };
  const std::string path = WriteFile("layout", tensors);
  auto Bert = [](enc_weight_desc d) {
    d.checkpoint = ENC_CHECKPOINT_BERT;
    return d;
  };
  std::vector<enc_weight_desc> descs = {
      Bert(Vector({"embed.norm.weight"}, {kCols})),
      Bert(Vector({"embed.norm.bias"}, {kCols})),
      Bert(Matrix({"blocks.0.attn.q.weight"}, {kD}, kCols)),
  };
  std::vector<void*> slots(descs.size(), nullptr);
  ASSERT_EQ(ENC_OK, enc_model_load(path.c_str(), descs.data(), 3, slots.data()))
      << enc_last_error();
  for (int p = 0; p < 2; ++p) {
    const float* v = static_cast<const float*>(slots[p]);
    for (int64_t i = 0; i < kCols; ++i)
      EXPECT_EQ(tensors[p].values[i], v[i]) << p;
  }
  enc_model_free(descs.data(), 3, slots.data());

  descs.push_back(Bert(Matrix({"blocks.1.attn.k.weight"}, {kD}, kCols)));
  ExpectLoadFails(path, descs, ENC_ERR_WEIGHTS,
                  {"'encoder.layer.1.attention.self.key.weight' [5, 7] "
                   "(blocks.1.attn.k.weight)",
                   "is missing", "checkpoint = bert"});
  // In enc's own layout there are no alternates.
  ExpectLoadFails(path, {Vector({"embeddings.LayerNorm.weight"}, {kCols})},
                  ENC_ERR_WEIGHTS,
                  {"'embeddings.LayerNorm.weight'", "is missing"});
  // Nor does another layout's prefix count.
  enc_weight_desc roberta = Vector({"embed.norm.weight"}, {kCols});
  roberta.checkpoint = ENC_CHECKPOINT_ROBERTA;
  ExpectLoadFails(
      path, {roberta}, ENC_ERR_WEIGHTS,
      {"'embeddings.LayerNorm.weight'", "is missing", "checkpoint = roberta"});
  // A descriptor naming no layout, or a tensor its layout lacks, is the
  // compiler's bug.
  enc_weight_desc bad = Bert(Vector({"embed.norm.weight"}, {kCols}));
  bad.checkpoint = ENC_CHECKPOINT_COUNT;
  ExpectLoadFails(path, {bad}, ENC_ERR_INPUT, {"descriptor 0", "checkpoint"});
  ExpectLoadFails(path, {Bert(Vector({"final_norm.weight"}, {kCols}))},
                  ENC_ERR_INPUT,
                  {"descriptor 0",
                   "the bert layout has no tensor for 'final_norm.weight'"});
  unlink(path.c_str());
}

// y = x W^T of a packed slot against the float64 product with `w`'s rows.
void ExpectPackedRows(const void* slot, const std::vector<float>& w) {
  const int64_t rows = static_cast<int64_t>(w.size()) / kCols;
  const enc_packed_b* packed = static_cast<const enc_packed_b*>(slot);
  ASSERT_NE(nullptr, packed);
  EXPECT_EQ(rows, enc_gemm_packed_n(packed));
  EXPECT_EQ(kCols, enc_gemm_packed_k(packed));
  const int64_t m = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(m * kCols), y(m * rows, NAN);
  for (float& v : x) v = dist(rng);
  ASSERT_EQ(ENC_OK, enc_gemm(m, x.data(), kCols, packed, nullptr, ENC_ACT_NONE,
                             nullptr, 0, y.data(), rows))
      << enc_last_error();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < kCols; ++k)
        ref += double{x[i * kCols + k]} * w[j * kCols + k];
      EXPECT_NEAR(ref, y[i * rows + j], 1e-4 * std::max(1.0, std::fabs(ref)))
          << i << "," << j;
    }
  }
}

std::vector<float> Rows(const Tensor& t, int64_t first, int64_t count,
                        int64_t cols) {
  return std::vector<float>(t.values.begin() + first * cols,
                            t.values.begin() + (first + count) * cols);
}

// A row slice of a fused tensor (ModernBERT's Wqkv and Wi): each part of a
// slot resolves on its own, so that one slot may read several slices of one
// tensor (Q|K|V, or the gate and up of a packed gated layer) and another
// slot a single slice; F32 from the mapping, F16 converting the slice.
TEST(ModelLoad, RowSlicesOfFusedTensors) {
  constexpr int64_t kFF = 4;
  const std::vector<Tensor> tensors = {
      T("model.layers.0.attn.Wqkv.weight", "F32", {3 * kD, kCols}, 1),
      T("model.layers.0.attn.Wqkv.bias", "F16", {3 * kD}, 2),
      T("model.layers.0.mlp.Wi.weight", "F16", {2 * kFF, kCols}, 3),
  };
  const std::string path = WriteFile("slices", tensors);
  auto Modern = [](enc_weight_desc d) {
    d.checkpoint = ENC_CHECKPOINT_MODERNBERT;
    return d;
  };
  std::vector<enc_weight_desc> descs = {
      Modern(Matrix({"blocks.0.attn.q.weight", "blocks.0.attn.k.weight",
                     "blocks.0.attn.v.weight"},
                    {kD, kD, kD}, kCols)),
      Modern(Vector({"blocks.0.attn.k.bias"}, {kD})),
      Modern(Matrix({"blocks.0.ffn.gate.weight", "blocks.0.ffn.up.weight"},
                    {kFF, kFF}, kCols)),
      Modern(Matrix({"blocks.0.ffn.up.weight"}, {kFF}, kCols)),
      Modern(Matrix({"blocks.0.attn.v.weight"}, {kD}, kCols)),
  };
  const int32_t n = static_cast<int32_t>(descs.size());
  std::vector<void*> slots(descs.size(), nullptr);
  ASSERT_EQ(ENC_OK, enc_model_load(path.c_str(), descs.data(), n, slots.data()))
      << enc_last_error();
  ExpectPackedRows(slots[0], tensors[0].values);
  const float* k_bias = static_cast<const float*>(slots[1]);
  for (int64_t i = 0; i < kD; ++i)
    EXPECT_EQ(tensors[1].values[kD + i], k_bias[i]) << i;
  ExpectPackedRows(slots[2], tensors[2].values);
  ExpectPackedRows(slots[3], Rows(tensors[2], kFF, kFF, kCols));
  ExpectPackedRows(slots[4], Rows(tensors[0], 2 * kD, kD, kCols));
  enc_model_free(descs.data(), n, slots.data());

  // A fused tensor of the wrong shape is named with the shape it must have.
  const std::string short_path =
      WriteFile("slices_short",
                {T("layers.0.attn.Wqkv.weight", "F32", {2 * kD, kCols}, 1)});
  ExpectLoadFails(short_path, {descs[0]}, ENC_ERR_WEIGHTS,
                  {"tensor 'layers.0.attn.Wqkv.weight' has shape [10, 7], "
                   "expected [15, 7]"});
  unlink(short_path.c_str());
  // A missing fused tensor counts once, with the canonical names it holds.
  const std::string none_path = WriteFile(
      "slices_none",
      {T("model.layers.0.mlp.Wi.weight", "F32", {2 * kFF, kCols}, 3)});
  descs.push_back(Modern(Vector({"blocks.0.attn.q.bias"}, {kD})));
  ExpectLoadFails(
      none_path, descs, ENC_ERR_WEIGHTS,
      {"2 of the 3 tensors the model reads are missing: "
       "'layers.0.attn.Wqkv.weight' [15, 7] (blocks.0.attn.q.weight, "
       "blocks.0.attn.k.weight, blocks.0.attn.v.weight), "
       "'layers.0.attn.Wqkv.bias' [15] (blocks.0.attn.k.bias, "
       "blocks.0.attn.q.bias)",
       "checkpoint = modernbert"});
  unlink(none_path.c_str());
  unlink(path.c_str());
}
