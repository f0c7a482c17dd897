// The runtime leaves the caller's floating-point mode alone: a forward call
// on denormal inputs neither turns flush-to-zero / denormals-are-zero on
// (the default mode) nor off (a caller that set them). Only MXCSR's control
// bits are compared; its exception flags are sticky status, set by any
// arithmetic.
//
// Built against the generated header of `post_ln` (Inputs/numerics.enc).
// usage: mxcsr WEIGHTS
#include <cstdio>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>

namespace {
constexpr unsigned kControl = 0xFFC0;  // everything but the flags
constexpr unsigned kFtzDaz = 0x8000 | 0x0040;

// Runs one forward with MXCSR's control bits set to `control`; returns
// whether they were unchanged afterwards.
bool SameModeAfterForward(post_ln* model, unsigned control) {
  const int b = 2, s = 5;
  std::vector<float> x(b * s * post_ln_D_MODEL), out(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1e-39f * float(int(i % 7) - 3);
  enc_input in{};
  in.batch = b;
  in.seq_len = s;
  in.embeddings = x.data();
  const unsigned saved = _mm_getcsr();
  _mm_setcsr((saved & ~kControl) | control);
  const unsigned before = _mm_getcsr() & kControl;
  const enc_status st = post_ln_forward(model, &in, out.data());
  const unsigned after = _mm_getcsr() & kControl;
  _mm_setcsr(saved);
  std::printf("control 0x%04x: forward %s, control after 0x%04x\n", before,
              enc_status_name(st), after);
  return st == ENC_OK && before == after;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  post_ln* model = nullptr;
  if (post_ln_load(argv[1], &model) != ENC_OK) {
    std::printf("FAIL load: %s\n", enc_last_error());
    return 1;
  }
  const unsigned dflt = _mm_getcsr() & kControl;
  bool ok = SameModeAfterForward(model, dflt);
  ok = SameModeAfterForward(model, dflt | kFtzDaz) && ok;
  post_ln_free(model);
  std::printf("%s\n",
              ok ? "mode unchanged" : "FAIL: the runtime changed MXCSR");
  return ok ? 0 : 1;
}
#else
#error "mxcsr.test is for x86 only (REQUIRES: x86_64)"
#endif
