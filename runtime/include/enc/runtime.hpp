// C++ companion of enc/runtime.h: errors as exceptions, for the header-only
// wrappers that encc generates.
#ifndef ENC_RUNTIME_HPP_
#define ENC_RUNTIME_HPP_

#include <stdexcept>
#include <string>

#include "enc/runtime.h"

namespace enc {

/// A failed runtime call: the status and enc_last_error()'s message.
class Error : public std::runtime_error {
 public:
  Error(enc_status status, const std::string& message)
      : std::runtime_error(std::string(enc_status_name(status)) + ": " +
                           message),
        status_(status) {}
  enc_status status() const { return status_; }

 private:
  enc_status status_;
};

/// Throws Error unless status is ENC_OK.
inline void check(enc_status status) {
  if (status != ENC_OK) throw Error(status, enc_last_error());
}

}  // namespace enc

#endif  // ENC_RUNTIME_HPP_
