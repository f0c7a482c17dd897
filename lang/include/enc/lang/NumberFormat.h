//===- NumberFormat.h - Print numbers as the user would write them -*- C++
//-*-===//
#ifndef ENC_LANG_NUMBERFORMAT_H
#define ENC_LANG_NUMBERFORMAT_H

#include <string>

namespace enc {

/// The shortest decimal that reads back as `Value`, always marked as a float
/// ("10000.0", "1e-12", "0.5"), as the .enc language and JSON spell them.
std::string formatFloat(double Value);

} // namespace enc

#endif // ENC_LANG_NUMBERFORMAT_H
