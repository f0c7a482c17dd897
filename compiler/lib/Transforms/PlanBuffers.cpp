//===- PlanBuffers.cpp - One arena for every activation -------------------===//
//
// Every activation is [batch * seq, width] floats, so a buffer's place in the
// arena is `row_offset * batch * seq` floats for a compile-time row_offset,
// whatever the call's batch and sequence length. Buffers are given the lowest
// free interval of row offsets that fits (first fit) and the interval is
// freed after the buffer's last use, views (slice_columns) included. An op's
// result shares no memory with its operands (the kernels read their inputs
// while writing the result), with one exception: an op whose kernel may
// write over one operand (InPlaceWritable, EncLowering.td) takes that
// operand's place when nothing after the op reads the operand's buffer. It
// is marked `enc.in_place_of` instead of given an offset, and the two
// buffers then make one group, live until the later last use. So a
// residual stream stays in one buffer, and attention's output replaces the
// queries of a fused QKV buffer: at long lengths the arena is what the
// forward adds to the weights (docs/c-abi.md#memory).
//
// The group an `enc.pool none` output is unpacked from does not take the
// arena at all when it is as wide as the output: it lives in the caller's
// `out` (marked `enc.in_output`), which holds batch * seq_len rows of that
// width, and the pool unpacks its packed rows there in place. So the
// residual stream of an encoder that returns its hidden states costs no
// workspace.
//
// Inside the arena only valid positions have rows (the packed layout of the
// runtime's enc/kernels/layout.h), while the caller's `embeddings` input is
// padded. So when an op other than enc.add_positions (which packs as it
// adds) reads that input, it gets a buffer too, live from the start: the
// lowering packs the input into it first. Its offset is the argument's
// `enc.row_offset` (or `enc.in_output`: the input is packed into `out`).
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

/// The columns [offset, offset + width) a column view reads of its input.
std::optional<std::pair<int64_t, int64_t>> columnsOf(Value V) {
  auto Slice = V.getDefiningOp<SliceColumnsOp>();
  if (!Slice)
    return std::nullopt;
  int64_t Offset = Slice.getOffset();
  return std::make_pair(
      Offset, Offset + cast<RankedTensorType>(V.getType()).getShape().back());
}

int64_t width(Value V) {
  return cast<RankedTensorType>(V.getType()).getShape().back();
}

/// The pool none whose result the function returns alone, else null.
PoolOp unpackedOutput(func::FuncOp Func) {
  auto Return = cast<func::ReturnOp>(Func.getBody().front().getTerminator());
  if (Return.getNumOperands() != 1)
    return PoolOp();
  auto Pool = Return.getOperand(0).getDefiningOp<PoolOp>();
  if (!Pool || Pool.getMode() != PoolMode::none || !Pool->hasOneUse())
    return PoolOp();
  return Pool;
}

/// Whether `Op`'s operands other than `Target` leave `Target`'s memory
/// alone: none lives in its group (`InGroup`), or, when the kernel allows
/// it, each that does is another column view of the same buffer, disjoint
/// from Target's columns.
template <typename InGroupFn>
bool othersApart(Operation &Op, OpOperand &Target, bool ColumnSiblings,
                 InGroupFn InGroup) {
  auto TargetCols = columnsOf(Target.get());
  for (OpOperand &Other : Op.getOpOperands()) {
    if (&Other == &Target || !InGroup(Other.get()))
      continue;
    if (!ColumnSiblings || !TargetCols)
      return false;
    auto Cols = columnsOf(Other.get());
    if (!Cols ||
        Other.get().getDefiningOp<SliceColumnsOp>().getInput() !=
            Target.get().getDefiningOp<SliceColumnsOp>().getInput() ||
        (Cols->first < TargetCols->second && TargetCols->first < Cols->second))
      return false;
  }
  return true;
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

    // In-place decisions, in op order: GroupOf maps an in-place result to
    // the buffer whose memory it took.
    llvm::DenseMap<Value, Value> GroupOf;
    auto groupOf = [&](Value Buf) {
      while (Value Up = GroupOf.lookup(Buf))
        Buf = Up;
      return Buf;
    };
    llvm::DenseMap<Value, unsigned> GroupLastUse = LastUse;
    llvm::DenseMap<Operation *, unsigned> InPlace; // op -> operand number
    for (Operation &Op : Body) {
      auto Writable = dyn_cast<InPlaceWritable>(&Op);
      OpOperand *Target = Writable && writesArena(&Op)
                              ? Writable.getReplaceableOperand()
                              : nullptr;
      if (!Target)
        continue;
      Value TargetBuf = BufferOf.lookup(Target->get());
      if (!TargetBuf)
        continue; // not in the arena: the caller's input
      Value Group = groupOf(TargetBuf);
      if (GroupLastUse.lookup(Group) != Index[&Op] ||
          Target->get().getType() != Op.getResult(0).getType() ||
          !othersApart(Op, *Target, Writable.allowsColumnSiblings(),
                       [&](Value V) {
                         Value Buf = BufferOf.lookup(V);
                         return Buf && groupOf(Buf) == Group;
                       }))
        continue;
      Value Result = Op.getResult(0);
      GroupOf[Result] = Group;
      GroupLastUse[Group] =
          std::max(GroupLastUse[Group], LastUse.lookup(Result));
      InPlace[&Op] = Target->getOperandNumber();
    }

    // The group that lives in the caller's `out` instead (see the top): one
    // as wide as the output, with no column views (its width is the pool's
    // input's), and, in an encoder, no wider than the d_model floats per row
    // that NAME_forward_attention's stand-in for `out` holds.
    Value InOutput;
    if (PoolOp Pool = unpackedOutput(Func)) {
      Value Buf = BufferOf.lookup(Pool.getInput());
      Value Group = Buf ? groupOf(Buf) : Value();
      if (Group && width(Group) == width(Pool.getInput()) &&
          width(Group) == width(Pool.getResult()) &&
          (!isEncoder(Func) || width(Group) <= getEncoderFacts(Func).DModel))
        InOutput = Group;
    }

    // First fit over row offsets; Live holds the groups' first buffers.
    std::map<int64_t, std::pair<int64_t, Value>> Live; // offset -> (size, buf)
    int64_t High = 0;
    if (Packed && Packed == InOutput) {
      setInOutput(Func, cast<BlockArgument>(Packed).getArgNumber());
    } else if (Packed) {
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
        if (GroupLastUse.lookup(Buf) < I) // dead before this op reads anything
          It = Live.erase(It);
        else
          ++It;
      }
      if (auto It = InPlace.find(&Op); It != InPlace.end()) {
        setInPlaceOf(&Op, It->second);
        continue;
      }
      Value Result = Op.getResult(0);
      if (Result == InOutput) {
        setInOutput(&Op);
        continue;
      }
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
