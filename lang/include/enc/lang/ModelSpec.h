//===- ModelSpec.h - A resolved encoder, as the compiler sees it -*- C++
//-*-===//
//
// Every setting of Settings.def with inheritance applied, expressions
// evaluated, defaults filled in and every rule checked
// (docs/language.md#settings). Each setting remembers where its value came
// from so that the compiler can locate its ops in the .enc file.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_MODELSPEC_H
#define ENC_LANG_MODELSPEC_H

#include "enc/lang/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace enc {

// One enum class per choice set of Settings.def, numbered 0..N-1 in the
// table's order.
#define ENC_CHOICE_SET(Enum, Noun) enum class Enum {
#define ENC_CHOICE(Enum, Enumerator, Spelling) Enumerator,
#define ENC_CHOICE_SET_END(Enum)                                               \
  }                                                                            \
  ;
#include "enc/lang/Settings.def"

/// A name users write that a choice set does not have, and what it means.
struct ChoiceMeaning {
  const char *Spelling;
  const char *Explanation;
};

/// What a choice set is, without its enum type: Sema, the docs and
/// --emit=spec read choices through it.
struct ChoiceSetInfo {
  const char *Noun;
  llvm::ArrayRef<const char *> Spellings; ///< indexed by the enum's value
  llvm::ArrayRef<ChoiceMeaning> Meanings;
};

/// The choice set of enum E (specialised for every set of Settings.def).
template <typename E> struct ChoiceSet;
#define ENC_CHOICE_SET(Enum, NounText)                                         \
  template <> struct ChoiceSet<Enum> {                                         \
    static constexpr const char *Noun = NounText;                              \
    static constexpr const char *Spellings[] = {
#define ENC_CHOICE(Enum, Enumerator, Spelling) Spelling,
#define ENC_CHOICE_SET_END(Enum)                                               \
  }                                                                            \
  ;                                                                            \
  static const ChoiceSetInfo &info();                                          \
  }                                                                            \
  ;
#include "enc/lang/Settings.def"

/// The spelling of a choice, as written in .enc files: "gelu_tanh".
template <typename E> llvm::StringRef toString(E Value) {
  return ChoiceSet<E>::Spellings[static_cast<size_t>(Value)];
}

/// The choice spelled `Name` exactly, if any.
template <typename E> std::optional<E> parseChoice(llvm::StringRef Name) {
  for (size_t I = 0; I < std::size(ChoiceSet<E>::Spellings); ++I)
    if (Name == ChoiceSet<E>::Spellings[I])
      return static_cast<E>(I);
  return std::nullopt;
}

/// The type of a setting without choices.
struct NoChoices {};

/// Where a setting's value comes from.
struct SettingOrigin {
  enum Kind { Written, Inherited, Default } How = Default;
  SourceRange Range; ///< the value expression, or the encoder's name
  LineCol Loc;
};

struct ModelSpec {
  std::string Name;
  std::string Base; ///< empty when the encoder inherits nothing
  std::string File;
  SourceRange NameRange;
  LineCol Loc;

  // Settings.def's settings and scheme arguments, each in its Field.
#define ENC_SETTING_FIELD_Int(Field, Choices) int64_t Field = 0;
#define ENC_SETTING_FIELD_Float(Field, Choices) double Field = 0.0;
#define ENC_SETTING_FIELD_Bool(Field, Choices) bool Field = false;
#define ENC_SETTING_FIELD_Choice(Field, Choices) Choices Field = Choices();
#define ENC_SETTING_FIELD_String(Field, Choices) std::string Field;
#define ENC_SETTING(Key, Field, Kind, Choices, Default, Range, Rule, Doc)      \
  ENC_SETTING_FIELD_##Kind(Field, Choices)
#define ENC_SCHEME_ARG(Enum, Enumerator, Arg, Field, Kind, Choices, Default,   \
                       Range, Rule, Doc)                                       \
  ENC_SETTING_FIELD_##Kind(Field, Choices)
#include "enc/lang/Settings.def"
#undef ENC_SETTING_FIELD_Int
#undef ENC_SETTING_FIELD_Float
#undef ENC_SETTING_FIELD_Bool
#undef ENC_SETTING_FIELD_Choice
#undef ENC_SETTING_FIELD_String

  /// Where each setting's value comes from, in the order of allSettings().
  std::vector<SettingOrigin> Origins;
  /// The origin of the setting named `Key` (d_model, positional, ...).
  const SettingOrigin &origin(llvm::StringRef Key) const;
  /// Floats per output row (per sequence when pooled, else per token): a
  /// head's width, else output_dim when pooled, else d_model.
  int64_t outputWidth() const;
};

} // namespace enc

#endif // ENC_LANG_MODELSPEC_H
