//===- fuzz_enc_frontend.cpp - libFuzzer target for the .enc front end ----===//
//
// Arbitrary bytes through what `encc --emit=ast` and `--emit=spec` run:
// parse, sema, clang-style diagnostics (printed, to a null stream, so the
// snippet and caret code runs) and the AST and spec printers.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Diagnostics.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Printers.h"
#include "enc/lang/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  enc::SourceFile Source(
      "fuzz.enc", std::string(reinterpret_cast<const char *>(Data), Size));
  llvm::raw_null_ostream Null;
  enc::DiagnosticEngine Diags(Source, Null, /*UseColor=*/true);
  enc::ast::File AST = enc::parseFile(Source, Diags);
  if (!Diags.hasErrors()) enc::dumpAST(AST, Source, Null);
  std::vector<enc::ModelSpec> Specs = enc::resolveFile(AST, Diags);
  if (!Diags.hasErrors()) enc::printSpecJSON(Specs, Source.name(), Null);
  return 0;
}
