//===- Settings.cpp - The table of .enc settings --------------------------===//

#include "enc/lang/Settings.h"

#include "llvm/ADT/StringSet.h"

#include <iterator>
#include <vector>

using namespace enc;

namespace {
const char *const PositionalChoices[] = {"none",  "sinusoidal", "learned",
                                         "rope",  "alibi",      "relative"};
const char *const NormChoices[] = {"post", "pre"};
const char *const NormTypeChoices[] = {"layernorm", "rmsnorm"};
const char *const ActivationChoices[] = {"relu", "gelu", "gelu_tanh"};
const char *const PoolingChoices[] = {"none", "cls", "mean"};

const SettingInfo Table[] = {
    {"d_model", SettingKind::Int, nullptr, {}, true},
    {"heads", SettingKind::Int, nullptr, {}, true},
    {"d_ff", SettingKind::Int, nullptr, {}, false},
    {"blocks", SettingKind::Int, nullptr, {}, false},
    {"max_len", SettingKind::Int, nullptr, {}, false},
    {"vocab", SettingKind::Int, nullptr, {}, false},
    {"type_vocab", SettingKind::Int, nullptr, {}, false},
    {"positional", SettingKind::Choice, "positional scheme", PositionalChoices,
     false},
    {"norm", SettingKind::Choice, "norm layout", NormChoices, false},
    {"norm_type", SettingKind::Choice, "norm type", NormTypeChoices, false},
    {"eps", SettingKind::Float, nullptr, {}, false},
    {"activation", SettingKind::Choice, "activation", ActivationChoices, false},
    {"bias", SettingKind::Bool, nullptr, {}, false},
    {"embed_scale", SettingKind::Float, nullptr, {}, false},
    {"embed_norm", SettingKind::Bool, nullptr, {}, false},
    {"final_norm", SettingKind::Bool, nullptr, {}, false},
    {"pooling", SettingKind::Choice, "pooling", PoolingChoices, false},
};
} // namespace

static_assert(std::size(Table) == NumSettings, "NumSettings is stale");

llvm::ArrayRef<SettingInfo> enc::allSettings() { return Table; }

unsigned enc::indexOf(const SettingInfo &Info) { return &Info - Table; }

const SettingInfo *enc::findSetting(llvm::StringRef Name) {
  for (const SettingInfo &S : Table)
    if (Name == S.Name)
      return &S;
  return nullptr;
}

llvm::StringRef enc::closestMatch(llvm::StringRef Word,
                                  llvm::ArrayRef<llvm::StringRef> Candidates) {
  llvm::StringRef Best;
  // Accept about one edit per three characters, as clang's typo correction.
  unsigned BestDistance = (Word.size() + 2) / 3 + 1;
  for (llvm::StringRef C : Candidates) {
    unsigned D = Word.edit_distance(C, /*AllowReplacements=*/true,
                                    BestDistance);
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
      "constexpr", "false", "nullptr", "static_assert", "thread_local",
      "true", "typeof", "typeof_unqual", "_BitInt", "_Decimal32",
      "_Decimal64", "_Decimal128",
      // C++20 (and the alternative tokens)
      "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t",
      "char16_t", "char32_t", "class", "compl", "concept", "consteval",
      "constinit", "const_cast", "co_await", "co_return", "co_yield",
      "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator",
      "or", "or_eq", "private", "protected", "public", "reinterpret_cast",
      "requires", "static_cast", "template", "this", "throw", "try",
      "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq"};
  return Keywords.contains(Name);
}
