// BERT-base through the generated C++ wrapper: RAII, exceptions, std::vector.
// usage: bert_base_demo WEIGHTS.safetensors ID [ID...]
//   e.g. the ids of "[CLS] hello world [SEP]": 101 7592 2088 102
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bert_base.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s WEIGHTS.safetensors ID [ID...]\n", argv[0]);
    return 2;
  }
  std::vector<int32_t> ids, types;
  for (int i = 2; i < argc; ++i) ids.push_back(std::atoi(argv[i]));
  types.assign(ids.size(), 0);  // one segment
  try {
    enc::models::bert_base model(argv[1]);
    enc_input in{};
    in.batch = 1;
    in.seq_len = static_cast<int32_t>(ids.size());
    in.tokens = ids.data();
    in.token_types = types.data();
    std::vector<float> out = model.forward(in);
    std::printf("bert_base: %zu tokens -> [1, %zu, %d]\n", ids.size(),
                ids.size(), bert_base_D_MODEL);
    for (size_t i = 0; i < ids.size(); ++i) {
      const float* row = out.data() + i * bert_base_D_MODEL;
      std::printf("  %5d: %8.4f %8.4f %8.4f ...\n", ids[i], row[0], row[1],
                  row[2]);
    }
  } catch (const enc::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
