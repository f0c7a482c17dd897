//===- Emitters.h - Object code and C header for compiled encoders -*- C++
//-*-===//
#ifndef ENC_EMIT_EMITTERS_H
#define ENC_EMIT_EMITTERS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace enc {
struct CompiledTokenizer;

struct TargetOptions {
  std::string Triple; ///< empty: the host's
  std::string CPU;    ///< empty or "native": the host's, with its features
  unsigned OptLevel = 2;
};

/// The triple Options name (the host's when empty).
std::string targetTriple(const TargetOptions &Options);

/// The CPU names the target accepts for --mcpu, sorted; empty with Error
/// set when the triple names no target encc was built with.
std::vector<std::string> targetCPUs(const TargetOptions &Options,
                                    std::string &Error);

/// Translates a module of the LLVM dialect to LLVM IR for the target
/// (triple and data layout set, optimised at OptLevel). Null on failure,
/// with the reason in `Error`.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp Module,
                                                llvm::LLVMContext &Context,
                                                const TargetOptions &Options,
                                                std::string &Error);

/// Writes assembly or an object file (position-independent) for `IR`.
bool emitMachineCode(llvm::Module &IR, const TargetOptions &Options,
                     bool Assembly, llvm::raw_pwrite_stream &OS,
                     std::string &Error);

/// The C header (docs/c-abi.md) for the planned (not yet lowered) module:
/// for each encoder its types, functions, compile-time facts, weights,
/// memory use and thread-safety, plus a header-only C++ wrapper; and the
/// functions of each compiled-in tokenizer.
std::string emitHeader(mlir::ModuleOp Planned, llvm::StringRef HeaderName,
                       llvm::StringRef SourceName,
                       llvm::ArrayRef<CompiledTokenizer> Tokenizers = {});

} // namespace enc

#endif // ENC_EMIT_EMITTERS_H
