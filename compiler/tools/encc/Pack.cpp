//===- Pack.cpp - encc pack -----------------------------------------------===//
//
// See Pack.h.
//
//===----------------------------------------------------------------------===//

#include "Pack.h"

#include "enc/library.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"

#include <dlfcn.h>

#include <vector>

using namespace llvm;

namespace {

/// A dlopen handle, closed on every path. The library stays mapped
/// (RTLD_NODELETE): its runtime's pool threads are parked in its code, and
/// unmapping it under them would crash the process at exit.
struct Library {
  void *Handle = nullptr;
  ~Library() {
    if (Handle)
      dlclose(Handle);
  }
};

} // namespace

bool encc::packWeights(const PackRequest &R, std::string &Error) {
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("encc-pack", Dir)) {
    Error = "cannot create a temporary directory: " + EC.message();
    return false;
  }
  SmallString<128> Lib(Dir);
  Lib.append("/libpack.so");
  SmallString<128> Header(Dir);
  Header.append("/libpack.h");
  FileRemover RemoveLib(Lib), RemoveHeader(Header);
  struct RemoveDir {
    SmallString<128> &Dir;
    ~RemoveDir() { sys::fs::remove(Dir); }
  } CleanUp{Dir};

  std::vector<std::string> Args = {
      R.Encc,          R.EncFile,  "--emit=shared",   "-o",
      Lib.str().str(), "--header", Header.str().str()};
  if (!R.Encoder.empty())
    Args.push_back("--encoder=" + R.Encoder);
  if (!R.RuntimeLib.empty())
    Args.push_back("--runtime-lib=" + R.RuntimeLib);
  std::vector<StringRef> Argv(Args.begin(), Args.end());
  std::string ExecError;
  // The child's diagnostics go to this process's stderr as they are.
  int Exit =
      sys::ExecuteAndWait(R.Encc, Argv, std::nullopt, {}, 0, 0, &ExecError);
  if (Exit != 0) {
    Error = ExecError.empty() ? "cannot compile '" + R.EncFile + "'"
                              : "cannot run encc: " + ExecError;
    return false;
  }

  Library L;
  L.Handle = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!L.Handle) {
    Error = std::string("cannot load the compiled library: ") + dlerror();
    return false;
  }
  auto *Encoders = reinterpret_cast<enc_library_encoders_fn *>(
      dlsym(L.Handle, "enc_library_encoders"));
  auto *LastError =
      reinterpret_cast<const char *(*)()>(dlsym(L.Handle, "enc_last_error"));
  if (!Encoders || !LastError) {
    Error = "the compiled library has no enc_library_encoders";
    return false;
  }
  int32_t Count = 0;
  const enc_encoder_info *Infos = Encoders(&Count);
  if (Count != 1) {
    Error = "'" + R.EncFile + "' holds " + std::to_string(Count) +
            " encoders: name the one to pack with --encoder";
    return false;
  }
  if (Infos[0].abi_version != ENC_LIBRARY_ABI_VERSION) {
    Error = "the compiled library's ABI version differs from encc's";
    return false;
  }
  if (enc_status S = Infos[0].pack(R.Weights.c_str(), R.Output.c_str())) {
    (void)S;
    Error = LastError();
    return false;
  }
  return true;
}
