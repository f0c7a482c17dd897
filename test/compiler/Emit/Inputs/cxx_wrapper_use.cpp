// Calls every member of a generated C++ wrapper, so that a member that does
// not compile, or whose signature drifts from the C entry point, fails.
#include "tiny.h"

int main() {
  enc::models::tiny m("weights.safetensors");
  enc_input in{};
  std::vector<float> out = m.forward(in);
  m.forward(in, out.data());
  std::vector<float> probs = m.forward_attention(in);
  m.forward_attention(in, nullptr, probs.data());
  size_t n = enc::models::tiny::output_size(1, 2) +
             enc::models::tiny::attention_size(1, 2);
  int64_t ws = enc::models::tiny::workspace_bytes(1, 2);
  enc::models::tiny::pack("weights.safetensors", "weights.encw");
  enc::models::tiny moved(std::move(m));
  return static_cast<int>(n) + static_cast<int>(ws) + (moved.get() != nullptr);
}
