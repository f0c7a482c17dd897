// Runs one encoder compiled by encc on raw input files and writes its output.
// Built per model by run_case.py:
//   c++ -DENC_MODEL=name -include model.h harness.cpp model.o libenc_runtime.a
// usage: harness --weights W --batch B --seq S --out-floats N --out OUT.bin
//                [--embeddings F] [--tokens F] [--types F] [--lengths F]
//                [--repeat K]
// Exit 0 on success; on a runtime error prints the status and message and
// exits 3 (so that tests can tell it from a crash).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define ENC_CAT2(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT2(a, b)
#define MODEL_LOAD ENC_CAT(ENC_MODEL, _load)
#define MODEL_FORWARD ENC_CAT(ENC_MODEL, _forward)
#define MODEL_FREE ENC_CAT(ENC_MODEL, _free)

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
}  // namespace

int main(int argc, char** argv) {
  std::string weights, out_path, emb, tok, types, lens;
  int batch = 0, seq = 0, repeat = 1;
  long out_floats = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--weights") weights = v;
    else if (k == "--out") out_path = v;
    else if (k == "--embeddings") emb = v;
    else if (k == "--tokens") tok = v;
    else if (k == "--types") types = v;
    else if (k == "--lengths") lens = v;
    else if (k == "--batch") batch = std::atoi(v.c_str());
    else if (k == "--seq") seq = std::atoi(v.c_str());
    else if (k == "--out-floats") out_floats = std::atol(v.c_str());
    else if (k == "--repeat") repeat = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "harness: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::vector<float> e = emb.empty() ? std::vector<float>() : ReadFile<float>(emb);
  std::vector<int32_t> t = tok.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(tok);
  std::vector<int32_t> ty = types.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(types);
  std::vector<int32_t> l = lens.empty() ? std::vector<int32_t>() : ReadFile<int32_t>(lens);

  ENC_MODEL* model = nullptr;
  if (enc_status s = MODEL_LOAD(weights.c_str(), &model)) {
    std::fprintf(stderr, "harness: load failed: %s: %s\n", enc_status_name(s),
                 enc_last_error());
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
  for (int r = 0; r < repeat; ++r) {
    if (enc_status s = MODEL_FORWARD(model, &in, out.data())) {
      std::fprintf(stderr, "harness: forward failed: %s: %s\n",
                   enc_status_name(s), enc_last_error());
      MODEL_FREE(model);
      return 3;
    }
  }
  MODEL_FREE(model);
  FILE* f = std::fopen(out_path.c_str(), "wb");
  if (!f || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) {
    std::fprintf(stderr, "harness: cannot write %s\n", out_path.c_str());
    return 2;
  }
  std::fclose(f);
  return 0;
}
