// Runs the seed toy through the installed package's generated C++ wrapper.
// usage: user WEIGHTS.safetensors TOKENS.bin
#include <cstdio>
#include <fstream>
#include <vector>

#include "seed_toy.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::vector<float> tokens(5 * seed_toy_D_MODEL);
  std::ifstream(argv[2], std::ios::binary)
      .read(reinterpret_cast<char*>(tokens.data()),
            tokens.size() * sizeof(float));
  try {
    enc::models::seed_toy model(argv[1]);
    enc_input in{};
    in.batch = 1;
    in.seq_len = 5;
    in.embeddings = tokens.data();
    std::vector<float> out = model.forward(in);
    std::printf("installed package: %zu outputs, row 0 starts %.3f\n",
                out.size(), out[0]);
    in.seq_len = seed_toy_MAX_LEN + 1;  // too long: an exception, not a crash
    model.forward(in);
  } catch (const enc::Error& e) {
    std::printf("enc::Error %d: %s\n", static_cast<int>(e.status()), e.what());
    return 0;
  }
  return 1;
}
