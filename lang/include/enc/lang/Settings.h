//===- Settings.h - The table of .enc settings ------------------*- C++ -*-===//
//
// Settings.def seen as data: what Sema checks and what the docs print. See
// docs/language.md#settings.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_SETTINGS_H
#define ENC_LANG_SETTINGS_H

#include "enc/lang/ExprEval.h"
#include "enc/lang/ModelSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace enc {

enum class SettingKind {
  Int,    ///< an integer expression
  Float,  ///< a numeric expression; integers are promoted
  Bool,   ///< true, false, or an expression of bool settings
  Choice, ///< one of a fixed set of names, possibly with named arguments
  String  ///< a string literal (a path, relative to the .enc file)
};

/// Every setting of Settings.def, in its order: `SettingId::d_model`.
enum class SettingId : unsigned {
#define ENC_SETTING(Key, ...) Key,
#include "enc/lang/Settings.def"
};

/// How many settings there are; per-setting data lives in arrays this long.
constexpr unsigned NumSettings = 0
#define ENC_SETTING(Key, ...) +1
#include "enc/lang/Settings.def"
    ;

/// How a setting that is not written gets its value.
struct DefaultSpec {
  enum Kind {
    Required,   ///< no default: an error
    Expression, ///< Text is a .enc expression (or a choice's spelling)
    TrueWhen    ///< true iff choice setting WhenKey is WhenValue
  } How = Required;
  const char *Text = nullptr;
  const char *WhenKey = nullptr;
  const char *WhenValue = nullptr;
};

/// The values a setting accepts beyond its kind.
struct RangeSpec {
  enum Kind {
    Any,
    IntRange, ///< Lo <= value <= Hi
    Positive  ///< a float > 0
  } How = Any;
  int64_t Lo = 0;
  int64_t Hi = 0;
  bool contains(int64_t V) const {
    return How != IntRange || (V >= Lo && V <= Hi);
  }
};

/// One row of ENC_SETTING, or of ENC_SCHEME_ARG (then Scheme is the value of
/// the choice set it belongs to).
struct SettingInfo {
  const char *Name;
  SettingKind Kind;
  const ChoiceSetInfo *Choices; ///< Choice only
  DefaultSpec Default;
  RangeSpec Range;
  const char *Rule;
  const char *Doc;
  /// Scheme arguments: the choice set and value they belong to.
  const ChoiceSetInfo *SchemeSet = nullptr;
  unsigned Scheme = 0;
};

/// Every setting, in the order of Settings.def.
llvm::ArrayRef<SettingInfo> allSettings();
const SettingInfo &settingInfo(SettingId Id);
/// The setting named `Name`, or null.
const SettingInfo *findSetting(llvm::StringRef Name);
SettingId idOf(const SettingInfo &Info);

/// The arguments value `Scheme` of choice set `Set` takes, in table order.
std::vector<const SettingInfo *> schemeArgs(const ChoiceSetInfo &Set,
                                            unsigned Scheme);

/// The value of setting or scheme argument `Info` in a resolved spec (a
/// choice as the Int index of its value).
EvalValue settingValue(const ModelSpec &Spec, const SettingInfo &Info);

/// The candidate closest to `Word` by edit distance, or "" when none is close
/// enough to be what the user meant. For keys and names, not for choices.
llvm::StringRef closestMatch(llvm::StringRef Word,
                             llvm::ArrayRef<llvm::StringRef> Candidates);
llvm::StringRef closestMatch(llvm::StringRef Word,
                             llvm::ArrayRef<const char *> Candidates);

/// The candidate that is `Word` spelled differently (case, '_' or '-'), or
/// "". A choice is suggested only this way: a name at a small edit distance
/// may be a different function (silu is not relu).
llvm::StringRef spellingVariant(llvm::StringRef Word,
                                llvm::ArrayRef<const char *> Candidates);

/// What `Word` means when it is a known name the set does not have, or null.
const char *meaningOf(const ChoiceSetInfo &Set, llvm::StringRef Word);

/// True for C and C++ keywords, which an encoder name (a C symbol prefix)
/// must not be.
bool isCOrCxxKeyword(llvm::StringRef Name);

/// The settings table of docs/language.md#settings, as Markdown.
void printSettingsTable(llvm::raw_ostream &OS);

} // namespace enc

#endif // ENC_LANG_SETTINGS_H
