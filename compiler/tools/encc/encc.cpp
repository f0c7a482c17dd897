//===- encc.cpp - The encc driver -----------------------------------------===//
//
// encc FILE [-o OUT] [--emit=ast|spec] [--encoder=NAME]
//
// Exit status: 0 on success, 1 when the input has an error (diagnostics are
// printed), 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Diagnostics.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Printers.h"
#include "enc/lang/Sema.h"
#include "enc/lang/Settings.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
enum class EmitKind { AST, Spec };

cl::OptionCategory EnccCategory("encc options");

cl::opt<std::string> InputFile(cl::Positional, cl::desc("<input .enc file>"),
                               cl::Required, cl::cat(EnccCategory));
cl::opt<std::string> OutputFile("o", cl::desc("Write the output to <file>"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(EnccCategory));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("The stage to stop at and print"),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
               clEnumValN(EmitKind::Spec, "spec",
                          "the resolved settings of each encoder, as JSON")),
    cl::init(EmitKind::Spec), cl::cat(EnccCategory));
cl::opt<std::string> OnlyEncoder("encoder",
                                 cl::desc("Only the encoder named <name>"),
                                 cl::value_desc("name"), cl::cat(EnccCategory));
cl::opt<unsigned> ErrorLimit(
    "error-limit",
    cl::desc("Stop after <n> errors (0: no limit; default 20)"),
    cl::value_desc("n"), cl::init(20), cl::cat(EnccCategory));

/// Files above this size are refused before reading: offsets in the AST are
/// 32-bit, and no encoder description is anywhere near it.
constexpr uint64_t MaxInputBytes = 256u << 20;

int fail(const Twine &Message) {
  WithColor::error(errs(), "encc") << Message << '\n';
  return 1;
}

void printVersion(raw_ostream &OS) {
  OS << "encc version 0.1.0 (LLVM " LLVM_VERSION_STRING ")\n";
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(EnccCategory);
  cl::SetVersionPrinter(printVersion);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "encc: a compiler for Transformer encoders\n", &errs()))
    return 2;

  // Read the input, refusing what is not a regular, readable, sane file.
  if (InputFile != "-") {
    sys::fs::file_status Status;
    if (std::error_code EC = sys::fs::status(InputFile, Status))
      return fail("cannot open '" + InputFile + "': " + EC.message());
    if (sys::fs::is_directory(Status))
      return fail("cannot read '" + InputFile + "': it is a directory");
    if (Status.getSize() > MaxInputBytes)
      return fail("'" + InputFile + "' is too large (" +
                  Twine(Status.getSize()) + " bytes; the limit is 256 MiB)");
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(InputFile, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return fail("cannot read '" + InputFile + "': " +
                Buffer.getError().message());
  if ((*Buffer)->getBufferSize() > MaxInputBytes)
    return fail("'" + InputFile + "' is too large (the limit is 256 MiB)");

  enc::SourceFile Source(InputFile == "-" ? std::string("<stdin>") : InputFile.getValue(),
                         (*Buffer)->getBuffer().str());
  // LLVM's own --color option decides, defaulting to "on a terminal".
  bool UseColor = WithColor(errs()).colorsEnabled();
  enc::DiagnosticEngine Diags(Source, errs(), UseColor);
  Diags.setErrorLimit(ErrorLimit);

  enc::ast::File AST = enc::parseFile(Source, Diags);
  // --emit=ast shows the file as parsed, before Sema gives it meaning.
  std::vector<enc::ModelSpec> Specs;
  if (Emit != EmitKind::AST)
    Specs = enc::resolveFile(AST, Diags);

  if (!OnlyEncoder.empty() && !Diags.hasErrors()) {
    auto It = std::find_if(Specs.begin(), Specs.end(),
                           [](const auto &S) { return S.Name == OnlyEncoder; });
    if (It == Specs.end()) {
      std::vector<StringRef> Names;
      for (const auto &S : Specs)
        Names.push_back(S.Name);
      StringRef Near = enc::closestMatch(OnlyEncoder, Names);
      Diags.fileError("no encoder named '" + OnlyEncoder + "'" +
                      (Near.empty() ? Twine("")
                                    : Twine("; did you mean '") + Near + "'?"));
    } else {
      enc::ModelSpec Only = *It;
      Specs.assign(1, Only);
    }
  }
  if (Diags.hasErrors()) {
    unsigned N = Diags.errorCount();
    errs() << N << (N == 1 ? " error" : " errors") << " generated.\n";
    return 1;
  }

  std::error_code EC;
  ToolOutputFile Out(OutputFile, EC, sys::fs::OF_None);
  if (EC)
    return fail("cannot write '" + OutputFile + "': " + EC.message());
  switch (Emit) {
  case EmitKind::AST:
    enc::dumpAST(AST, Source, Out.os());
    break;
  case EmitKind::Spec:
    enc::printSpecJSON(Specs, Source.name(), Out.os());
    break;
  }
  Out.keep();
  return 0;
}
