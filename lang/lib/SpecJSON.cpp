//===- SpecJSON.cpp - The resolved settings as JSON -----------------------===//
//
// Floats print as the shortest decimal that reads back exactly (1e-12, not
// 9.9999999999999998e-13), which llvm::json does not do.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/NumberFormat.h"
#include "enc/lang/Printers.h"

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

void printSpec(const ModelSpec &S, llvm::raw_ostream &OS) {
  ObjectWriter W(OS, 4);
  W.str("name", S.Name);
  if (!S.Base.empty())
    W.str("base", S.Base);
  W.str("location", S.File + ":" + std::to_string(S.Loc.Line) + ":" +
                        std::to_string(S.Loc.Col));
  W.num("d_model", S.DModel);
  W.num("heads", S.Heads);
  W.num("d_k", S.DK);
  W.num("d_ff", S.DFF);
  W.num("blocks", S.Blocks);
  W.num("max_len", S.MaxLen);
  W.num("vocab", S.Vocab);
  W.num("type_vocab", S.TypeVocab);
  {
    W.key("positional");
    ObjectWriter P(OS, 6);
    P.str("scheme", toString(S.Positional));
    if (S.Positional == PositionalKind::Rope) {
      P.real("base", S.RopeBase);
      P.str("style", toString(S.Rope));
    } else if (S.Positional == PositionalKind::Relative) {
      P.num("buckets", S.RelBuckets);
      P.num("max_distance", S.RelMaxDistance);
    }
  }
  W.str("norm", toString(S.Norm));
  W.str("norm_type", toString(S.NormKind));
  W.real("eps", S.Eps);
  W.str("activation", toString(S.Act));
  W.boolean("bias", S.Bias);
  W.real("embed_scale", S.EmbedScale);
  W.boolean("embed_norm", S.EmbedNorm);
  W.boolean("final_norm", S.FinalNorm);
  W.str("pooling", toString(S.Pool));
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
