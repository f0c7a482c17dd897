//===- Settings.cpp - The table of .enc settings --------------------------===//

#include "enc/lang/Settings.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"

#include <iterator>
#include <type_traits>
#include <vector>

using namespace enc;

// The known names of each choice set that mean something else.
#define ENC_CHOICE_SET(Enum, Noun)                                             \
  static const ChoiceMeaning Enum##Meanings[] = {{nullptr, nullptr},
#define ENC_CHOICE_MEANS(Enum, Spelling, Explanation) {Spelling, Explanation},
#define ENC_CHOICE_SET_END(Enum)                                               \
  }                                                                            \
  ;
#include "enc/lang/Settings.def"

#define ENC_CHOICE_SET(Enum, Noun)                                             \
  const ChoiceSetInfo &ChoiceSet<Enum>::info() {                               \
    static const ChoiceSetInfo Info{                                           \
        Noun, Spellings, llvm::ArrayRef(Enum##Meanings).drop_front()};         \
    return Info;                                                               \
  }
#include "enc/lang/Settings.def"

namespace {
#define ENC_REQUIRED                                                           \
  DefaultSpec { DefaultSpec::Required, nullptr, nullptr, nullptr }
#define ENC_DEFAULT(Text)                                                      \
  DefaultSpec { DefaultSpec::Expression, Text, nullptr, nullptr }
#define ENC_TRUE_WHEN(Key, Value)                                              \
  DefaultSpec { DefaultSpec::TrueWhen, nullptr, #Key, Value }
#define ENC_ANY RangeSpec{RangeSpec::Any, 0, 0}
#define ENC_INT_RANGE(Lo, Hi)                                                  \
  RangeSpec { RangeSpec::IntRange, Lo, Hi }
#define ENC_AT_LEAST(Lo)                                                       \
  RangeSpec { RangeSpec::IntRange, Lo, INT64_MAX }
#define ENC_POSITIVE RangeSpec{RangeSpec::Positive, 0, 0}

template <typename E> const ChoiceSetInfo *choicesOf() {
  return &ChoiceSet<E>::info();
}
template <> const ChoiceSetInfo *choicesOf<NoChoices>() { return nullptr; }

const std::vector<SettingInfo> &table() {
  static const std::vector<SettingInfo> Table = {
#define ENC_SETTING(Key, Field, Kind, Choices, Default, Range, Rule, Doc)      \
  SettingInfo{#Key,                                                            \
              SettingKind::Kind,                                               \
              choicesOf<Choices>(),                                            \
              Default,                                                         \
              Range,                                                           \
              Rule,                                                            \
              Doc},
#include "enc/lang/Settings.def"
  };
  return Table;
}

const std::vector<SettingInfo> &argTable() {
  static const std::vector<SettingInfo> Table = {
#define ENC_SCHEME_ARG(Enum, Enumerator, Arg, Field, Kind, Choices, Default,   \
                       Range, Rule, Doc)                                       \
  SettingInfo{#Arg,                                                            \
              SettingKind::Kind,                                               \
              choicesOf<Choices>(),                                            \
              Default,                                                         \
              Range,                                                           \
              Rule,                                                            \
              Doc,                                                             \
              choicesOf<Enum>(),                                               \
              static_cast<unsigned>(Enum::Enumerator)},
#include "enc/lang/Settings.def"
  };
  return Table;
}
} // namespace

llvm::ArrayRef<SettingInfo> enc::allSettings() { return table(); }

const SettingInfo &enc::settingInfo(SettingId Id) {
  return table()[static_cast<unsigned>(Id)];
}

SettingId enc::idOf(const SettingInfo &Info) {
  return static_cast<SettingId>(&Info - table().data());
}

const SettingInfo *enc::findSetting(llvm::StringRef Name) {
  for (const SettingInfo &S : table())
    if (Name == S.Name)
      return &S;
  return nullptr;
}

std::vector<const SettingInfo *> enc::schemeArgs(const ChoiceSetInfo &Set,
                                                 unsigned Scheme) {
  std::vector<const SettingInfo *> Args;
  for (const SettingInfo &A : argTable())
    if (A.SchemeSet == &Set && A.Scheme == Scheme)
      Args.push_back(&A);
  return Args;
}

namespace {
template <typename T> EvalValue valueOfField(const T &Field) {
  if constexpr (std::is_same_v<T, int64_t>)
    return EvalValue::ofInt(Field);
  else if constexpr (std::is_same_v<T, double>)
    return EvalValue::ofFloat(Field);
  else if constexpr (std::is_same_v<T, bool>)
    return EvalValue::ofBool(Field);
  else if constexpr (std::is_same_v<T, std::string>)
    return EvalValue::ofString(Field);
  else
    return EvalValue::ofInt(static_cast<int64_t>(Field));
}
} // namespace

EvalValue enc::settingValue(const ModelSpec &Spec, const SettingInfo &Info) {
  llvm::StringRef Name = Info.Name;
  if (!Info.SchemeSet) {
#define ENC_SETTING(Key, Field, ...)                                           \
  if (Name == #Key)                                                            \
    return valueOfField(Spec.Field);
#include "enc/lang/Settings.def"
  }
#define ENC_SCHEME_ARG(Enum, Enumerator, Arg, Field, ...)                      \
  if (Info.SchemeSet == &ChoiceSet<Enum>::info() &&                            \
      Info.Scheme == static_cast<unsigned>(Enum::Enumerator) && Name == #Arg)  \
    return valueOfField(Spec.Field);
#include "enc/lang/Settings.def"
  llvm_unreachable("a setting that is not in Settings.def");
}

llvm::StringRef enc::closestMatch(llvm::StringRef Word,
                                  llvm::ArrayRef<llvm::StringRef> Candidates) {
  llvm::StringRef Best;
  // Accept about one edit per three characters, as clang's typo correction.
  unsigned BestDistance = (Word.size() + 2) / 3 + 1;
  for (llvm::StringRef C : Candidates) {
    unsigned D =
        Word.edit_distance(C, /*AllowReplacements=*/true, BestDistance);
    if (D < BestDistance) {
      BestDistance = D;
      Best = C;
    }
  }
  return Best;
}

llvm::StringRef enc::closestMatch(llvm::StringRef Word,
                                  llvm::ArrayRef<const char *> Candidates) {
  std::vector<llvm::StringRef> Refs(Candidates.begin(), Candidates.end());
  return closestMatch(Word, Refs);
}

namespace {
/// The letters and digits of a name, lower-cased: its spelling variants
/// (`GELU_Tanh`, `gelutanh`, `gelu-tanh`) all fold to the same key.
std::string foldSpelling(llvm::StringRef Name) {
  std::string Key;
  for (char C : Name)
    if (C != '_' && C != '-')
      Key.push_back(llvm::toLower(C));
  return Key;
}
} // namespace

llvm::StringRef enc::spellingVariant(llvm::StringRef Word,
                                     llvm::ArrayRef<const char *> Candidates) {
  std::string Key = foldSpelling(Word);
  for (const char *C : Candidates)
    if (foldSpelling(C) == Key)
      return C;
  return "";
}

const char *enc::meaningOf(const ChoiceSetInfo &Set, llvm::StringRef Word) {
  for (const ChoiceMeaning &M : Set.Meanings)
    if (foldSpelling(M.Spelling) == foldSpelling(Word))
      return M.Explanation;
  return nullptr;
}

bool enc::isCOrCxxKeyword(llvm::StringRef Name) {
  static const llvm::StringSet<> Keywords = {
      // C17 and C23
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof",
      "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
      "_Static_assert", "_Thread_local", "alignas", "alignof", "bool",
      "constexpr", "false", "nullptr", "static_assert", "thread_local", "true",
      "typeof", "typeof_unqual", "_BitInt", "_Decimal32", "_Decimal64",
      "_Decimal128",
      // C++20 (and the alternative tokens)
      "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "consteval", "constinit",
      "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
      "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace",
      "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq", "private",
      "protected", "public", "reinterpret_cast", "requires", "static_cast",
      "template", "this", "throw", "try", "typeid", "typename", "using",
      "virtual", "wchar_t", "xor", "xor_eq"};
  return Keywords.contains(Name);
}
