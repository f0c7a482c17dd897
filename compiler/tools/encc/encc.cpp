//===- encc.cpp - The encc driver -----------------------------------------===//
//
// encc FILE [-o OUT] [--emit=ast|spec|mlir|mlir-opt|llvm|asm|obj] ...
// encc import DIR_OR_CONFIG [-o model.enc] [--name NAME] [--head mlm|splade]
// encc pack FILE.enc WEIGHTS -o model.encw [--encoder NAME]
//
// The --emit ladder follows the data: the syntax tree, the resolved
// settings, the enc dialect as imported, after optimisation, LLVM IR,
// assembly, and (the default) an object file with its C header beside it;
// past it, a shared library of the file's encoders and the runtime
// (SharedLibrary.h). FILE is a .enc file or, from the mlir stage on, a
// .mlir file.
//
// Exit status: 0 on success, 1 when the input has an error (diagnostics are
// printed), 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "enc/HFImport/HFImport.h"
#include "Pack.h"
#include "SharedLibrary.h"

#include "enc/ABI/ModelABI.h"
#include "enc/Dialect/EncDialect.h"
#include "enc/Emit/Emitters.h"
#include "enc/Import/SpecToMLIR.h"
#include "enc/Transforms/Passes.h"
#include "enc/lang/Diagnostics.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Printers.h"
#include "enc/lang/Sema.h"
#include "enc/Emit/Tokenizers.h"
#include "enc/lang/Settings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
/// Ordered: each stage includes the ones before it.
enum class EmitKind { AST, Spec, MLIR, MLIROpt, LLVM, Asm, Obj, Shared };

cl::OptionCategory EnccCategory("encc options");

cl::opt<std::string> InputFile(cl::Positional,
                               cl::desc("<input .enc or .mlir file>"),
                               cl::Required, cl::cat(EnccCategory));
cl::opt<std::string>
    OutputFile("o",
               cl::desc("Write the output to <file> (default: stdout for "
                        "text stages, <input>.o for obj, lib<input>.so for "
                        "shared)"),
               cl::value_desc("file"), cl::cat(EnccCategory));
cl::opt<std::string>
    HeaderFile("header",
               cl::desc("Write the C header to <file> (default: beside -o)"),
               cl::value_desc("file"), cl::cat(EnccCategory));
cl::opt<std::string> DepFile(
    "depfile",
    cl::desc("With an object or library: also write a Makefile-style "
             "depfile to <file>, the output depending on the .enc and the "
             "tokenizer files it compiles in"),
    cl::value_desc("file"), cl::cat(EnccCategory));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("The stage to stop at and write"),
    cl::values(
        clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
        clEnumValN(EmitKind::Spec, "spec",
                   "the resolved settings of each encoder, as JSON"),
        clEnumValN(EmitKind::MLIR, "mlir", "the enc dialect, as imported"),
        clEnumValN(EmitKind::MLIROpt, "mlir-opt",
                   "the enc dialect after folding, fusion and planning"),
        clEnumValN(EmitKind::LLVM, "llvm", "LLVM IR"),
        clEnumValN(EmitKind::Asm, "asm", "assembly"),
        clEnumValN(EmitKind::Obj, "obj", "an object file and its C header"),
        clEnumValN(EmitKind::Shared, "shared",
                   "a shared library of the encoders and the runtime, and "
                   "its C header")),
    cl::init(EmitKind::Obj), cl::cat(EnccCategory));
cl::opt<std::string> RuntimeLib(
    "runtime-lib",
    cl::desc("The runtime archive --emit=shared links (default: the one "
             "installed beside encc)"),
    cl::value_desc("libenc_runtime.a"), cl::cat(EnccCategory));
cl::opt<std::string> OnlyEncoder("encoder",
                                 cl::desc("Only the encoder named <name>"),
                                 cl::value_desc("name"), cl::cat(EnccCategory));
cl::opt<unsigned>
    ErrorLimit("error-limit",
               cl::desc("Stop after <n> errors (0: no limit; default 20)"),
               cl::value_desc("n"), cl::init(20), cl::cat(EnccCategory));
cl::opt<bool> O0("O0", cl::desc("No fusion (and no LLVM optimisation)"),
                 cl::cat(EnccCategory));
cl::opt<std::string> MTriple("mtriple",
                             cl::desc("Target triple (default: the host)"),
                             cl::value_desc("triple"), cl::cat(EnccCategory));
cl::opt<std::string> MCPU("mcpu",
                          cl::desc("Target CPU (default: the host's, "
                                   "with its features; help: list them)"),
                          cl::value_desc("cpu"), cl::init("native"),
                          cl::cat(EnccCategory));

// encc import: a Hugging Face model's config as a .enc file (HFImport.h).
cl::SubCommand ImportCommand("import",
                             "Write the .enc of a Hugging Face config.json or "
                             "sentence-transformers model directory");
cl::opt<std::string> ImportPath(cl::Positional, cl::Required,
                                cl::desc("<model directory or config.json>"),
                                cl::sub(ImportCommand), cl::cat(EnccCategory));
cl::opt<std::string> ImportOutput("o",
                                  cl::desc("Write the .enc to <file> "
                                           "(default: stdout)"),
                                  cl::value_desc("file"),
                                  cl::sub(ImportCommand),
                                  cl::cat(EnccCategory));
cl::opt<std::string> ImportName(
    "name", cl::desc("The encoder's name (default: from the directory)"),
    cl::value_desc("name"), cl::sub(ImportCommand), cl::cat(EnccCategory));
cl::opt<std::string> ImportHead(
    "head",
    cl::desc("On a ...ForMaskedLM checkpoint: its masked-LM head (mlm) or "
             "SPLADE over it (splade); by default it imports as its encoder"),
    cl::value_desc("mlm|splade"), cl::sub(ImportCommand),
    cl::cat(EnccCategory));

// encc pack: a packed-weights file for an encoder (Pack.h).
cl::SubCommand PackCommand("pack",
                           "Write a packed-weights file: the weights in the "
                           "layout this CPU's kernels read, mapped in place "
                           "by NAME_load");
cl::opt<std::string> PackEnc(cl::Positional, cl::Required,
                             cl::desc("<file.enc>"), cl::sub(PackCommand),
                             cl::cat(EnccCategory));
cl::opt<std::string> PackWeights(cl::Positional, cl::Required,
                                 cl::desc("<weights.safetensors or model "
                                          "directory>"),
                                 cl::sub(PackCommand), cl::cat(EnccCategory));
cl::opt<std::string> PackOutput("o", cl::Required,
                                cl::desc("Write the packed weights to <file>"),
                                cl::value_desc("file"), cl::sub(PackCommand),
                                cl::cat(EnccCategory));
cl::opt<std::string> PackEncoder("encoder",
                                 cl::desc("The encoder to pack, when the file "
                                          "has several"),
                                 cl::value_desc("name"), cl::sub(PackCommand),
                                 cl::cat(EnccCategory));
cl::opt<std::string>
    PackRuntimeLib("runtime-lib",
                   cl::desc("The runtime archive to link (as --emit=shared)"),
                   cl::value_desc("libenc_runtime.a"), cl::sub(PackCommand),
                   cl::cat(EnccCategory));

enum class ColorChoice { Auto, Always, Never };
// Registered as "encc-color" and renamed "color" in main(), once LLVM's own
// boolean --color (which takes no always/never/auto) is out of the way.
cl::opt<ColorChoice> Color(
    "encc-color", cl::desc("Colour diagnostics (default: auto, on a terminal)"),
    cl::ValueOptional,
    cl::values(clEnumValN(ColorChoice::Always, "always",
                          "colour, even when stderr is not a terminal"),
               clEnumValN(ColorChoice::Never, "never", "no colour"),
               clEnumValN(ColorChoice::Auto, "auto",
                          "colour when stderr is a terminal"),
               clEnumValN(ColorChoice::Always, "", "--color alone: always")),
    cl::init(ColorChoice::Auto), cl::cat(EnccCategory));

/// Takes LLVM's --color out of the command line and gives its name to ours.
void installColorOption() {
  // Creating a WithColor registers LLVM's option (lazily, on first use).
  (void)WithColor::defaultAutoDetectFunction()(nulls());
  StringMap<cl::Option *> &Options = cl::getRegisteredOptions();
  if (auto It = Options.find("color"); It != Options.end())
    It->second->removeArgument();
  Color.setArgStr("color");
}

bool UseColor = false;
/// LLVM's own messages (WithColor::error) follow --color too.
bool colorFor(const raw_ostream &) { return UseColor; }

/// Files above this size are refused before reading: offsets in the AST are
/// 32-bit, and no encoder description is anywhere near it.
constexpr uint64_t MaxInputBytes = 256u << 20;

int fail(const Twine &Message) {
  WithColor::error(errs(), "encc") << Message << '\n';
  return 1;
}

/// --mcpu=help, and the check of --mcpu: an unknown CPU is an error that
/// says where the valid names are, not LLVM's abort.
int listCPUs(const enc::TargetOptions &Target) {
  std::string Error;
  std::vector<std::string> CPUs = enc::targetCPUs(Target, Error);
  if (!Error.empty())
    return fail(Error);
  outs() << "CPUs for " << enc::targetTriple(Target)
         << " (--mcpu=native, the default, is the host's):\n";
  for (const std::string &CPU : CPUs)
    outs() << "  " << CPU << "\n";
  return 0;
}
bool checkCPU(const enc::TargetOptions &Target, int &Exit) {
  if (Target.CPU.empty() || Target.CPU == "native")
    return true;
  std::string Error;
  std::vector<std::string> CPUs = enc::targetCPUs(Target, Error);
  if (!Error.empty()) {
    Exit = fail(Error);
    return false;
  }
  if (llvm::is_contained(CPUs, Target.CPU))
    return true;
  Exit =
      fail("unknown CPU '" + Target.CPU + "' for " + enc::targetTriple(Target) +
           "; --mcpu=help lists the valid names");
  return false;
}

/// The encoder `--encoder=Name` means, for "no encoder named ..." : a name
/// it is the start of (roberta -> roberta_base), else the nearest.
StringRef nearestEncoder(StringRef Name, ArrayRef<StringRef> Names) {
  for (StringRef N : Names)
    if (N.starts_with(Name))
      return N;
  return enc::closestMatch(Name, Names);
}

void printVersion(raw_ostream &OS) {
  OS << "encc version 0.1.0 (LLVM " LLVM_VERSION_STRING ")\n";
}

/// Reads the input, refusing what is not a regular, readable, sane file.
ErrorOr<std::unique_ptr<MemoryBuffer>> readInput(std::string &Problem) {
  if (InputFile != "-") {
    sys::fs::file_status Status;
    if (std::error_code EC = sys::fs::status(InputFile, Status)) {
      Problem = "cannot open '" + InputFile + "': " + EC.message();
      return EC;
    }
    if (sys::fs::is_directory(Status)) {
      Problem = "cannot read '" + InputFile + "': it is a directory";
      return std::make_error_code(std::errc::is_a_directory);
    }
    if (Status.getSize() > MaxInputBytes) {
      Problem = "'" + InputFile + "' is too large (" +
                std::to_string(Status.getSize()) +
                " bytes; the limit is 256 MiB)";
      return std::make_error_code(std::errc::file_too_large);
    }
  }
  auto Buffer = MemoryBuffer::getFileOrSTDIN(InputFile, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/true);
  if (!Buffer)
    Problem = "cannot read '" + InputFile + "': " + Buffer.getError().message();
  else if ((*Buffer)->getBufferSize() > MaxInputBytes)
    Problem = "'" + InputFile + "' is too large (the limit is 256 MiB)";
  return Buffer;
}

std::string defaultObjectPath() {
  if (InputFile == "-")
    return Emit == EmitKind::Shared ? "liba.so" : "a.o";
  SmallString<128> Path(sys::path::filename(InputFile));
  sys::path::replace_extension(Path, ".o");
  if (Emit == EmitKind::Shared)
    return ("lib" + sys::path::stem(Path) + ".so").str();
  return std::string(Path);
}

/// The tokenizers compileEnc read for the encoders it compiles.
std::vector<enc::CompiledTokenizer> Tokenizers;

/// --emit=shared: the object goes to a temporary file, then is linked.
struct SharedOutput {
  std::string Library;        ///< what -o names
  std::string RuntimeArchive; ///< what it links
  SmallString<128> Object;    ///< the temporary object
};

/// The front end: .enc text to the imported module (or to the AST/spec
/// outputs). Returns 0/1 as an exit status in `Exit` when it is done.
mlir::OwningOpRef<mlir::ModuleOp> compileEnc(mlir::MLIRContext &Context,
                                             const MemoryBuffer &Buffer,
                                             raw_ostream &Out, int &Exit) {
  Exit = -1;
  enc::SourceFile Source(InputFile == "-" ? std::string("<stdin>")
                                          : InputFile.getValue(),
                         Buffer.getBuffer().str());
  enc::DiagnosticEngine Diags(Source, errs(), UseColor);
  Diags.setErrorLimit(ErrorLimit);

  enc::ast::File AST = enc::parseFile(Source, Diags);
  // --emit=ast shows the file as parsed, before Sema gives it meaning.
  std::vector<enc::ModelSpec> Specs;
  if (Emit != EmitKind::AST) {
    Specs = enc::resolveFile(AST, Diags);
    // What the generated C header will define must not collide.
    enc::checkGeneratedNames(Specs, Diags);
  }
  // --encoder=NAME: the AST stage looks NAME up among the parsed encoders
  // (Sema has not run), the others among the resolved ones.
  if (!OnlyEncoder.empty() && !Diags.hasErrors() && Emit == EmitKind::AST) {
    std::vector<StringRef> Names;
    enc::ast::File Only;
    for (const auto &E : AST.Encoders) {
      Names.push_back(E.Name.Name);
      if (E.Name.Name == OnlyEncoder && Only.Encoders.empty())
        Only.Encoders.push_back(E);
    }
    if (Only.Encoders.empty()) {
      StringRef Near = nearestEncoder(OnlyEncoder, Names);
      Diags.fileError(
          "no encoder named '" + OnlyEncoder + "'" +
          (Near.empty() ? Twine("") : Twine("; did you mean '") + Near + "'?"));
    } else {
      AST = std::move(Only);
    }
  }
  if (!OnlyEncoder.empty() && !Diags.hasErrors() && Emit != EmitKind::AST) {
    auto It = std::find_if(Specs.begin(), Specs.end(),
                           [](const auto &S) { return S.Name == OnlyEncoder; });
    if (It == Specs.end()) {
      std::vector<StringRef> Names;
      for (const auto &S : Specs)
        Names.push_back(S.Name);
      StringRef Near = nearestEncoder(OnlyEncoder, Names);
      Diags.fileError(
          "no encoder named '" + OnlyEncoder + "'" +
          (Near.empty() ? Twine("") : Twine("; did you mean '") + Near + "'?"));
    } else {
      enc::ModelSpec Only = *It;
      Specs.assign(1, Only);
    }
  }
  // The tokenizers of the encoders being compiled, read and checked now so
  // that their problems are diagnostics like any other.
  if (!Diags.hasErrors() && Emit != EmitKind::AST && Emit != EmitKind::Spec) {
    Tokenizers = enc::readTokenizers(Specs, InputFile, Diags);
  }
  if (Diags.hasErrors()) {
    unsigned N = Diags.errorCount();
    errs() << N << (N == 1 ? " error" : " errors") << " generated.\n";
    Exit = 1;
    return nullptr;
  }
  if (Emit == EmitKind::AST) {
    enc::dumpAST(AST, Source, Out);
    Exit = 0;
    return nullptr;
  }
  if (Emit == EmitKind::Spec) {
    enc::printSpecJSON(Specs, Source.name(), Out);
    Exit = 0;
    return nullptr;
  }
  auto Module = enc::importSpecs(Context, Specs);
  if (!Module)
    Exit = 1;
  return Module;
}
/// --mcpu=help needs no input file, as in clang and llc: handled before the
/// command line is parsed. Returns the exit status, or -1 when not asked.
int handleCPUHelp(int argc, char **argv) {
  for (int I = 1; I < argc; ++I) {
    StringRef Arg = argv[I];
    if (Arg != "--mcpu=help" && Arg != "-mcpu=help")
      continue;
    std::string Triple;
    for (int J = 1; J < argc; ++J)
      if (StringRef A = argv[J];
          A.consume_front("--mtriple=") || A.consume_front("-mtriple="))
        Triple = A.str();
    return listCPUs({Triple, "help", 2});
  }
  return -1;
}

/// Decides the colour of every diagnostic, ours and LLVM's, from --color.
void applyColor() {
  switch (Color.getValue()) {
  case ColorChoice::Always:
    UseColor = true;
    break;
  case ColorChoice::Never:
    UseColor = false;
    break;
  case ColorChoice::Auto:
    UseColor = errs().has_colors();
    break;
  }
  WithColor::setAutoDetectFunction(colorFor);
}

/// A path as a Makefile rule spells it: spaces and '#' escaped, '$' doubled.
std::string makeEscaped(StringRef Path) {
  std::string S;
  for (char C : Path) {
    if (C == ' ' || C == '#')
      S += '\\';
    if (C == '$')
      S += '$';
    S += C;
  }
  return S;
}

/// --depfile: `OutPath: <the .enc> <each tokenizer file read>`, so that a
/// build system (CMake's DEPFILE, ninja, make) recompiles when any changes.
int writeDepFile(StringRef OutPath) {
  std::error_code EC;
  ToolOutputFile Dep(DepFile, EC, sys::fs::OF_Text);
  if (EC)
    return fail("cannot write '" + DepFile + "': " + EC.message());
  Dep.os() << makeEscaped(OutPath) << ":";
  std::vector<std::string> Inputs{InputFile};
  for (const enc::CompiledTokenizer &T : Tokenizers)
    Inputs.insert(Inputs.end(), T.Files.begin(), T.Files.end());
  for (const std::string &In : Inputs) {
    if (In == "-")
      continue; // stdin
    SmallString<256> Abs(In);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    Dep.os() << " \\\n  " << makeEscaped(Abs);
  }
  Dep.os() << "\n";
  Dep.keep();
  return 0;
}

/// The optimisation pipeline, then the header of the planned module (before
/// lowering erases it), the lowering to LLVM IR, and the last stages.
int compileModule(mlir::ModuleOp Module, const enc::TargetOptions &Target,
                  ToolOutputFile &Out, StringRef OutPath,
                  const SharedOutput *Shared) {
  mlir::MLIRContext &Context = *Module.getContext();
  mlir::PassManager Optimize(&Context);
  enc::buildOptimizationPipeline(Optimize, /*Fuse=*/!O0);
  if (mlir::failed(mlir::applyPassManagerCLOptions(Optimize)) ||
      mlir::failed(Optimize.run(Module)))
    return 1;
  if (Emit == EmitKind::MLIROpt) {
    Module.print(Out.os(), mlir::OpPrintingFlags().elideLargeElementsAttrs(16));
    Out.keep();
    return 0;
  }

  std::string Header, HeaderPath = HeaderFile;
  bool WithHeader = Emit == EmitKind::Obj || Emit == EmitKind::Shared;
  if (WithHeader) {
    if (HeaderPath.empty()) {
      SmallString<128> P(OutPath == "-" ? StringRef("a.o") : OutPath);
      sys::path::replace_extension(P, ".h");
      HeaderPath = std::string(P);
    }
    Header = enc::emitHeader(Module, HeaderPath,
                             InputFile == "-" ? std::string("<stdin>")
                                              : InputFile.getValue(),
                             Tokenizers);
  }

  mlir::PassManager Lower(&Context);
  enc::buildLoweringPipeline(Lower, /*Library=*/Shared != nullptr);
  if (mlir::failed(mlir::applyPassManagerCLOptions(Lower)) ||
      mlir::failed(Lower.run(Module)))
    return 1;

  llvm::LLVMContext LLVMContext;
  std::string Error;
  auto IR = enc::translateToLLVMIR(Module, LLVMContext, Target, Error);
  if (!IR)
    return fail(Error);
  for (const enc::CompiledTokenizer &T : Tokenizers)
    enc::emitTokenizerFunctions(*IR, T);
  if (Emit == EmitKind::LLVM) {
    IR->print(Out.os(), nullptr);
    Out.keep();
    return 0;
  }
  if (!enc::emitMachineCode(*IR, Target, Emit == EmitKind::Asm, Out.os(),
                            Error))
    return fail(Error);
  if (Shared) {
    Out.os().close();
    if (Out.os().has_error())
      return fail("cannot write '" + Shared->Object +
                  "': " + Out.os().error().message());
    // The tokenizer's archive uses the runtime's: it goes before it,
    // utf8proc after.
    std::vector<std::string> Before, After;
    if (!Tokenizers.empty()) {
      std::vector<std::string> Archives =
          encc::tokenizerArchives(Shared->RuntimeArchive, Error);
      if (Archives.empty())
        return fail(Error);
      Before.push_back(Archives[0]);
      After.assign(Archives.begin() + 1, Archives.end());
    }
    if (!encc::linkSharedLibrary(Shared->Object, Shared->RuntimeArchive, Before,
                                 After, encc::exportedSymbols(*IR),
                                 Shared->Library, Error))
      return fail(Error);
  }
  if (WithHeader) {
    std::error_code EC;
    ToolOutputFile HeaderOut(HeaderPath, EC, sys::fs::OF_Text);
    if (EC)
      return fail("cannot write '" + HeaderPath + "': " + EC.message());
    HeaderOut.os() << Header;
    HeaderOut.keep();
  }
  if (!DepFile.empty()) {
    if (int Failed = writeDepFile(OutPath))
      return Failed;
  }
  Out.keep();
  return 0;
}
/// encc import: the .enc text on stdout or in -o; errors name the file and
/// the key (exit 1), warnings flag keys not known to be harmless.
int runImport() {
  if (!ImportHead.empty() && ImportHead != "mlm" && ImportHead != "splade") {
    WithColor::error(errs(), "encc")
        << "--head is '" << ImportHead << "': expected mlm or splade\n";
    return 1;
  }
  enc::HFImportResult R =
      enc::importHuggingFace(ImportPath, ImportName, ImportHead);
  for (const std::string &W : R.Warnings)
    WithColor::warning(errs(), "encc") << W << '\n';
  if (!R.Errors.empty()) {
    for (const std::string &E : R.Errors)
      WithColor::error(errs(), "encc") << E << '\n';
    return 1;
  }
  std::string OutPath = ImportOutput.empty() ? "-" : ImportOutput.getValue();
  // The directory's tokenizer, compiled in: its path relative to the .enc
  // written with -o, else as given (relative to where encc runs).
  if (std::string File = enc::tokenizerFileOf(ImportPath); !File.empty()) {
    std::string Written = File;
    if (!ImportOutput.empty()) {
      SmallString<256> OutDir(sys::path::parent_path(ImportOutput)), Abs(File);
      sys::fs::make_absolute(OutDir);
      sys::fs::make_absolute(Abs);
      sys::path::remove_dots(OutDir, /*remove_dot_dot=*/true);
      sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
      StringRef Rest = Abs;
      Written = Rest.consume_front((OutDir + "/").str()) ? Rest.str()
                                                         : Abs.str().str();
    }
    R.Enc = enc::withTokenizer(R.Enc, Written, R);
  }
  std::error_code EC;
  ToolOutputFile Out(OutPath, EC, sys::fs::OF_Text);
  if (EC)
    return fail("cannot write '" + OutPath + "': " + EC.message());
  Out.os() << R.Enc;
  Out.keep();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // MLIR's own options (--mlir-print-debuginfo for the .enc locations,
  // --mlir-print-ir-after-all, ...) work as in mlir-opt; --help lists ours.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  installColorOption();
  cl::HideUnrelatedOptions(EnccCategory);
  cl::SetVersionPrinter(printVersion);
  if (int Exit = handleCPUHelp(argc, argv); Exit >= 0)
    return Exit;
  if (!cl::ParseCommandLineOptions(
          argc, argv, "encc: a compiler for Transformer encoders\n", &errs()))
    return 2;
  applyColor();
  if (ImportCommand)
    return runImport();
  if (PackCommand) {
    std::string Error;
    std::string Self = sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&printVersion));
    if (!encc::packWeights({Self, PackEnc, PackWeights, PackOutput, PackEncoder,
                            PackRuntimeLib},
                           Error))
      return fail(Error);
    return 0;
  }
  bool IsMLIR = StringRef(InputFile).ends_with(".mlir");
  if (IsMLIR && Emit < EmitKind::MLIR) {
    WithColor::error(errs(), "encc")
        << "--emit=" << (Emit == EmitKind::AST ? "ast" : "spec")
        << " needs a .enc input\n";
    return 2;
  }

  enc::TargetOptions Target{MTriple, MCPU, O0 ? 0u : 2u};
  if (int Exit = 0; !checkCPU(Target, Exit))
    return Exit;

  std::string Problem;
  auto Buffer = readInput(Problem);
  if (!Problem.empty())
    return fail(Problem);

  bool Binary = Emit >= EmitKind::Obj;
  std::string OutPath = OutputFile.empty()
                            ? (Binary ? defaultObjectPath() : std::string("-"))
                            : OutputFile.getValue();
  // --emit=shared writes the object to a temporary file, which the link
  // reads; the library itself is the linker's output.
  std::optional<SharedOutput> Shared;
  std::optional<FileRemover> RemoveObject;
  if (Emit == EmitKind::Shared) {
    if (OutPath == "-")
      return fail("--emit=shared cannot write to stdout: name the library "
                  "with -o");
    Shared.emplace();
    Shared->Library = OutPath;
    Shared->RuntimeArchive =
        encc::findRuntimeArchive(argv[0], RuntimeLib, Problem);
    if (Shared->RuntimeArchive.empty())
      return fail(Problem);
    if (std::error_code EC =
            sys::fs::createTemporaryFile("encc-model", "o", Shared->Object))
      return fail("cannot create a temporary file: " + EC.message());
    RemoveObject.emplace(Shared->Object);
  }
  std::error_code EC;
  ToolOutputFile Out(Shared ? StringRef(Shared->Object) : StringRef(OutPath),
                     EC, Binary ? sys::fs::OF_None : sys::fs::OF_TextWithCRLF);
  if (EC)
    return fail("cannot write '" + OutPath + "': " + EC.message());

  mlir::DialectRegistry Registry;
  Registry.insert<enc::EncDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::LLVM::LLVMDialect>();
  mlir::MLIRContext Context(Registry);
  Context.loadAllAvailableDialects();
  SourceMgr SM;
  SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy((*Buffer)->getBuffer(), InputFile),
      SMLoc());
  mlir::SourceMgrDiagnosticHandler MLIRDiags(SM, &Context, errs());

  mlir::OwningOpRef<mlir::ModuleOp> Module;
  if (IsMLIR) {
    Module = mlir::parseSourceFile<mlir::ModuleOp>(SM, &Context);
    if (!Module)
      return 1;
  } else {
    int Exit;
    Module = compileEnc(Context, **Buffer, Out.os(), Exit);
    if (Exit >= 0) {
      if (Exit == 0)
        Out.keep();
      return Exit;
    }
  }
  if (Emit == EmitKind::MLIR) {
    Module->print(Out.os());
    Out.keep();
    return 0;
  }
  return compileModule(*Module, Target, Out, OutPath,
                       Shared ? &*Shared : nullptr);
}
