//===- Passes.td - The enc dialect's passes ----------------*- tablegen -*-===//
#ifndef ENC_PASSES
#define ENC_PASSES

include "mlir/Pass/PassBase.td"

def EncFoldPositional : Pass<"enc-fold-positional", "mlir::ModuleOp"> {
  let summary = "Compute positional tables at compile time";
  let description = [{
    Replaces every `enc.positional_table` with an `arith.constant`: the
    sinusoidal table, RoPE's cos and sin tables, ALiBi's slopes (Press et
    al.'s get_slopes) and T5's bucket of every relative position, computed in
    double precision and rounded once to f32. Lowering places the constants in
    the object's read-only data.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def EncFuseProjections : Pass<"enc-fuse-projections", "mlir::func::FuncOp"> {
  let summary = "Fuse the Q, K and V projections into one GEMM";
  let description = [{
    Three `enc.linear` ops that read the same input and feed one
    `enc.attention` become one linear over `enc.concat_weights` of their
    weights (and biases), packed once at load, followed by three
    `enc.slice_columns` views.
  }];
}

def EncFuseEpilogues : Pass<"enc-fuse-epilogues", "mlir::func::FuncOp"> {
  let summary = "Fold activations and residual adds into the GEMM that feeds them";
  let description = [{
    `enc.activation` of an `enc.linear` result with no other use becomes the
    linear's activation; `enc.add` of a linear result (used only there) and
    another value becomes the linear's residual; `enc.mul` of a gated FFN's
    two projections (the gate with its activation, the up projection plain,
    both reading the same input and used only there) becomes one
    `enc.gated_linear` over `enc.concat_weights` of their weights (and
    biases). Each removes a pass over memory.
  }];
}

def EncFuseNorms : Pass<"enc-fuse-norms", "mlir::func::FuncOp"> {
  let summary = "Fold a pre-norm into the projection that alone reads it";
  let description = [{
    An `enc.norm` whose only use is the input of an `enc.linear` or
    `enc.gated_linear` (a pre-norm block's QKV or feed-forward projection)
    becomes that op's `norm` prologue. The runtime then norms and multiplies
    chunks of rows (enc/kernels/norm_gemm.h), with the same results, and the
    normed rows take no arena memory (docs/c-abi.md#memory).
  }];
}

def EncChunkQueries : Pass<"enc-chunk-queries", "mlir::func::FuncOp"> {
  let summary = "Run attention sub-layers a chunk of query rows at a time";
  let description = [{
    A fused QKV `enc.linear` (with or without its norm prologue), the
    `enc.attention` of its three slices and the `enc.linear` that projects
    the attention's output and adds it to the QKV projection's input become
    one `enc.attention_block`. The runtime projects the keys and values of
    every row into a per-thread scratch and the queries of a chunk of rows
    after another, or, for long inputs, a group of heads at a time
    (enc/kernels/attention_block.h), so only the input takes arena memory
    (docs/c-abi.md#memory).
  }];
}

def EncChunkFfn : Pass<"enc-chunk-ffn", "mlir::func::FuncOp"> {
  let summary = "Run feed-forward sub-layers a chunk of rows at a time";
  let description = [{
    An `enc.linear` or `enc.gated_linear` (with or without its norm
    prologue) read only by an `enc.linear` that projects it back and adds
    the result to the first one's input becomes one `enc.ffn_block`. The
    runtime computes the hidden rows of a chunk of rows after another, so
    they never take arena memory: for BERT-base 768 floats per token (x)
    instead of 768 + 3,072 (docs/c-abi.md#memory).
  }];
}

def EncPlanBuffers : Pass<"enc-plan-buffers", "mlir::func::FuncOp"> {
  let summary = "Place every activation in one arena, reusing dead buffers";
  let description = [{
    Every activation is a [batch * seq, width] buffer, so its offset in the
    arena is a compile-time number of floats per row times batch * seq. The
    pass walks the block in order, frees a buffer after its last use and
    gives each result the lowest free interval that fits (first fit). It
    records `enc.row_offset` on each op that writes a buffer and
    `enc.arena_row_floats` on the function: the workspace holds
    `4 * arena_row_floats * batch * seq_len` bytes.
  }];
}

def EncLowerToRuntime : Pass<"enc-lower-to-runtime", "mlir::ModuleOp"> {
  let summary = "Lower a planned encoder to calls into the runtime's kernels";
  let description = [{
    Rewrites each planned encoder function into `NAME_forward`, a
    straight-line sequence of calls into the runtime's kernel ABI
    (enc/kernels.h) on pointers into the arena, together with `NAME_load`,
    `NAME_free` and `NAME_workspace_bytes`, all in the LLVM dialect. Weight
    descriptors and positional constants become read-only globals.

    With `library`, the module also defines `enc_library_encoders`
    (enc/library.h): a constant table describing each encoder, with
    pointers to its entry points, which a shared library exports so that
    one loader serves every model.
  }];
  let options = [
    Option<"library", "library", "bool", /*default=*/"false",
           "Also define enc_library_encoders, the table of the module's "
           "encoders (for a shared library)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // ENC_PASSES
