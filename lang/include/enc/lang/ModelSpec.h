//===- ModelSpec.h - A resolved encoder, as the compiler sees it -*- C++ -*-===//
//
// Every setting of spec section 4 with inheritance applied, expressions
// evaluated, defaults filled in and every rule checked. Each setting remembers
// where its value came from so that the compiler can locate its ops in the
// .enc file.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_MODELSPEC_H
#define ENC_LANG_MODELSPEC_H

#include "enc/lang/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>
#include <string>

namespace enc {

enum class PositionalKind { None, Sinusoidal, Learned, Rope, Alibi, Relative };
enum class RopeStyle { Halves, Interleaved };
enum class NormLayout { Post, Pre };
enum class NormType { LayerNorm, RMSNorm };
enum class Activation { Relu, Gelu, GeluTanh };
enum class Pooling { None, Cls, Mean };

llvm::StringRef toString(PositionalKind K);
llvm::StringRef toString(RopeStyle S);
llvm::StringRef toString(NormLayout L);
llvm::StringRef toString(NormType T);
llvm::StringRef toString(Activation A);
llvm::StringRef toString(Pooling P);

/// Where a setting's value comes from.
struct SettingOrigin {
  enum Kind { Written, Inherited, Default } How = Default;
  SourceRange Range; ///< the value expression, or the encoder's name
  LineCol Loc;
};

struct ModelSpec {
  std::string Name;
  std::string Base; ///< empty when the encoder inherits nothing
  std::string File;
  SourceRange NameRange;
  LineCol Loc;

  int64_t DModel = 0;
  int64_t Heads = 0;
  int64_t DK = 0; ///< d_model / heads
  int64_t DFF = 0;
  int64_t Blocks = 6;
  int64_t MaxLen = 512;
  int64_t Vocab = 0;
  int64_t TypeVocab = 0;

  PositionalKind Positional = PositionalKind::Sinusoidal;
  double RopeBase = 10000.0;
  RopeStyle Rope = RopeStyle::Halves;
  int64_t RelBuckets = 32;
  int64_t RelMaxDistance = 128;

  NormLayout Norm = NormLayout::Post;
  NormType NormKind = NormType::LayerNorm;
  double Eps = 1e-5;
  Activation Act = Activation::Relu;
  bool Bias = true;
  double EmbedScale = 1.0;
  bool EmbedNorm = false;
  bool FinalNorm = false;
  Pooling Pool = Pooling::None;

  /// Where each setting's value comes from, in the order of allSettings().
  std::vector<SettingOrigin> Origins;
  /// The origin of the setting named `Key` (d_model, positional, ...).
  const SettingOrigin &origin(llvm::StringRef Key) const;
};

} // namespace enc

#endif // ENC_LANG_MODELSPEC_H
