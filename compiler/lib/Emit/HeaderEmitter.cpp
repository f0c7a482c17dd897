//===- HeaderEmitter.cpp - The C header of a compiled .enc file -----------===//
//
// Like tfcompile's and Halide's generated headers, the header documents its
// own signature, the weights it reads, its memory use and its thread-safety,
// and wraps the C ABI in a header-only C++ class.
//
//===----------------------------------------------------------------------===//

#include "enc/Emit/Emitters.h"
#include "enc/Emit/Tokenizers.h"

#include "enc/ABI/ModelABI.h"
#include "enc/ABI/RuntimeEnums.h"
#include "enc/library.h"
#include "enc/Dialect/EncOps.h"
#include "enc/kernels/attention_block.h"
#include "enc/kernels/ffn_block.h"
#include "enc/checkpoint_names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace enc;

namespace {
std::string shapeString(ArrayRef<int64_t> Shape) {
  std::string S = "[";
  for (auto [I, D] : llvm::enumerate(Shape))
    S += (I ? ", " : "") + std::to_string(D);
  return S + "]";
}

/// The tensors the weights file must hold, as the header lists them: each
/// weight's name in the checkpoint layout (families.def), a fused
/// tensor once with its whole shape.
struct FileTensor {
  std::string Name;
  SmallVector<int64_t> Shape;
  bool ExtraRows;
};

SmallVector<FileTensor> fileTensors(enc_checkpoint Layout,
                                    ArrayRef<WeightOp> Weights) {
  bool Gated = llvm::any_of(Weights, [](WeightOp W) {
    return checkpoint::IsGateName(W.getName().str());
  });
  SmallVector<FileTensor> Out;
  llvm::StringSet<> Seen;
  for (WeightOp W : Weights) {
    std::vector<checkpoint::FileRef> Refs =
        checkpoint::FileNames(Layout, W.getName().str(), Gated);
    // The import refused a name the layout lacks.
    checkpoint::FileRef Ref =
        Refs.empty() ? checkpoint::FileRef{W.getName().str()} : Refs.front();
    if (!Seen.insert(Ref.name).second)
      continue;
    SmallVector<int64_t> Shape(W.getType().getShape());
    Shape[0] *= Ref.parts;
    Out.push_back({Ref.name, Shape, W.getAllowExtraRows()});
  }
  return Out;
}

/// Block indices as "0, 3, 6", the first dozen of them then "...".
std::string blockList(ArrayRef<int64_t> Blocks) {
  std::string S;
  for (auto [I, N] : llvm::enumerate(Blocks)) {
    if (I == 12)
      return S + ", ...";
    S += (I ? ", " : "") + std::to_string(N);
  }
  return S;
}

/// The attention of the blocks: heads, their width, the scale, and which
/// blocks attend within a window (docs/numerics.md#attention).
void describeAttention(func::FuncOp F, llvm::raw_ostream &OS) {
  SmallVector<AttentionFacts> Attns;
  F.walk([&](Operation *Op) {
    if (std::optional<AttentionFacts> A = attentionFacts(Op))
      Attns.push_back(*A);
  });
  if (Attns.empty())
    return;
  const AttentionFacts &First = Attns.front();
  int64_t Width = First.Width, Heads = First.Heads;
  OS << " *   attention: " << Heads << " heads of d_k " << Width / Heads << " ("
     << Width << " wide), scores scaled by " << llvm::format("%g", First.Scale)
     << "; ";
  SmallVector<int64_t> Local, Global;
  int64_t Window = 0;
  for (auto [N, A] : llvm::enumerate(Attns)) {
    (A.Window ? Local : Global).push_back(N);
    Window = std::max<int64_t>(Window, A.Window);
  }
  if (Local.empty())
    OS << "every block global\n";
  else
    OS << "blocks " << blockList(Local) << " local (window " << Window
       << ": query i sees keys j with |i - j| <= " << Window / 2 << ")"
       << (Global.empty() ? "" : ", blocks " + blockList(Global) + " global")
       << "\n";
}

/// Whether W is (a part of) a linear layer's weight matrix: the weights the
/// precision setting applies to (its users' ReadsWeights).
bool isLinearWeight(WeightOp W) {
  auto IsMatrixOf = [](OpOperand &Use) {
    auto Reader = dyn_cast<ReadsWeights>(Use.getOwner());
    if (!Reader)
      return false;
    switch (Reader.getWeightRole(Use.getOperandNumber())) {
    case WeightRole::Matrix:
    case WeightRole::GatedMatrix:
      return true;
    case WeightRole::Vector:
    case WeightRole::Table:
    case WeightRole::Part:
      return false;
    }
    llvm_unreachable("every WeightRole is handled above");
  };
  for (OpOperand &Use : W->getUses()) {
    if (IsMatrixOf(Use))
      return true;
    if (auto C = dyn_cast<ConcatWeightsOp>(Use.getOwner()))
      if (llvm::any_of(C->getUses(), IsMatrixOf))
        return true;
  }
  return false;
}

/// Bytes per element of a linear layer's weight, and per row beside them
/// (int8's scale), in precision P.
std::pair<int64_t, int64_t> linearBytes(WeightPrecision P) {
  switch (P) {
  case WeightPrecision::fp32:
    return {4, 0};
  case WeightPrecision::int8:
    return {1, 4};
  case WeightPrecision::bf16:
    return {2, 0};
  }
  return {4, 0};
}

/// What precision P means for the numbers an encoder computes, and the error
/// to expect (docs/numerics.md#precision).
void describePrecision(WeightPrecision P, llvm::raw_ostream &OS) {
  OS << " * Precision: " << stringifyWeightPrecision(P)
     << " (docs/numerics.md#precision).\n";
  switch (P) {
  case WeightPrecision::fp32:
    OS << " *   Weights and arithmetic in fp32; each output element is within\n"
       << " *   docs/numerics.md's per-element bound.\n";
    return;
  case WeightPrecision::int8:
    OS << " *   The linear layers' weights are int8 with one fp32 scale per "
          "output row\n"
       << " *   (max |w| / 127); each row of their input is quantized the same "
          "way at\n"
       << " *   every call, and products accumulate exactly in int32. "
          "Attention, norms,\n"
       << " *   softmax and embeddings stay fp32. Expected error: each output "
          "vector has\n"
       << " *   a cosine similarity >= 0.999 with the exact one (the fp32 "
          "per-element\n"
       << " *   bound does not apply).\n";
    return;
  case WeightPrecision::bf16:
    OS << " *   The linear layers' weights are rounded to bf16 at load (8 "
          "significant\n"
       << " *   bits); products accumulate in fp32. Attention, norms, softmax "
          "and\n"
       << " *   embeddings stay fp32. Expected error: each output vector has a "
          "cosine\n"
       << " *   similarity >= 0.9999 with the exact one (the fp32 per-element "
          "bound does\n"
       << " *   not apply).\n"
       << " *   Speed depends on the CPU that runs it. With AMX-BF16 the "
          "GEMMs use\n"
       << " *   tdpbf16ps tiles, on AMD CPUs with AVX512_BF16 vdpbf16ps (their "
          "inputs\n"
       << " *   rounded to bf16 too). Elsewhere (Intel without AMX, AVX2) the "
          "weights are\n"
       << " *   widened to fp32 in the GEMM: half the weight memory and "
          "traffic, fp32\n"
       << " *   arithmetic, so no faster than fp32 where the GEMM is "
          "compute-bound.\n";
    return;
  }
}

void emitEncoder(func::FuncOp F, llvm::raw_ostream &OS) {
  std::string N = F.getName().str();
  ModelFacts Facts = modelFacts(F);
  int64_t D = Facts.DModel, MaxLen = Facts.MaxLen, OutDim = Facts.OutDim;
  int64_t Vocab = Facts.Vocab, TypeVocab = Facts.TypeVocab;
  int64_t Arena = getArenaRowFloats(F).value_or(0);
  // The output's facts (modelFacts); the classifier op for its scores.
  const PoolMode Mode =
      abi::fromRuntime(static_cast<enc_pool_mode>(Facts.Pooling));
  const bool Normalized = Facts.Normalize != 0;
  const bool Colbert = Facts.Head == ENC_HEAD_COLBERT;
  const bool Mlm = Facts.Head == ENC_HEAD_MLM;
  const bool Splade = Facts.Head == ENC_HEAD_SPLADE;
  ClassifierOp Classifier;
  F.walk([&](ClassifierOp C) { Classifier = C; });
  bool Gated = false;
  // Unfused (-O0) a gated FFN is a product; fused, one gated_linear.
  F.walk([&](Operation *Op) {
    auto Block = dyn_cast<FfnBlockOp>(Op);
    Gated |= isa<MulOp, GatedLinearOp>(Op) || (Block && Block.getGated());
  });
  bool Pooled = Facts.Pooled;

  std::string Where = "?";
  if (auto L = dyn_cast<FileLineColLoc>(F.getLoc()))
    Where = llvm::formatv("{0}:{1}:{2}", L.getFilename().getValue(),
                          L.getLine(), L.getColumn());

  SmallVector<WeightOp> Weights;
  const WeightPrecision Precision = getPrecision(F);
  // Plain locals: a lambda may not capture structured bindings in C++17.
  const std::pair<int64_t, int64_t> Bytes = linearBytes(Precision);
  const int64_t ElementBytes = Bytes.first, RowBytes = Bytes.second;
  int64_t LinearFloats = 0, LinearBytes = 0, OtherFloats = 0;
  F.walk([&](WeightOp W) {
    Weights.push_back(W);
    RankedTensorType T = W.getType();
    if (isLinearWeight(W)) {
      LinearFloats += T.getNumElements();
      LinearBytes +=
          T.getNumElements() * ElementBytes + T.getShape()[0] * RowBytes;
    } else {
      OtherFloats += T.getNumElements();
    }
  });

  OS << "/* "
        "------------------------------------------------------------------\n"
     << " * encoder " << N << " (" << Where << ")\n"
     << " *   d_model " << D << ", heads " << Facts.Heads << ", d_ff "
     << Facts.DFF << ", blocks " << Facts.Blocks << ", max_len " << MaxLen
     << ", pooling " << stringifyPoolMode(Mode) << "\n";
  describeAttention(F, OS);
  OS << " *   feed-forward: "
     << (Gated ? "gated, act(x Wgate + bgate) * (x Wup + bup), then down"
               : "dense, act(x Wup + bup), then down")
     << "\n"
     << " *\n"
     << " * Input (enc_input): batch >= 1, 1 <= seq_len <= " << MaxLen << ";\n";
  if (Vocab > 0)
    OS << " *   tokens [batch, seq_len] ids in 0.." << Vocab - 1
       << " (every id is checked, padding included)";
  else
    OS << " *   embeddings [batch, seq_len, " << D << "] floats";
  OS << ";\n";
  if (TypeVocab > 0)
    OS << " *   token_types [batch, seq_len] in 0.." << TypeVocab - 1
       << ", or NULL for type 0;\n";
  OS << " *   lengths [batch] in 0..seq_len, or NULL when every sequence is "
        "full.\n"
     << " * Output: " << (Pooled ? "[batch, " : "[batch, seq_len, ") << OutDim
     << "] floats" << (Pooled ? "" : ", rows i >= lengths[b] set to 0")
     << (Classifier
             ? std::string(";\n *   a classifier's ") +
                   (Classifier.getScores() == ScoresKind::none
                        ? std::string("logits")
                        : stringifyScoresKind(Classifier.getScores()).str() +
                              " scores") +
                   ", one per label (docs/language.md#heads)"
             : std::string())
     << (Colbert ? ";\n *   each token projected to " + std::to_string(OutDim) +
                       " values (a ColBERT head, docs/language.md#heads)"
                 : std::string())
     << (Facts.Head == ENC_HEAD_DENSE
             ? ";\n *   the pooled vector projected to " +
                   std::to_string(OutDim) +
                   " values (a dense head, docs/language.md#heads)"
             : std::string())
     << (Mlm ? ";\n *   each token's masked-LM logits over the vocabulary "
               "(an mlm head, docs/language.md#heads)"
             : "")
     << (Splade ? ";\n *   each sequence's SPLADE term weights, the maximum "
                  "over its tokens of\n *   log(1 + relu(logits)) (a splade "
                  "head, docs/language.md#heads); the call\n *   also "
                  "allocates a scratch of at most 32 MiB for the logits"
                : "")
     << (OutDim < D && Facts.Head == ENC_HEAD_NONE
             ? ";\n *   the pooled vector's first " + std::to_string(OutDim) +
                   " of " + std::to_string(D) + " values (output_dim)"
             : std::string())
     << (Normalized ? ";\n *   each output vector divided by max(its L2 norm, "
                      "1e-12) (normalize)"
                    : "")
     << ".\n"
     << " *\n";
  describePrecision(Precision, OS);
  OS << " * Memory: the loaded model holds its " << Weights.size()
     << " weight tensors in " << LinearBytes + 4 * OtherFloats
     << " bytes before packing:\n"
     << " *   " << LinearBytes << " of linear-layer weights in "
     << stringifyWeightPrecision(Precision);
  if (Precision != WeightPrecision::fp32)
    OS << " (" << 4 * LinearFloats << " in fp32)";
  OS << ", " << 4 * OtherFloats << " of fp32 vectors and tables;\n"
     << " *   GEMM weights are packed once at load. " << N
     << "_pack writes them packed to a file\n"
     << " *   that " << N
     << "_load then maps read-only and shared, with no copy and no\n"
     << " *   packing (docs/weights.md#packed-weights-files). With "
     << "ENC_CACHE_DIR set, the\n"
     << " *   first load of a safetensors file also writes such a file "
     << "there, from a\n"
     << " *   forked process that neither " << N
     << "_free nor the process's exit waits for\n"
     << " *   (docs/weights.md#the-cache-directory).\n";
  if (Arena > 0)
    OS << " * Each calling thread keeps a workspace of " << N
       << "_workspace_bytes(batch, seq_len)\n"
       << " * = " << 4 * Arena << " * batch * seq_len bytes, grown on demand "
       << "and reused, plus the attention\n"
       << " * kernel's per-thread scratch of one head's keys and values";
  else
    OS << " * " << N << "_workspace_bytes(batch, seq_len) is 0: no activation "
       << "takes a workspace.\n"
       << " * Each calling thread keeps, grown on demand and reused, the "
       << "attention kernel's\n"
       << " * per-thread scratch of one head's keys and values";
  // The chunked sub-layers' scratch: a chunk of queries (attention_block.h)
  // and a chunk of hidden rows (ffn_block.h).
  int64_t QueryWidth = 0, HiddenWidth = 0;
  F.walk([&](Operation *Op) {
    if (auto A = dyn_cast<AttentionBlockOp>(Op))
      QueryWidth = std::max<int64_t>(
          QueryWidth,
          cast<RankedTensorType>(A.getQWeight().getType()).getShape()[0]);
    if (auto B = dyn_cast<FfnBlockOp>(Op))
      HiddenWidth = std::max<int64_t>(
          HiddenWidth,
          cast<RankedTensorType>(B.getOutWeight().getType()).getShape()[1]);
  });
  if (QueryWidth > 0)
    OS << ",\n * the keys and values of every row while they take at most "
       << ENC_ATTENTION_BLOCK_KV_BYTES << " bytes\n * (" << 8 * QueryWidth
       << " bytes a row) and the queries of at most "
       << ENC_ATTENTION_BLOCK_CHUNK_ROWS << " rows ("
       << 4 * QueryWidth * ENC_ATTENTION_BLOCK_CHUNK_ROWS
       << " bytes);\n * for more rows, the attention output of every row ("
       << 4 * QueryWidth << " bytes a row,\n * the queries of a head group "
       << "projected into its columns) and the keys and\n * values of every "
       << "row of as many heads as " << ENC_ATTENTION_BLOCK_GROUP_BYTES
       << " bytes hold\n * (at least the fewest that fill whole weight panels)";
  if (HiddenWidth > 0)
    OS << ",\n * the feed-forward activations of at most "
       << ENC_FFN_BLOCK_CHUNK_ROWS << " rows ("
       << 4 * HiddenWidth * ENC_FFN_BLOCK_CHUNK_ROWS << " bytes"
       << (QueryWidth > 0 ? ", in the\n * buffer of the keys and values)"
                          : ")");
  if (QueryWidth > 0 || HiddenWidth > 0)
    OS << " (docs/c-abi.md#memory)";
  OS << ".\n";
  if (inOutputWidth(F) > 0) {
    OS << " * The hidden states are computed in out itself";
    if (Vocab == 0)
      OS << ". out may be the input\n"
         << " * embeddings' array but must not overlap it otherwise, nor the "
         << "lengths\n"
         << " * (ENC_ERR_INPUT); after an error other than bad input its "
         << "contents are\n"
         << " * unspecified (docs/c-abi.md#memory).\n";
    else
      OS << ". out must not overlap the\n"
         << " * token ids, the token types or the lengths (ENC_ERR_INPUT); "
         << "after an error\n"
         << " * other than bad input its contents are unspecified "
         << "(docs/c-abi.md#memory).\n";
  }
  OS << " * Thread safety: " << N
     << "_forward may run concurrently on one model "
     << "from several\n"
     << " * threads. " << N << "_load and " << N
     << "_free must not overlap other "
     << "calls on the same model.\n"
     << " * Errors: every function returns an enc_status; enc_last_error() "
     << "describes the\n"
     << " * last failure on the calling thread. Bad input writes nothing.\n"
     << " *\n"
     << " * Weights (safetensors; F32, F16 or BF16):\n";
  SmallVector<FileTensor> Files = fileTensors(getCheckpoint(F), Weights);
  if (const checkpoint::LayoutRow *Row = checkpoint::Find(getCheckpoint(F));
      Row && Row->layout != ENC_CHECKPOINT_ENC) {
    OS << " * in the Hugging Face " << Row->spelling << " layout"
       << " (docs/weights.md#hugging-face-layouts): ";
    if (Row->prefix[0] != '\0')
      OS << "each name may also be\n * written with the prefix '" << Row->prefix
         << "', and ";
    OS << "a norm's weight / bias as gamma / beta.\n";
    if (Files.size() < Weights.size())
      OS << " * A fused tensor is listed once; the model reads its row slices "
            "from the file.\n";
  }
  for (const FileTensor &T : Files)
    OS << " *   " << T.Name << " " << shapeString(T.Shape)
       << (T.ExtraRows ? " (or more rows)" : "") << "\n";
  OS << " * ------------------------------------------------------------------ "
        "*/\n"
     << "typedef struct " << N << " " << N << ";\n";
  // Spelled NAME_D_MODEL with NAME the encoder's name as written, so that
  // two encoders never share a macro.
  for (const ModelFunction &Fn : modelFunctions())
    OS << Fn.declaration(N) << ";\n";
  for (const ModelMacro &M : modelMacros())
    OS << "#define " << M.symbol(N) << " " << Facts.*M.Fact << "\n";
  OS << "\n";
}

// The wrapper's members for entry point Fn: one case per row of
// ModelABI.def, so a new entry point fails to compile until the C++ class
// covers it (test/compiler/Emit/header-cxx-coverage.test checks the header).
void emitWrapperMembers(const ModelFunction &Fn, llvm::StringRef N, bool Pooled,
                        llvm::raw_ostream &OS) {
  std::string C = ("::" + N + "_" + Fn.Suffix).str();
  switch (Fn.Entry) {
  case ModelEntry::load:
    OS << "  /* Loads, converts and packs the weights file or directory (" << C
       << "). */\n"
       << "  explicit " << N << "(const char *weights_path) {\n"
       << "    ::enc::check(" << C << "(weights_path, &model_));\n"
       << "  }\n";
    return;
  case ModelEntry::free:
    OS << "  ~" << N << "() { " << C << "(model_); }\n"
       << "  " << N << "(const " << N << " &) = delete;\n"
       << "  " << N << " &operator=(const " << N << " &) = delete;\n"
       << "  " << N << "(" << N
       << " &&other) noexcept : model_(other.model_) { other.model_ = nullptr; "
          "}\n"
       << "  " << N << " &operator=(" << N << " &&other) noexcept {\n"
       << "    std::swap(model_, other.model_);\n"
       << "    return *this;\n"
       << "  }\n";
    return;
  case ModelEntry::forward: {
    std::string Size =
        Pooled ? ("size_t(batch) * " + N + "_OUT_DIM").str()
               : ("size_t(batch) * size_t(seq_len) * " + N + "_OUT_DIM").str();
    OS << "  /* Floats forward() writes for a batch of this shape. */\n"
       << "  static size_t output_size(int32_t batch, int32_t seq_len) {\n"
       << "    /* 0 for a bad shape: forward() then reports ENC_ERR_INPUT. */\n"
       << "    if (batch < 1 || seq_len < 1) return 0;\n"
       << "    return " << Size << ";\n"
       << "  }\n"
       << "  void forward(const enc_input &in, float *out) const {\n"
       << "    ::enc::check(" << C << "(model_, &in, out));\n"
       << "  }\n"
       << "  std::vector<float> forward(const enc_input &in) const {\n"
       << "    std::vector<float> out(output_size(in.batch, in.seq_len));\n"
       << "    forward(in, out.data());\n"
       << "    return out;\n"
       << "  }\n";
    return;
  }
  case ModelEntry::pack:
    OS << "  /* Loads and packs the weights at weights_path and writes them "
          "as a\n"
       << "   * packed-weights file, which the constructor maps in place (" << C
       << "). */\n"
       << "  static void pack(const char *weights_path, const char "
          "*packed_path) {\n"
       << "    ::enc::check(" << C << "(weights_path, packed_path));\n"
       << "  }\n";
    return;
  case ModelEntry::workspace_bytes:
    OS << "  /* The per-thread workspace a forward call of this shape uses. "
          "*/\n"
       << "  static int64_t workspace_bytes(int32_t batch, int32_t seq_len) {\n"
       << "    return " << C << "(batch, seq_len);\n"
       << "  }\n";
    return;
  case ModelEntry::forward_attention:
    OS << "  /* Floats forward_attention() writes into probs: [blocks, batch,\n"
       << "   * heads, seq_len, seq_len]. */\n"
       << "  static size_t attention_size(int32_t batch, int32_t seq_len) {\n"
       << "    if (batch < 1 || seq_len < 1) return 0;\n"
       << "    return size_t(" << N << "_BLOCKS) * size_t(batch) * size_t(" << N
       << "_HEADS) * size_t(seq_len) * size_t(seq_len);\n"
       << "  }\n"
       << "  /* forward(), and every block's attention probabilities; out may "
          "be\n"
       << "   * NULL. */\n"
       << "  void forward_attention(const enc_input &in, float *out, float "
          "*probs) const {\n"
       << "    ::enc::check(" << C << "(model_, &in, out, probs));\n"
       << "  }\n"
       << "  /* The attention probabilities alone, as a vector of "
          "attention_size(). */\n"
       << "  std::vector<float> forward_attention(const enc_input &in) const "
          "{\n"
       << "    std::vector<float> probs(attention_size(in.batch, "
          "in.seq_len));\n"
       << "    forward_attention(in, nullptr, probs.data());\n"
       << "    return probs;\n"
       << "  }\n";
    return;
  }
}

void emitWrapper(func::FuncOp F, llvm::raw_ostream &OS) {
  std::string N = F.getName().str();
  bool Pooled = modelFacts(F).Pooled;
  OS << "/* RAII wrapper: throws enc::Error (a std::runtime_error with the "
        "status). */\n"
     << "class " << N << " {\n"
     << " public:\n";
  for (const ModelFunction &Fn : modelFunctions())
    emitWrapperMembers(Fn, N, Pooled, OS);
  OS << "  ::" << N << " *get() const { return model_; }\n\n"
     << " private:\n"
     << "  ::" << N << " *model_ = nullptr;\n"
     << "};\n\n";
}
} // namespace

std::string enc::emitHeader(ModuleOp Planned, llvm::StringRef HeaderName,
                            llvm::StringRef SourceName,
                            llvm::ArrayRef<CompiledTokenizer> Tokenizers) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  std::string Guard = "ENC_GENERATED_";
  for (char C : llvm::sys::path::filename(HeaderName))
    Guard += llvm::isAlnum(C) ? llvm::toUpper(C) : '_';
  SmallVector<func::FuncOp> Funcs;
  for (auto F : Planned.getOps<func::FuncOp>())
    if (isEncoder(F))
      Funcs.push_back(F);

  OS << "/* " << llvm::sys::path::filename(HeaderName) << ": generated by encc "
     << "from " << SourceName << ". Do not edit.\n"
     << " *\n"
     << " * Link the object encc wrote beside this header and the encc "
        "runtime\n"
     << " * (enc_add_model() in CMake does both). docs/c-abi.md describes the "
        "ABI. */\n"
     << "#ifndef " << Guard << "\n#define " << Guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n\n"
     << "#include <enc/runtime.h>\n"
     << (Tokenizers.empty() ? "" : "#include <enc/tokenizer.h>\n") << "\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (func::FuncOp F : Funcs) {
    emitEncoder(F, OS);
    for (const CompiledTokenizer &T : Tokenizers)
      if (T.Encoder == F.getName())
        emitTokenizerDeclarations(T, OS);
  }
  OS << "#ifdef __cplusplus\n}  /* extern \"C\" */\n\n"
     << "#include <utility>\n#include <vector>\n\n"
     << "#include <enc/runtime.hpp>\n\n"
     << "namespace enc {\nnamespace models {\n\n";
  for (func::FuncOp F : Funcs)
    emitWrapper(F, OS);
  OS << "}  // namespace models\n}  // namespace enc\n"
     << "#endif  /* __cplusplus */\n\n#endif  /* " << Guard << " */\n";
  return Text;
}
