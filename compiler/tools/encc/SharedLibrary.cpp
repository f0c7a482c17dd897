//===- SharedLibrary.cpp - encc --emit=shared: object + runtime -> .so ----===//

#include "SharedLibrary.h"

#include "EnccConfig.h"
#include "enc/ABI/RuntimeABI.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

std::string encc::findRuntimeArchive(const char *Argv0, StringRef Option,
                                     std::string &Error) {
  if (!Option.empty()) {
    if (sys::fs::is_regular_file(Option))
      return Option.str();
    Error = "--runtime-lib: '" + Option.str() + "' is not a file";
    return "";
  }
  std::vector<std::string> Tried;
  // Installed: PREFIX/bin/encc beside PREFIX/<libdir>/libenc_runtime.a.
  std::string Exe = sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&encc::findRuntimeArchive));
  if (!Exe.empty()) {
    SmallString<256> P(sys::path::parent_path(Exe));
    sys::path::append(P, ENCC_RUNTIME_ARCHIVE_FROM_BINDIR);
    sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    if (sys::fs::is_regular_file(P))
      return std::string(P);
    Tried.push_back(std::string(P));
  }
  // Run from its build tree.
  if (sys::fs::is_regular_file(ENCC_RUNTIME_ARCHIVE_BUILD))
    return ENCC_RUNTIME_ARCHIVE_BUILD;
  Tried.push_back(ENCC_RUNTIME_ARCHIVE_BUILD);
  Error = "cannot find the encc runtime (libenc_runtime.a): not at";
  for (const std::string &T : Tried)
    Error += " '" + T + "'" + (&T == &Tried.back() ? "" : " or");
  Error += "; give its path with --runtime-lib=PATH";
  return "";
}

std::vector<std::string> encc::exportedSymbols(const Module &IR) {
  std::vector<std::string> Symbols;
  for (const Function &F : IR.functions())
    if (!F.isDeclaration() && F.hasExternalLinkage())
      Symbols.push_back(F.getName().str());
  for (const char *Name : enc::abi::PublicFunctions)
    Symbols.push_back(Name);
  return Symbols;
}

namespace {
/// The compiler driver and its own arguments, from $CXX ("ccache g++ -m64")
/// or `c++`, the first word found on PATH when it is not a path.
bool findDriver(std::vector<std::string> &Command, std::string &Error) {
  std::optional<std::string> FromEnv = sys::Process::GetEnv("CXX");
  std::string Text = FromEnv && !FromEnv->empty() ? *FromEnv : "c++";
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *> Words;
  cl::TokenizeGNUCommandLine(Text, Saver, Words);
  if (Words.empty()) {
    Error =
        "CXX is blank: set it to a C++ compiler driver, or unset it to use c++";
    return false;
  }
  ErrorOr<std::string> Program = sys::findProgramByName(Words[0]);
  if (!Program) {
    Error = "cannot link a shared library: no C++ compiler driver '" +
            std::string(Words[0]) + "' on PATH" +
            (FromEnv ? " (from CXX)" : " (set CXX to one)");
    return false;
  }
  Command.assign(1, *Program);
  for (const char *W : ArrayRef(Words).drop_front())
    Command.push_back(W);
  return true;
}

/// A linker version script exporting `Exports` and hiding the rest.
bool writeVersionScript(StringRef Path, ArrayRef<std::string> Exports,
                        std::string &Error) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC) {
    Error = "cannot write '" + Path.str() + "': " + EC.message();
    return false;
  }
  OS << "{\n  global:\n";
  for (const std::string &S : Exports)
    OS << "    " << S << ";\n";
  OS << "  local: *;\n};\n";
  return true;
}
} // namespace

std::vector<std::string> encc::tokenizerArchives(StringRef RuntimeArchive,
                                                 std::string &Error) {
  SmallString<256> P(sys::path::parent_path(RuntimeArchive));
  sys::path::append(P, ENCC_TOKENIZER_ARCHIVE_NAME);
  if (!sys::fs::is_regular_file(P)) {
    Error = "a compiled-in tokenizer needs the tokenizer library beside the "
            "runtime's, but there is no '" +
            P.str().str() + "'";
    return {};
  }
  return {P.str().str(), ENCC_UTF8PROC_ARCHIVE};
}

bool encc::linkSharedLibrary(StringRef Object, StringRef RuntimeArchive,
                             ArrayRef<std::string> Before,
                             ArrayRef<std::string> After,
                             ArrayRef<std::string> Exports, StringRef Output,
                             std::string &Error) {
  std::vector<std::string> Command;
  if (!findDriver(Command, Error))
    return false;
  SmallString<128> Script;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("encc-exports", "map", Script)) {
    Error = "cannot create a temporary file: " + EC.message();
    return false;
  }
  FileRemover RemoveScript(Script);
  if (!writeVersionScript(Script, Exports, Error))
    return false;

  for (const char *Arg : {"-shared", "-o"})
    Command.push_back(Arg);
  Command.push_back(Output.str());
  Command.push_back(Object.str());
  // The public API is in archive members nothing else may pull in.
  for (const char *Name : enc::abi::PublicFunctions)
    Command.push_back(std::string("-Wl,--undefined=") + Name);
  Command.insert(Command.end(), Before.begin(), Before.end());
  Command.push_back(RuntimeArchive.str());
  Command.insert(Command.end(), After.begin(), After.end());
  // Every symbol resolved at link time, calls inside the library bound to
  // its own definitions (another library's enc_last_error must not interpose).
  for (const char *Arg : {"-Wl,-z,defs", "-Wl,-Bsymbolic"})
    Command.push_back(Arg);
  Command.push_back("-Wl,--version-script=" + std::string(Script));

  SmallVector<StringRef> Args(Command.begin(), Command.end());
  std::string ExecError;
  int Status = sys::ExecuteAndWait(Command[0], Args, /*Env=*/std::nullopt,
                                   /*Redirects=*/{}, 0, 0, &ExecError);
  if (Status == 0)
    return true;
  sys::fs::remove(Output);
  std::string Line;
  for (const std::string &A : Command)
    Line += (Line.empty() ? "" : " ") + A;
  Error = "linking '" + Output.str() + "' failed" +
          (ExecError.empty() ? " (exit status " + std::to_string(Status) + ")"
                             : ": " + ExecError) +
          ": " + Line;
  return false;
}
