//===- NumberFormat.cpp ---------------------------------------------------===//

#include "enc/lang/NumberFormat.h"

#include <charconv>
#include <cmath>

std::string enc::formatFloat(double Value) {
  if (std::isnan(Value))
    return "nan";
  if (std::isinf(Value))
    return Value < 0 ? "-inf" : "inf";
  char Buffer[512];
  double Magnitude = std::fabs(Value);
  bool Fixed = Magnitude == 0 || (Magnitude >= 1e-4 && Magnitude < 1e16);
  auto [End, Ec] = std::to_chars(Buffer, Buffer + sizeof(Buffer), Value,
                                 Fixed ? std::chars_format::fixed
                                       : std::chars_format::scientific);
  std::string Text(Buffer, End);
  size_t E = Text.find('e');
  if (E != std::string::npos) {
    // "1e-05" -> "1e-5", "5e+20" -> "5e20"
    std::string Mantissa = Text.substr(0, E), Exponent = Text.substr(E + 1);
    bool Negative = Exponent[0] == '-';
    size_t Digits = Exponent.find_first_not_of("+-0");
    Text = Mantissa + "e" + (Negative ? "-" : "") +
           (Digits == std::string::npos ? "0" : Exponent.substr(Digits));
  } else if (Text.find('.') == std::string::npos) {
    Text += ".0";
  }
  return Text;
}
