// Runs one encoder compiled by encc on raw input files and writes its output.
// Built per model by run_case.py:
//   c++ -DENC_MODEL=name -include model.h harness.cpp model.o libenc_runtime.a
// or, for a shared library of `encc --emit=shared`, without ENC_MODEL:
//   c++ harness.cpp -ldl, run with --library lib.so --encoder name
// which finds the encoder in the library's table (enc/library.h).
// usage: harness --weights W --batch B --seq S --out-floats N --out OUT.bin
//                [--embeddings F] [--tokens F] [--types F] [--lengths F]
//                [--repeat K] [--library L --encoder NAME]
//                [--out-over-input K] [--lengths-in-out 1]
// --out-over-input K passes the embeddings' own array, K floats in, as `out`:
// K = 0 is an in-place forward, K > 0 an overlap the forward must refuse.
// --lengths-in-out 1 copies the lengths into out's last floats and passes
// that copy: an encoder that computes its hidden states in out refuses it.
// Exit 0 on success; on a runtime error prints the status and message and
// exits 3 (so that tests can tell it from a crash).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef ENC_MODEL
#define ENC_CAT2(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT2(a, b)
#define MODEL_LOAD ENC_CAT(ENC_MODEL, _load)
#define MODEL_FORWARD ENC_CAT(ENC_MODEL, _forward)
#define MODEL_FREE ENC_CAT(ENC_MODEL, _free)
#else
#include <dlfcn.h>

#include "enc/library.h"
#endif

namespace {
template <typename T>
std::vector<T> ReadFile(const std::string& path) {
  std::vector<T> data;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "harness: cannot open %s\n", path.c_str());
    std::exit(2);
  }
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  data.resize(size / sizeof(T));
  if (std::fread(data.data(), sizeof(T), data.size(), f) != data.size()) {
    std::fprintf(stderr, "harness: short read of %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(f);
  return data;
}
// The entry points the harness calls: the header's, or a library's.
struct Model {
  enc_status (*load)(const char*, void**);
  enc_status (*forward)(void*, const enc_input*, float*);
  void (*free)(void*);
  // The runtime's own: a library's errors are in its copy of the runtime.
  const char* (*last_error)();
  const char* (*status_name)(enc_status);
};

#ifdef ENC_MODEL
Model Entries(const std::string&, const std::string&) {
  Model m;
  m.load = [](const char* path, void** out) {
    ENC_MODEL* model = nullptr;
    enc_status s = MODEL_LOAD(path, &model);
    *out = model;
    return s;
  };
  m.forward = [](void* model, const enc_input* in, float* out) {
    return MODEL_FORWARD(static_cast<ENC_MODEL*>(model), in, out);
  };
  m.free = [](void* model) { MODEL_FREE(static_cast<ENC_MODEL*>(model)); };
  m.last_error = &enc_last_error;
  m.status_name = &enc_status_name;
  return m;
}
#else
Model Entries(const std::string& library, const std::string& encoder) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "harness: %s\n", dlerror());
    std::exit(2);
  }
  auto* list = reinterpret_cast<enc_library_encoders_fn*>(
      dlsym(handle, "enc_library_encoders"));
  if (list == nullptr) {
    std::fprintf(stderr, "harness: %s has no enc_library_encoders\n",
                 library.c_str());
    std::exit(2);
  }
  int32_t count = 0;
  const enc_encoder_info* infos = list(&count);
  for (int32_t i = 0; i < count; ++i) {
    if (infos[i].abi_version != ENC_LIBRARY_ABI_VERSION ||
        encoder != infos[i].name)
      continue;
    return Model{
        infos[i].load, infos[i].forward, infos[i].free,
        reinterpret_cast<const char* (*)()>(dlsym(handle, "enc_last_error")),
        reinterpret_cast<const char* (*)(enc_status)>(
            dlsym(handle, "enc_status_name"))};
  }
  std::fprintf(stderr, "harness: %s has no encoder %s\n", library.c_str(),
               encoder.c_str());
  std::exit(2);
}
#endif
}  // namespace

int main(int argc, char** argv) {
  std::string weights, out_path, emb, tok, types, lens, library, encoder;
  int batch = 0, seq = 0, repeat = 1;
  long out_over_input = -1;
  long out_floats = 0;
  bool lengths_in_out = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--weights")
      weights = v;
    else if (k == "--out")
      out_path = v;
    else if (k == "--embeddings")
      emb = v;
    else if (k == "--tokens")
      tok = v;
    else if (k == "--types")
      types = v;
    else if (k == "--lengths")
      lens = v;
    else if (k == "--batch")
      batch = std::atoi(v.c_str());
    else if (k == "--seq")
      seq = std::atoi(v.c_str());
    else if (k == "--out-floats")
      out_floats = std::atol(v.c_str());
    else if (k == "--repeat")
      repeat = std::atoi(v.c_str());
    else if (k == "--library")
      library = v;
    else if (k == "--encoder")
      encoder = v;
    else if (k == "--out-over-input")
      out_over_input = std::atol(v.c_str());
    else if (k == "--lengths-in-out")
      lengths_in_out = v == "1";
    else {
      std::fprintf(stderr, "harness: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::vector<float> e =
      emb.empty() ? std::vector<float>() : ReadFile<float>(emb);
  std::vector<int32_t> t =
      tok.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(tok);
  std::vector<int32_t> ty =
      types.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(types);
  std::vector<int32_t> l =
      lens.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(lens);

  const Model m = Entries(library, encoder);
  void* model = nullptr;
  if (enc_status s = m.load(weights.c_str(), &model)) {
    std::fprintf(stderr, "harness: load failed: %s: %s\n", m.status_name(s),
                 m.last_error());
    return 3;
  }
  enc_input in{};
  in.batch = batch;
  in.seq_len = seq;
  in.embeddings = e.empty() ? nullptr : e.data();
  in.tokens = t.empty() ? nullptr : t.data();
  in.token_types = ty.empty() ? nullptr : ty.data();
  in.lengths = l.empty() ? nullptr : l.data();
  std::vector<float> out(out_floats, -12345.0f);
  if (out_over_input >= 0) {
    e.resize(std::max(e.size(), out.size() + out_over_input));
    in.embeddings = e.data();
  }
  float* out_ptr = out_over_input >= 0 ? e.data() + out_over_input : out.data();
  if (lengths_in_out && !l.empty() && l.size() <= out.size()) {
    int32_t* inside =
        reinterpret_cast<int32_t*>(out_ptr + out.size() - l.size());
    std::memcpy(inside, l.data(), l.size() * sizeof(int32_t));
    in.lengths = inside;
  }
  for (int r = 0; r < repeat; ++r) {
    if (enc_status s = m.forward(model, &in, out_ptr)) {
      std::fprintf(stderr, "harness: forward failed: %s: %s\n",
                   m.status_name(s), m.last_error());
      m.free(model);
      return 3;
    }
  }
  m.free(model);
  if (out_over_input >= 0)
    std::copy(out_ptr, out_ptr + out.size(), out.begin());
  FILE* f = std::fopen(out_path.c_str(), "wb");
  if (!f ||
      std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) {
    std::fprintf(stderr, "harness: cannot write %s\n", out_path.c_str());
    return 2;
  }
  std::fclose(f);
  return 0;
}
