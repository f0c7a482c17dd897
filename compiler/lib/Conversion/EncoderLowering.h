//===- EncoderLowering.h - One encoder function, lowered --------*- C++ -*-===//
//
// The state the steps of enc-lower-to-runtime share while they turn one
// planned encoder function NAME into the C ABI of ModelABI.def:
//
//   WeightSlots.cpp     the slot of each weight and the descriptor table
//   EntryPoints.cpp     NAME_load, NAME_free, NAME_workspace_bytes, and
//                       NAME_forward and NAME_forward_attention, which call
//                       one body
//   ForwardPrologue.cpp the body up to the first op: checks, the input,
//                       the workspace, the slots and constants as views
//   OpLowerings.cpp     one kernel call per op
//   LibraryRegistry.cpp enc_library_encoders, for a shared library
//
// Activations live in one arena (`ws + row_offset * batch * seq` floats) in
// the runtime's packed layout (enc/kernels/layout.h): row-wise kernels run
// over enc_valid_rows() rows, the embedding kernels pack the padded input
// and enc_pool unpacks it.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_CONVERSION_ENCODERLOWERING_H
#define ENC_CONVERSION_ENCODERLOWERING_H

#include "RuntimeBuilder.h"

#include "enc/ABI/ModelABI.h"

#include "enc/Dialect/EncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <vector>

namespace enc {

/// One slot of a loaded model: a weight, or weights concatenated at load.
struct Slot {
  enc_slot_kind Kind = ENC_SLOT_TABLE;
  llvm::SmallVector<WeightOp, 3> Parts;
  int64_t MinFileRows = 0;
  mlir::Operation *Op = nullptr; ///< the weight or concat_weights op
};

/// A tensor as the kernels see it: a pointer and a row stride in floats.
struct View {
  mlir::Value Ptr;
  int64_t Ld = 0;
};

struct EncoderLowering {
  EncoderLowering(mlir::ModuleOp Module, mlir::func::FuncOp Func)
      : Func(Func), B(Module) {}

  mlir::func::FuncOp Func;
  RuntimeBuilder B;

  /// The symbol NAME<Suffix>: "_forward", "_weights", ...
  std::string symbol(llvm::StringRef Suffix) {
    return (Func.getName() + Suffix).str();
  }
  /// A fresh symbol for a private string: NAME_str0, NAME_str1, ...
  std::string stringSymbol() {
    return symbol("_str" + std::to_string(Strings++));
  }
  unsigned Strings = 0;

  // WeightSlots.cpp
  std::vector<Slot> Slots;
  mlir::LLVM::GlobalOp Descriptors, Info;
  /// The arith.constant tables, in walk order (deterministic output).
  std::vector<std::pair<mlir::Operation *, mlir::LLVM::GlobalOp>> Constants;

  // EntryPoints.cpp: NAME_<suffix> -> its function.
  llvm::StringMap<mlir::LLVM::LLVMFuncOp> EntryPoints;

  // ForwardPrologue.cpp, for OpLowerings.cpp: the body both forward entry
  // points call, NAME.forward_body(model, in, out, probs).
  mlir::LLVM::LLVMFuncOp Body;
  llvm::DenseMap<mlir::Value, View> Views;
  mlir::Value Model, Input, Out;
  mlir::Value Probs;      ///< NULL from NAME_forward
  int64_t Attentions = 0; ///< enc.attention ops lowered so far: the block
  mlir::Value Batch, SeqLen;
  mlir::Value Rows;      ///< batch * seq_len: what the arena is sized by
  mlir::Value ValidRows; ///< what row-wise kernels run over
  mlir::Value Lengths;   ///< enc_input's lengths
  mlir::Value Workspace;
  mlir::Value AttentionParams; ///< an enc_attention_params in the frame

  View view(mlir::Value V) const { return Views.lookup(V); }
  mlir::Value ptrOrNull(mlir::Value V, mlir::Location L) {
    return V ? view(V).Ptr : B.null(L);
  }
  /// The arena buffer the planner gave `Op`'s result.
  View resultView(mlir::Operation *Op);

  /// What the lowering of an op with one input starts from: the builder,
  /// the op's location, its result's view and its input's
  /// (`auto [B, L, Y, X] = E.unaryOp(Op);`).
  struct UnaryLowering {
    RuntimeBuilder &B;
    mlir::Location L;
    View Y, X;
  };
  template <class OpT> UnaryLowering unaryOp(OpT Op) {
    return {B, Op.getLoc(), resultView(Op), view(Op.getInput())};
  }
};

/// What the registry of a shared library says about one lowered encoder.
struct RegistryEntry {
  std::string Name;
  ModelFacts Facts;
  mlir::Location Loc;
};

// The steps, in the order LowerToRuntime.cpp runs them.
mlir::LogicalResult collectSlots(EncoderLowering &E);
void emitWeightTables(EncoderLowering &E);
void declareEntryPoints(EncoderLowering &E);
mlir::LogicalResult emitForwardPrologue(EncoderLowering &E);
mlir::LogicalResult emitForwardBody(EncoderLowering &E);
void emitEntryPointBodies(EncoderLowering &E);
/// LibraryRegistry.cpp: enc_library_encoders over the lowered encoders.
mlir::LogicalResult emitLibraryRegistry(mlir::ModuleOp Module,
                                        llvm::ArrayRef<RegistryEntry> Entries);

} // namespace enc

#endif // ENC_CONVERSION_ENCODERLOWERING_H
