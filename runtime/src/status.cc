#include "src/status.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace enc {
namespace {
thread_local std::string last_error;
}  // namespace

enc_status Fail(enc_status status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[1024];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  last_error = buffer;
  return status;
}

}  // namespace enc

extern "C" const char* enc_last_error(void) { return enc::last_error.c_str(); }

extern "C" const char* enc_status_name(enc_status status) {
  switch (enc::EnumArg(status)) {
    case ENC_OK:
      return "ENC_OK";
    case ENC_ERR_IO:
      return "ENC_ERR_IO";
    case ENC_ERR_FORMAT:
      return "ENC_ERR_FORMAT";
    case ENC_ERR_WEIGHTS:
      return "ENC_ERR_WEIGHTS";
    case ENC_ERR_INPUT:
      return "ENC_ERR_INPUT";
    case ENC_ERR_NOMEM:
      return "ENC_ERR_NOMEM";
  }
  return "ENC_ERR_UNKNOWN";
}
