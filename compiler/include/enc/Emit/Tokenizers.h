//===- Tokenizers.h - Tokenizers compiled into the object -------*- C++ -*-===//
//
// An encoder's `tokenizer = "..."` setting: encc reads the file when it
// compiles, checks it against the encoder's settings, and puts its bytes
// into the object with NAME_tokenizer, NAME_tokenize and (for a pooling
// model) NAME_embed_text, which call the runtime's tokenizer
// (enc/tokenizer.h; docs/tokenizers.md#compiled-in).
//
//===----------------------------------------------------------------------===//
#ifndef ENC_EMIT_TOKENIZERS_H
#define ENC_EMIT_TOKENIZERS_H

#include "enc/lang/Diagnostics.h"
#include "enc/lang/ModelSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
class raw_ostream;
} // namespace llvm

namespace enc {

struct CompiledTokenizer {
  std::string Encoder; ///< the encoder's name, NAME
  std::string Name; ///< the file's name: errors say it, its ending the format
  std::string Written; ///< the setting as written
  std::string Bytes;   ///< the file
  /// Its compiled image (docs/tokenizers.md#compiled-in): what the object
  /// holds, its tables ready to use in place.
  std::string Image;
  int64_t MaxLen = 0;
  int64_t Truncation = 0; ///< the `truncation` setting; 0: the file's
  int64_t Width = 0;      ///< floats per output row of a pooling model
  bool Pooled = false;    ///< NAME_embed_text needs one row per text
  /// The files read for it (the tokenizer, and a vocab.txt's
  /// tokenizer_config.json), as paths: what a depfile lists.
  std::vector<std::string> Files;
};

/// Reads the tokenizer of each encoder that names one, relative to the
/// directory of `EncFile`, and checks it against the encoder: its ids below
/// vocab, its type ids below type_vocab, its truncation within max_len. Each
/// problem is an error at the setting naming both values.
std::vector<CompiledTokenizer> readTokenizers(llvm::ArrayRef<ModelSpec> Specs,
                                              llvm::StringRef EncFile,
                                              DiagnosticEngine &Diags);

/// The header's declarations of T's functions, documented.
void emitTokenizerDeclarations(const CompiledTokenizer &T,
                               llvm::raw_ostream &OS);

/// Adds T's bytes and its functions to the module that defines
/// T.Encoder's entry points.
void emitTokenizerFunctions(llvm::Module &IR, const CompiledTokenizer &T);

} // namespace enc

#endif // ENC_EMIT_TOKENIZERS_H
