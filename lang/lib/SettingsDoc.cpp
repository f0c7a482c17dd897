//===- SettingsDoc.cpp - The settings table of docs/language.md -----------===//
//
// Rendered from Settings.def, so that the documentation cannot drift from
// what Sema checks: SettingsDocTest compares docs/language.md with it.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Settings.h"

#include "llvm/Support/raw_ostream.h"

using namespace enc;

namespace {
constexpr int64_t MaxInt32 = 2147483647;

std::string typeOf(const SettingInfo &Info) {
  switch (Info.Kind) {
  case SettingKind::Int:
    return "int";
  case SettingKind::Float:
    return "float";
  case SettingKind::Bool:
    return "bool";
  case SettingKind::String:
    return "string";
  case SettingKind::Choice:
    break;
  }
  // The values, each with its arguments and their defaults:
  // `rope(base = 10000.0, style = halves)`.
  std::string Out;
  for (unsigned V = 0; V < Info.Choices->Spellings.size(); ++V) {
    Out += V ? " / `" : "`";
    Out += Info.Choices->Spellings[V];
    std::vector<const SettingInfo *> Args = schemeArgs(*Info.Choices, V);
    for (size_t I = 0; I < Args.size(); ++I)
      Out += std::string(I ? ", " : "(") + Args[I]->Name + " = " +
             Args[I]->Default.Text;
    Out += Args.empty() ? "`" : ")`";
  }
  return Out;
}

std::string defaultOf(const SettingInfo &Info) {
  switch (Info.Default.How) {
  case DefaultSpec::Required:
    return "required";
  case DefaultSpec::Expression:
    return "`" + std::string(Info.Default.Text) + "`";
  case DefaultSpec::TrueWhen:
    return "`true` when " + std::string(Info.Default.WhenKey) + " = " +
           Info.Default.WhenValue + ", else `false`";
  }
  return "";
}

std::string ruleOf(const SettingInfo &Info) {
  std::string Out;
  const RangeSpec &R = Info.Range;
  switch (R.How) {
  case RangeSpec::Any:
    break;
  case RangeSpec::Positive:
    Out = "> 0";
    break;
  case RangeSpec::IntRange:
    // Sizes the runtime's 32-bit ABI carries are bounded by it; the docs say
    // so once rather than in every row.
    if (R.Hi == MaxInt32 || R.Hi == INT64_MAX)
      Out = "≥ " + std::to_string(R.Lo);
    else
      Out = std::to_string(R.Lo) + " ≤ " + Info.Name + " ≤ " +
            std::to_string(R.Hi);
    break;
  }
  if (*Info.Rule)
    Out += (Out.empty() ? "" : (R.How == RangeSpec::Positive ? ", " : "; ")) +
           std::string(Info.Rule);
  return Out;
}
} // namespace

void enc::printSettingsTable(llvm::raw_ostream &OS) {
  OS << "| key | type | default | rule | meaning |\n"
     << "|---|---|---|---|---|\n";
  for (const SettingInfo &Info : allSettings())
    OS << "| `" << Info.Name << "` | " << typeOf(Info) << " | "
       << defaultOf(Info) << " | " << ruleOf(Info) << " | " << Info.Doc
       << " |\n";
  OS << "\n| scheme | argument | type | default | rule | meaning |\n"
     << "|---|---|---|---|---|---|\n";
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind != SettingKind::Choice)
      continue;
    for (unsigned V = 0; V < Info.Choices->Spellings.size(); ++V)
      for (const SettingInfo *Arg : schemeArgs(*Info.Choices, V))
        OS << "| `" << Info.Choices->Spellings[V] << "` | `" << Arg->Name
           << "` | " << typeOf(*Arg) << " | " << defaultOf(*Arg) << " | "
           << ruleOf(*Arg) << " | " << Arg->Doc << " |\n";
  }
}
