// Per-thread error messages behind enc_last_error(), for the runtime's own use.
#ifndef ENC_RUNTIME_SRC_STATUS_H_
#define ENC_RUNTIME_SRC_STATUS_H_

#include <cstring>

#include "enc/runtime.h"

namespace enc {

// Records a printf-style message as this thread's last error and returns
// `status`, so that validation reads `return Fail(ENC_ERR_INPUT, "...", ...)`.
enc_status Fail(enc_status status, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// The integer a caller passed for an enum parameter of the C ABI. C allows
// any int there, but in C++ loading a value outside the enumerators' range is
// undefined (UBSan: -fsanitize=enum), so validation reads the bytes instead.
template <typename Enum>
int EnumArg(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_STATUS_H_
