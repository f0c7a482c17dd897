//===- SharedLibrary.h - encc --emit=shared: object + runtime -> .so -*- C++
//-*-===//
//
// A shared library holds the file's encoders and the runtime, and depends on
// nothing beyond libc, libstdc++ and libm (docs/c-abi.md#shared-libraries):
// encc writes the object to a temporary file and links it with the runtime
// archive (position-independent) through the system's C++ compiler driver
// (`$CXX`, else `c++`), exporting only the encoders' entry points, the
// registry (enc/library.h) and the runtime's public C API.
//
//===----------------------------------------------------------------------===//
#ifndef ENCC_SHAREDLIBRARY_H
#define ENCC_SHAREDLIBRARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace encc {

/// The runtime archive to link: `Option` (--runtime-lib) when given, else
/// the installed one relative to encc's own executable (PREFIX/bin/encc ->
/// PREFIX/lib/libenc_runtime.a), else the build tree's. Empty, with Error
/// saying where it looked, when there is none.
std::string findRuntimeArchive(const char *Argv0, llvm::StringRef Option,
                               std::string &Error);

/// The symbols the library exports: every function `IR` defines with
/// external linkage (the encoders' entry points and enc_library_encoders)
/// and the runtime's public C API.
std::vector<std::string> exportedSymbols(const llvm::Module &IR);

/// The archives a compiled-in tokenizer needs besides the runtime's: the
/// tokenizer's, beside `RuntimeArchive`, and utf8proc. Empty, with Error,
/// when the tokenizer's is not there.
std::vector<std::string> tokenizerArchives(llvm::StringRef RuntimeArchive,
                                           std::string &Error);

/// Links `Object`, `Before` (archives that use the runtime), `RuntimeArchive`
/// and `After` into the shared library `Output`, exporting `Exports` and
/// nothing else. False, with Error, when there is no compiler driver or the
/// link fails (its own messages go to stderr).
bool linkSharedLibrary(llvm::StringRef Object, llvm::StringRef RuntimeArchive,
                       llvm::ArrayRef<std::string> Before,
                       llvm::ArrayRef<std::string> After,
                       llvm::ArrayRef<std::string> Exports,
                       llvm::StringRef Output, std::string &Error);

} // namespace encc

#endif // ENCC_SHAREDLIBRARY_H
