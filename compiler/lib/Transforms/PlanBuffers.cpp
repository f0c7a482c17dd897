//===- PlanBuffers.cpp - One arena for every activation -------------------===//
//
// Every activation is [batch * seq, width] floats, so a buffer's place in the
// arena is `row_offset * batch * seq` floats for a compile-time row_offset,
// whatever the call's batch and sequence length. Buffers are given the lowest
// free interval of row offsets that fits (first fit) and the interval is
// freed after the buffer's last use, views (slice_columns) included. An op's
// result never shares memory with its own operands: the kernels read their
// inputs while writing the result.
//
// Inside the arena only valid positions have rows (the packed layout of the
// runtime's enc/kernels/layout.h), while the caller's `embeddings` input is
// padded. So when an op other than enc.add_positions (which packs as it
// adds) reads that input, it gets a buffer too, live from the start: the
// lowering packs the input into it first. Its offset is the argument's
// `enc.row_offset`.
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncOps.h"
#include "enc/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

#include <map>

namespace enc {
#define GEN_PASS_DEF_ENCPLANBUFFERS
#include "enc/Transforms/Passes.h.inc"
} // namespace enc

using namespace mlir;
using namespace enc;

namespace {
/// Buffers start at multiples of 16 floats per row: with a multiple of 16
/// floats each 4-byte row offset keeps 64-byte alignment.
constexpr int64_t RowAlign = 16;

int64_t alignUp(int64_t V) { return (V + RowAlign - 1) / RowAlign * RowAlign; }

/// Ops whose result is a fresh activation written into the arena
/// (Enc_WritesArena, EncLowering.td).
bool writesArena(Operation *Op) {
  return Op->hasTrait<enc::OpTrait::WritesArena>();
}

/// The `embeddings` argument when an op that cannot read the padded layout
/// reads it, else null.
Value packedInput(func::FuncOp Func) {
  for (BlockArgument Arg : Func.getArguments()) {
    if (getInputField(Func, Arg.getArgNumber()) != "embeddings")
      continue;
    for (Operation *User : Arg.getUsers())
      if (!isa<AddPositionsOp>(User))
        return Arg;
  }
  return Value();
}

struct PlanBuffersPass : enc::impl::EncPlanBuffersBase<PlanBuffersPass> {
  void runOnOperation() override {
    func::FuncOp Func = getOperation();
    if (Func.isExternal())
      return;
    if (!Func.getBody().hasOneBlock()) {
      Func.emitError("enc-plan-buffers expects a single-block function");
      return signalPassFailure();
    }
    Block &Body = Func.getBody().front();

    // Index ops; a view's uses count as uses of the buffer it views.
    llvm::DenseMap<Operation *, unsigned> Index;
    for (Operation &Op : Body)
      Index[&Op] = Index.size();
    llvm::DenseMap<Value, Value> BufferOf; // value -> buffer it lives in
    llvm::DenseMap<Value, unsigned> LastUse;
    Value Packed = packedInput(Func);
    if (Packed)
      BufferOf[Packed] = Packed;
    for (Operation &Op : Body) {
      if (writesArena(&Op))
        BufferOf[Op.getResult(0)] = Op.getResult(0);
      else if (auto Slice = dyn_cast<SliceColumnsOp>(Op))
        if (Value Base = BufferOf.lookup(Slice.getInput()))
          BufferOf[Slice.getResult()] = Base;
      for (Value Operand : Op.getOperands())
        if (Value Buf = BufferOf.lookup(Operand))
          LastUse[Buf] = std::max(LastUse.lookup(Buf), Index[&Op]);
    }

    // First fit over row offsets.
    std::map<int64_t, std::pair<int64_t, Value>> Live; // offset -> (size, buf)
    int64_t High = 0;
    if (Packed) {
      High =
          alignUp(cast<RankedTensorType>(Packed.getType()).getShape().back());
      Live[0] = {High, Packed};
      setRowOffset(Func, cast<BlockArgument>(Packed).getArgNumber(), 0);
    }
    for (Operation &Op : Body) {
      unsigned I = Index[&Op];
      if (!writesArena(&Op))
        continue;
      for (auto It = Live.begin(); It != Live.end();) {
        Value Buf = It->second.second;
        if (LastUse.lookup(Buf) < I) // dead before this op reads anything
          It = Live.erase(It);
        else
          ++It;
      }
      Value Result = Op.getResult(0);
      int64_t Size =
          alignUp(cast<RankedTensorType>(Result.getType()).getShape().back());
      int64_t Offset = 0;
      for (auto &[Start, Entry] : Live) {
        if (Start - Offset >= Size)
          break;
        Offset = std::max(Offset, Start + Entry.first);
      }
      Live[Offset] = {Size, Result};
      High = std::max(High, Offset + Size);
      setRowOffset(&Op, Offset);
    }
    setArenaRowFloats(Func, High);
  }
};
} // namespace
