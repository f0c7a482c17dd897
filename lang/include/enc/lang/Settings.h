//===- Settings.h - The table of .enc settings (spec section 4) -*- C++ -*-===//
#ifndef ENC_LANG_SETTINGS_H
#define ENC_LANG_SETTINGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace enc {

enum class SettingKind {
  Int,   ///< an integer expression
  Float, ///< a numeric expression; integers are promoted
  Bool,  ///< true, false, or an expression of bool settings
  Choice ///< one of a fixed set of names, possibly with named arguments
};

struct SettingInfo {
  const char *Name;
  SettingKind Kind;
  /// For Choice settings: what the user is choosing ("positional scheme").
  const char *Noun;
  llvm::ArrayRef<const char *> Choices;
  bool Required;
};

/// How many settings there are; per-setting data lives in arrays this long.
constexpr unsigned NumSettings = 17;

/// Every setting, in the order of spec section 4.
llvm::ArrayRef<SettingInfo> allSettings();
/// The setting named `Name`, or null.
const SettingInfo *findSetting(llvm::StringRef Name);
/// The position of `Info` in allSettings().
unsigned indexOf(const SettingInfo &Info);

/// The candidate closest to `Word` by edit distance, or "" when none is close
/// enough to be what the user meant.
llvm::StringRef closestMatch(llvm::StringRef Word,
                             llvm::ArrayRef<llvm::StringRef> Candidates);
llvm::StringRef closestMatch(llvm::StringRef Word,
                             llvm::ArrayRef<const char *> Candidates);

/// True for C and C++ keywords, which an encoder name (a C symbol prefix)
/// must not be.
bool isCOrCxxKeyword(llvm::StringRef Name);

} // namespace enc

#endif // ENC_LANG_SETTINGS_H
