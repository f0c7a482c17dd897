//===- Sema.cpp - Encoders resolved, and the file's inheritance ----------===//
//
// Table-driven: every setting's kind, default and range come from
// Settings.def. This file resolves one encoder in the table's order and a
// file's encoders in turn (inheritance, names); evaluation is SemaEval.cpp,
// rules SemaRules.cpp (EncoderResolver.h lists them).
//
//===----------------------------------------------------------------------===//

#include "EncoderResolver.h"

#include "enc/lang/Sema.h"

#include "enc/lang/ExprEval.h"
#include "enc/lang/Families.h"
#include "enc/lang/NumberFormat.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Settings.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <type_traits>

using namespace enc;
using namespace enc::sema;
namespace x3 = boost::spirit::x3;

std::optional<ModelSpec> EncoderResolver::resolve() {
  unsigned ErrorsBefore = Diags.errorCount();
  ModelSpec Spec;
  Spec.Name = Enc.Name.Name;
  if (Enc.Base)
    Spec.Base = Enc.Base->Name;
  Spec.File = Diags.file().name().str();
  Spec.NameRange = nameRange();
  Spec.Loc = Diags.file().lineCol(Enc.Name.Begin);

  // Evaluate every key, in table order; references pull others in early.
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind == SettingKind::Choice)
      choiceOf(idOf(Info));
    else
      valueOf(idOf(Info));
  }

  // Every scheme's arguments start at their defaults; the chosen scheme's
  // then take what is written.
  for (const SettingInfo &Info : allSettings())
    if (Info.Kind == SettingKind::Choice)
      for (unsigned V = 0; V < Info.Choices->Spellings.size(); ++V)
        if (auto Defaults = resolveArgs(Info, Choice{V, nullptr}))
          storeArgs(Spec, *Info.Choices, V, *Defaults);

  // Ranges and rules: the numbers first, then the choices and their
  // arguments.
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind == SettingKind::Choice)
      continue;
    RangeOk[indexOf(Info)] = checkRange(Info);
    checkRules(idOf(Info), RangeOk[indexOf(Info)]);
  }
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind != SettingKind::Choice)
      continue;
    SettingId Id = idOf(Info);
    EntryStack.push_back(entry(Id));
    if (std::optional<Choice> C = choiceOf(Id)) {
      if (std::optional<ArgValues> Args = resolveArgs(Info, *C)) {
        storeArgs(Spec, *Info.Choices, C->Value, *Args);
        checkChoiceRules(Id, *C, Spec);
      }
    }
    EntryStack.pop_back();
  }

  if (Failed || Diags.errorCount() != ErrorsBefore)
    return std::nullopt;

  auto valueFor = [&](SettingId Id) -> EvalValue {
    if (settingInfo(Id).Kind == SettingKind::Choice)
      return EvalValue::ofInt(Choices[indexOf(Id)]->Value);
    return Values[indexOf(Id)].Value;
  };
#define ENC_SETTING(Key, Field, ...)                                           \
  assign(Spec.Field, valueFor(SettingId::Key));
#include "enc/lang/Settings.def"

  Spec.Origins.reserve(NumSettings);
  for (const SettingInfo &Info : allSettings()) {
    SettingOrigin O;
    if (const Entry *E = entry(idOf(Info))) {
      O.How =
          E->Owner == &Enc ? SettingOrigin::Written : SettingOrigin::Inherited;
    }
    O.Range = rangeOfKey(idOf(Info));
    O.Loc = Diags.file().lineCol(O.Range.Begin);
    Spec.Origins.push_back(std::move(O));
  }
  return Spec;
}

namespace {
/// Resolves a file's encoders in order, each against those before it.
class FileResolver {
public:
  FileResolver(const ast::File &File, DiagnosticEngine &Diags)
      : File(File), Diags(Diags), Maps(File.Encoders.size()),
        Broken(File.Encoders.size(), false) {}

  std::vector<ModelSpec> resolve() {
    std::vector<ModelSpec> Result;
    Result.reserve(File.Encoders.size());
    for (size_t Index = 0; Index < File.Encoders.size(); ++Index) {
      if (Diags.limitReached())
        break;
      const ast::Encoder &Enc = File.Encoders[Index];
      unsigned ErrorsBefore = Diags.errorCount();
      checkName(Index);
      bool BaseFailed = inherit(Index);
      addOwnSettings(Index);
      EncoderResolver Resolver(Enc, Maps[Index], Diags,
                               BaseFailed || Enc.Incomplete);
      std::optional<ModelSpec> Spec = Resolver.resolve();
      Broken[Index] = !Spec || Diags.errorCount() != ErrorsBefore;
      if (!Broken[Index])
        Result.push_back(std::move(*Spec));
    }
    return Result;
  }

private:
  /// A C symbol prefix, unique in the file.
  void checkName(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    const std::string &Name = Enc.Name.Name;
    SourceRange NameR{Enc.Name.Begin, Enc.Name.End};
    if (isCOrCxxKeyword(Name))
      Diags.error(NameR, "encoder name '" + Name +
                             "' is a C or C++ keyword; it must be usable as "
                             "a C symbol prefix");
    else if (llvm::StringRef(Name).starts_with("enc_") || Name == "enc")
      Diags.error(NameR, "encoder name '" + Name +
                             "' is reserved: names beginning with 'enc_' "
                             "belong to the runtime's C ABI");
    auto [It, Inserted] = FirstByName.try_emplace(Name, Index);
    if (!Inserted) {
      const ast::Encoder &Prev = File.Encoders[It->second];
      Diags.error(NameR, "redefinition of encoder '" + Name + "'");
      Diags.note({Prev.Name.Begin, Prev.Name.End},
                 "previous definition is here");
    }
  }

  /// Starts from the base's settings, as written. True when the base is
  /// missing or had errors (reported there).
  bool inherit(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    if (!Enc.Base)
      return false;
    const std::string &Name = Enc.Name.Name;
    const std::string &BaseName = Enc.Base->Name;
    SourceRange BaseR{Enc.Base->Begin, Enc.Base->End};
    auto Found = FirstByName.find(BaseName);
    if (BaseName == Name) {
      Diags.error(BaseR, "encoder '" + Name + "' cannot inherit from itself");
      return true;
    }
    if (Found != FirstByName.end() && Found->second < Index) {
      Maps[Index] = Maps[Found->second];
      return Broken[Found->second];
    }
    // Declared later in the file?
    for (size_t J = Index + 1; J < File.Encoders.size(); ++J) {
      const ast::Encoder &Later = File.Encoders[J];
      if (Later.Name.Name != BaseName)
        continue;
      Diags.error(BaseR, "base encoder '" + BaseName +
                             "' must be declared before '" + Name + "'");
      Diags.note({Later.Name.Begin, Later.Name.End},
                 "'" + BaseName + "' is declared here");
      return true;
    }
    std::vector<llvm::StringRef> Names;
    for (size_t J = 0; J < Index; ++J)
      Names.push_back(File.Encoders[J].Name.Name);
    llvm::StringRef Near = closestMatch(BaseName, Names);
    if (!Near.empty())
      Diags.error(BaseR, "unknown base encoder '" + BaseName +
                             "'; did you mean '" + Near + "'?");
    else
      Diags.error(BaseR, "unknown base encoder '" + BaseName + "'");
    return true;
  }

  /// This encoder's own settings override inherited ones.
  void addOwnSettings(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    std::array<const ast::Setting *, NumSettings> Own{};
    for (const ast::Setting &S : Enc.Settings) {
      SourceRange KeyR{S.Key.Begin, S.Key.End};
      const SettingInfo *Info = findSetting(S.Key.Name);
      if (!Info) {
        std::vector<llvm::StringRef> Names;
        for (const SettingInfo &I : allSettings())
          Names.push_back(I.Name);
        llvm::StringRef Near = closestMatch(S.Key.Name, Names);
        if (!Near.empty())
          Diags.error(KeyR, "unknown setting '" + S.Key.Name +
                                "'; did you mean '" + Near + "'?");
        else
          Diags.error(KeyR, "unknown setting '" + S.Key.Name + "'");
        continue;
      }
      unsigned Key = indexOf(*Info);
      if (const ast::Setting *Prev = Own[Key]) {
        Diags.error(KeyR, "duplicate setting '" + S.Key.Name +
                              "' in encoder '" + Enc.Name.Name + "'");
        Diags.note({Prev->Key.Begin, Prev->Key.End},
                   "previous definition is here");
        continue;
      }
      Own[Key] = &S;
      Maps[Index][Key] = Entry{&S, &Enc};
    }
  }

  const ast::File &File;
  DiagnosticEngine &Diags;
  llvm::StringMap<size_t> FirstByName; // encoder name -> index, so far
  std::vector<SettingMap> Maps;
  std::vector<bool> Broken;
};
} // namespace

std::vector<ModelSpec> enc::resolveFile(const ast::File &File,
                                        DiagnosticEngine &Diags) {
  return FileResolver(File, Diags).resolve();
}

int64_t ModelSpec::outputWidth() const {
  switch (Head) {
  case HeadKind::Classifier:
    return HeadLabels;
  case HeadKind::Colbert:
    return HeadColbertDim;
  case HeadKind::Mlm:
  case HeadKind::Splade:
    return Vocab;
  case HeadKind::Dense:
    return HeadDenseDim;
  case HeadKind::None:
    return Pool == Pooling::None ? DModel : OutputDim;
  }
  return DModel;
}

const SettingOrigin &ModelSpec::origin(llvm::StringRef Key) const {
  const SettingInfo *Info = findSetting(Key);
  assert(Info && "origin of an unknown setting");
  return Origins[indexOf(*Info)];
}
