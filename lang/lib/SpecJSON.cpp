//===- SpecJSON.cpp - The resolved settings as JSON -----------------------===//
//
// Floats print as the shortest decimal that reads back exactly (1e-12, not
// 9.9999999999999998e-13), which llvm::json does not do.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/ExprEval.h"
#include "enc/lang/NumberFormat.h"
#include "enc/lang/Printers.h"
#include "enc/lang/Settings.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace enc;

namespace {
void quoted(llvm::raw_ostream &OS, llvm::StringRef S) {
  OS << '"';
  for (char C : S) {
    if (C == '"' || C == '\\')
      OS << '\\' << C;
    else if (static_cast<unsigned char>(C) < 0x20)
      OS << llvm::format("\\u%04x", C);
    else
      OS << C;
  }
  OS << '"';
}

class ObjectWriter {
public:
  ObjectWriter(llvm::raw_ostream &OS, unsigned Indent)
      : OS(OS), Indent(Indent) {
    OS << "{";
  }
  ~ObjectWriter() {
    OS << '\n';
    OS.indent(Indent) << "}";
  }
  llvm::raw_ostream &key(llvm::StringRef K) {
    OS << (First ? "\n" : ",\n");
    First = false;
    OS.indent(Indent + 2);
    quoted(OS, K);
    return OS << ": ";
  }
  void str(llvm::StringRef K, llvm::StringRef V) { quoted(key(K), V); }
  void num(llvm::StringRef K, int64_t V) { key(K) << V; }
  void real(llvm::StringRef K, double V) { key(K) << formatFloat(V); }
  void boolean(llvm::StringRef K, bool V) { key(K) << (V ? "true" : "false"); }

private:
  llvm::raw_ostream &OS;
  unsigned Indent;
  bool First = true;
};

void printValue(ObjectWriter &W, const SettingInfo &Info, const EvalValue &V) {
  switch (Info.Kind) {
  case SettingKind::Int:
    W.num(Info.Name, V.I);
    return;
  case SettingKind::Float:
    W.real(Info.Name, V.F);
    return;
  case SettingKind::Bool:
    W.boolean(Info.Name, V.B);
    return;
  case SettingKind::Choice:
    W.str(Info.Name, Info.Choices->Spellings[V.I]);
    return;
  case SettingKind::String:
    W.str(Info.Name, V.S);
    return;
  }
}

/// True when some value of the set takes arguments: its settings print as
/// {"scheme": ..., arguments...}.
bool isScheme(const ChoiceSetInfo &Set) {
  for (unsigned V = 0; V < Set.Spellings.size(); ++V)
    if (!schemeArgs(Set, V).empty())
      return true;
  return false;
}

void printSpec(const ModelSpec &S, llvm::raw_ostream &OS) {
  ObjectWriter W(OS, 4);
  W.str("name", S.Name);
  if (!S.Base.empty())
    W.str("base", S.Base);
  W.str("location", S.File + ":" + std::to_string(S.Loc.Line) + ":" +
                        std::to_string(S.Loc.Col));
  for (const SettingInfo &Info : allSettings()) {
    EvalValue V = settingValue(S, Info);
    if (Info.Kind == SettingKind::Choice && isScheme(*Info.Choices)) {
      W.key(Info.Name);
      ObjectWriter P(OS, 6);
      P.str("scheme", Info.Choices->Spellings[V.I]);
      for (const SettingInfo *Arg : schemeArgs(*Info.Choices, V.I))
        printValue(P, *Arg, settingValue(S, *Arg));
    } else {
      printValue(W, Info, V);
    }
    // Derived, shown beside what it derives from.
    if (idOf(Info) == SettingId::heads)
      W.num("d_k", S.HeadDim);
  }
}
} // namespace

void enc::printSpecJSON(llvm::ArrayRef<ModelSpec> Specs,
                        llvm::StringRef FileName, llvm::raw_ostream &OS) {
  OS << "{\n  \"file\": ";
  quoted(OS, FileName);
  OS << ",\n  \"encoders\": [";
  for (size_t I = 0; I < Specs.size(); ++I) {
    OS << (I ? ",\n    " : "\n    ");
    printSpec(Specs[I], OS);
  }
  OS << (Specs.empty() ? "]\n}\n" : "\n  ]\n}\n");
}
