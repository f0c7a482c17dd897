//===- ModelABI.cpp - The table of what encc emits per encoder ------------===//

#include "enc/ABI/ModelABI.h"

#include "enc/ABI/RuntimeABI.h"
#include "enc/ABI/RuntimeEnums.h"
#include "enc/Dialect/EncOps.h"
#include "enc/lang/Diagnostics.h"
#include "enc/lang/ModelSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <type_traits>

using namespace enc;

namespace {
/// Stands for the encoder's own struct in ModelABI.def's prototypes.
struct NAME;

/// A prototype with `NAME *` read as the runtime's `void *`.
template <typename T> struct AsRuntime {
  using type = T;
};
template <> struct AsRuntime<NAME *> {
  using type = void *;
};
template <> struct AsRuntime<NAME **> {
  using type = void **;
};
template <typename R, typename... A> struct AsRuntime<R(A...)> {
  using type = R(typename AsRuntime<A>::type...);
};

// Each row's prototype is its typedef in enc/runtime.h, but for NAME.
#define ENC_MODEL_FUNCTION(Suffix, Typedef, Return, Params, Doc)               \
  static_assert(std::is_same_v<AsRuntime<Return Params>::type, Typedef>,       \
                "ModelABI.def: NAME_" #Suffix " is declared differently from " \
                "its typedef " #Typedef " in enc/runtime.h");
#include "enc/ABI/ModelABI.def"

// A shared library's registry has a pointer of that type per entry point,
// and an int32_t per fact it lists (enc_encoder_info, enc/library.h).
#define ENC_MODEL_FUNCTION(Suffix, Typedef, Return, Params, Doc)               \
  static_assert(std::is_same_v<decltype(enc_encoder_info::Suffix), Typedef *>, \
                "enc/library.h: enc_encoder_info::" #Suffix                    \
                " is not a " #Typedef " pointer");
#define ENC_MODEL_INFO(Field, Fact)                                            \
  static_assert(std::is_same_v<decltype(enc_encoder_info::Field), int32_t>,    \
                "enc/library.h: enc_encoder_info::" #Field                     \
                " is not an int32_t");
#include "enc/ABI/ModelABI.def"

const ModelFunction Functions[] = {
#define ENC_MODEL_FUNCTION(Suffix, Typedef, Return, Params, Doc)               \
  {ModelEntry::Suffix,                                                         \
   #Suffix,                                                                    \
   &abi::LLVMType<Typedef>::get,                                               \
   #Return,                                                                    \
   #Params,                                                                    \
   Doc},
#include "enc/ABI/ModelABI.def"
};

const ModelMacro Macros[] = {
#define ENC_MODEL_MACRO(Suffix, Fact, Doc) {#Suffix, &ModelFacts::Fact, Doc},
#include "enc/ABI/ModelABI.def"
};
const ModelInfoField InfoFields[] = {
#define ENC_MODEL_INFO(Field, Fact) {#Field, &ModelFacts::Fact},
#include "enc/ABI/ModelABI.def"
};
} // namespace

std::string ModelFunction::symbol(llvm::StringRef Encoder) const {
  return (Encoder + "_" + Suffix).str();
}

std::string ModelFunction::declaration(llvm::StringRef Encoder) const {
  auto IsIdent = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  // NAME as a whole word only: "(NAME *model" -> "(bert *model".
  std::string Out = std::string(Return) + " " + symbol(Encoder);
  llvm::StringRef P = Params;
  for (size_t I = 0; I < P.size();) {
    if (P.substr(I).starts_with("NAME") && (I == 0 || !IsIdent(P[I - 1])) &&
        (I + 4 == P.size() || !IsIdent(P[I + 4]))) {
      Out += Encoder;
      I += 4;
    } else {
      Out += P[I++];
    }
  }
  return Out;
}

std::string ModelMacro::symbol(llvm::StringRef Encoder) const {
  return (Encoder + "_" + Suffix).str();
}

llvm::ArrayRef<ModelFunction> enc::modelFunctions() { return Functions; }
llvm::ArrayRef<ModelMacro> enc::modelMacros() { return Macros; }
llvm::ArrayRef<ModelInfoField> enc::modelInfoFields() { return InfoFields; }

const ModelFunction &enc::modelFunction(llvm::StringRef Suffix) {
  for (const ModelFunction &F : Functions)
    if (Suffix == F.Suffix)
      return F;
  llvm_unreachable("no such entry point in ModelABI.def");
}

ModelFacts enc::modelFacts(mlir::Operation *Func) {
  ModelFacts F;
  static_cast<EncoderFacts &>(F) = getEncoderFacts(Func);
  // The output is what the function returns: its type says whether it is
  // pooled and how wide a row is, the op that makes it the rest.
  Func->walk([&](mlir::func::ReturnOp R) {
    if (R.getNumOperands() != 1)
      return;
    auto T = llvm::cast<mlir::RankedTensorType>(R.getOperand(0).getType());
    F.Pooled = T.getRank() == 2;
    F.OutDim = T.getShape().back();
    llvm::TypeSwitch<mlir::Operation *>(R.getOperand(0).getDefiningOp())
        .Case([&](PoolOp P) {
          F.Pooling = abi::toRuntime(P.getMode());
          F.Normalize = P.getNormalize() ? 1 : 0;
        })
        .Case([&](ClassifierOp C) {
          F.Head = ENC_HEAD_CLASSIFIER;
          F.Pooling = abi::toRuntime(C.getMode());
          F.Scores = abi::toRuntime(C.getScores());
        })
        .Case([&](DenseHeadOp H) {
          F.Head = ENC_HEAD_DENSE;
          F.Pooling = abi::toRuntime(H.getMode());
          F.Normalize = H.getNormalize() ? 1 : 0;
        })
        .Case([&](ColbertOp) {
          F.Head = ENC_HEAD_COLBERT;
          F.Normalize = 1;
        })
        .Case([&](MlmOp) { F.Head = ENC_HEAD_MLM; })
        .Case([&](SpladeOp) {
          F.Head = ENC_HEAD_SPLADE;
          F.Pooling = ENC_POOL_MAX;
        });
  });
  // Every block's attention has the same width: heads * head_dim columns.
  Func->walk([&](mlir::Operation *Op) {
    std::optional<AttentionFacts> A = attentionFacts(Op);
    if (!A)
      return mlir::WalkResult::advance();
    F.HeadDim = A->Width / A->Heads;
    return mlir::WalkResult::interrupt();
  });
  return F;
}

void enc::checkGeneratedNames(llvm::ArrayRef<ModelSpec> Specs,
                              DiagnosticEngine &Diags) {
  llvm::StringMap<const ModelSpec *> ByName;
  for (const ModelSpec &S : Specs)
    ByName.try_emplace(S.Name, &S);
  std::vector<std::string> Suffixes;
  for (const ModelFunction &F : Functions)
    Suffixes.push_back(std::string("_") + F.Suffix);
  for (const ModelMacro &M : Macros)
    Suffixes.push_back(std::string("_") + M.Suffix);
  for (const ModelSpec &S : Specs) {
    llvm::StringRef N(S.Name);
    for (const std::string &Suffix : Suffixes) {
      if (!N.ends_with(Suffix))
        continue;
      auto Owner = ByName.find(N.drop_back(Suffix.size()));
      if (Owner == ByName.end())
        continue;
      const ModelSpec &Other = *Owner->second;
      Diags.error(S.NameRange, "encoder name '" + S.Name +
                                   "' is also the name '" + S.Name +
                                   "' that encoder '" + Other.Name +
                                   "' defines in the generated C header");
      Diags.note(Other.NameRange, "'" + Other.Name + "' is declared here");
      break;
    }
  }
}
