//===- SpecToMLIR.cpp - ModelSpec -> enc dialect --------------------------===//
//
// Builds, per encoder, the graph of docs/numerics.md as written: separate Q, K
// and V projections, activations and residual adds as their own ops. The
// passes fuse them; -O0 lowers this form directly.
//
// Function arguments carry `enc.input` naming the enc_input field they read
// (embeddings, tokens, token_types, lengths); the function carries the
// compile-time facts the header and the input checks need.
//
//===----------------------------------------------------------------------===//

#include "enc/Import/SpecToMLIR.h"

#include "enc/Dialect/EncOps.h"
#include "enc/checkpoint_names.h"
#include "enc/lang/Families.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace enc;

namespace {

/// The dialect's value of a language choice: the dialect's enums are built
/// from the same table (Settings.def via EncChoices.td), spelled alike.
template <typename DialectEnum, typename LangEnum>
DialectEnum toDialect(LangEnum V) {
  std::optional<DialectEnum> D = symbolizeEnum<DialectEnum>(toString(V));
  assert(D && "the dialect's enum lacks a value of the language's table");
  return *D;
}

class Importer {
public:
  Importer(MLIRContext &Context, const ModelSpec &Spec)
      : Ctx(Context), Spec(Spec), B(&Context) {}

  func::FuncOp build(ModuleOp Module);
  /// False once a weight had no name in the encoder's checkpoint layout.
  bool succeeded() const { return !Failed; }

private:
  /// The location of setting `Key` in the .enc file, optionally named after
  /// the block it is in ("blocks.3").
  Location loc(llvm::StringRef Key, llvm::StringRef Scope = "") {
    const SettingOrigin &O = Spec.origin(Key);
    Location L = FileLineColLoc::get(&Ctx, Spec.File, O.Loc.Line, O.Loc.Col);
    if (!Scope.empty())
      L = NameLoc::get(StringAttr::get(&Ctx, Scope), L);
    return L;
  }
  RankedTensorType activation(int64_t Width) {
    return RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic, Width}, B.getF32Type());
  }
  Value weight(llvm::StringRef Name, ArrayRef<int64_t> Shape, Location L,
               bool AllowExtraRows = false);
  Value norm(Value X, llvm::StringRef Prefix, Location L);
  Value linear(Value X, llvm::StringRef Prefix, int64_t Out, int64_t In,
               Location L);
  Value attention(Value X, const std::string &Block, ArrayRef<Value> Tables,
                  bool Local);
  Value ffn(Value X, const std::string &Block);
  /// Whether block N attends within the window (docs/numerics.md#attention).
  bool isLocal(int64_t N) const {
    return Spec.Window > 0 &&
           !(Spec.GlobalEvery > 0 && N % Spec.GlobalEvery == 0);
  }
  /// Whether embed.positions is added to the embeddings: learned positions,
  /// or relative(absolute = true) (MPNet).
  bool learnsPositions() const {
    return Spec.Positional == PositionalKind::Learned ||
           (Spec.Positional == PositionalKind::Relative && Spec.RelAbsolute);
  }
  /// The function, its arguments (enc.input) and facts, without a body.
  func::FuncOp function(ModuleOp Module);
  Value embedding(Block *Entry);
  /// The positional tables the attention of every block reads; RoPE's come
  /// from `RopeBase` (the local base in local blocks).
  SmallVector<Value> attentionTables(double RopeBase);
  Value block(Value X, int64_t N, ArrayRef<Value> Tables);

  MLIRContext &Ctx;
  const ModelSpec &Spec;
  OpBuilder B;
  Value Lengths;
  llvm::StringMap<Value> Weights; // one enc.weight per tensor name
  enc_checkpoint Layout = ENC_CHECKPOINT_ENC;
  bool Failed = false;
};

Value Importer::weight(llvm::StringRef Name, ArrayRef<int64_t> Shape,
                       Location L, bool AllowExtraRows) {
  auto It = Weights.find(Name);
  if (It != Weights.end())
    return It->second;
  auto Ty = RankedTensorType::get(Shape, B.getF32Type());
  // The weight keeps its canonical name: the loader finds it in the file
  // through the layout's table (families.def), which must have it.
  if (checkpoint::FileNames(Layout, Name.str(), Spec.Ffn == FfnKind::Gated)
          .empty()) {
    emitError(L) << "the " << toString(Spec.Checkpoint)
                 << " checkpoint layout has no name for tensor '" << Name
                 << "'";
    Failed = true;
  }
  Value W = B.create<WeightOp>(L, Ty, B.getStringAttr(Name),
                               AllowExtraRows ? B.getUnitAttr() : UnitAttr());
  Weights[Name] = W;
  return W;
}

Value Importer::norm(Value X, llvm::StringRef Prefix, Location L) {
  int64_t D = Spec.DModel;
  bool Beta = Spec.NormKind == NormType::LayerNorm && Spec.NormBias;
  Value Gamma = weight((Prefix + ".weight").str(), {D}, L);
  Value BetaW = Beta ? weight((Prefix + ".bias").str(), {D}, L) : Value();
  auto Kind = NormKindAttr::get(&Ctx, toDialect<NormKind>(Spec.NormKind));
  return B.create<NormOp>(L, X.getType(), Kind, X, Gamma, BetaW,
                          B.getF32FloatAttr(static_cast<float>(Spec.Eps)));
}

Value Importer::linear(Value X, llvm::StringRef Prefix, int64_t Out, int64_t In,
                       Location L) {
  Value W = weight((Prefix + ".weight").str(), {Out, In}, L);
  Value Bias = Spec.Bias ? weight((Prefix + ".bias").str(), {Out}, L) : Value();
  return B.create<LinearOp>(L, activation(Out), X, W, Bias, Value(), Value(),
                            Value(),
                            ActivationKindAttr::get(&Ctx, ActivationKind::none),
                            NormKindAttr(), FloatAttr());
}

Value Importer::attention(Value X, const std::string &Block,
                          ArrayRef<Value> Tables, bool Local) {
  int64_t D = Spec.DModel, Width = Spec.Heads * Spec.HeadDim;
  Location L = loc("heads", Block);
  std::string P = Block + ".attn.";
  Value Q = linear(X, P + "q", Width, D, L);
  Value K = linear(X, P + "k", Width, D, L);
  Value V = linear(X, P + "v", Width, D, L);
  AttnPositional Kind = AttnPositional::none;
  RopePairingAttr Style;
  switch (Spec.Positional) {
  case PositionalKind::Rope:
    Kind = AttnPositional::rope;
    Style = RopePairingAttr::get(&Ctx, toDialect<RopePairing>(Spec.Rope));
    break;
  case PositionalKind::Alibi:
    Kind = AttnPositional::alibi;
    break;
  case PositionalKind::Relative:
    Kind = AttnPositional::relative;
    break;
  case PositionalKind::None:
  case PositionalKind::Sinusoidal: // added to the embedding, not here
  case PositionalKind::Learned:
    break;
  }
  Location AL = Local                          ? loc("window", Block)
                : Kind == AttnPositional::none ? L
                                               : loc("positional", Block);
  float Scale = static_cast<float>(Spec.AttentionScale);
  Value A = B.create<AttentionOp>(AL, activation(Width), Q, K, V, Lengths,
                                  Tables, B.getI64IntegerAttr(Spec.Heads),
                                  B.getF32FloatAttr(Scale),
                                  AttnPositionalAttr::get(&Ctx, Kind), Style,
                                  B.getI64IntegerAttr(Local ? Spec.Window : 0));
  return linear(A, P + "o", D, Width, L);
}

Value Importer::ffn(Value X, const std::string &Block) {
  int64_t D = Spec.DModel, F = Spec.DFF;
  Location L = loc("d_ff", Block);
  auto Act = [&](Value V) -> Value {
    return B.create<ActivationOp>(
        loc("activation", Block),
        ActivationKindAttr::get(&Ctx, toDialect<ActivationKind>(Spec.Act)), V);
  };
  Value H;
  switch (Spec.Ffn) {
  case FfnKind::Dense:
    H = Act(linear(X, Block + ".ffn.up", F, D, L));
    break;
  case FfnKind::Gated: {
    // The activation is on the gate; the up projection is linear.
    Value Gate = Act(linear(X, Block + ".ffn.gate", F, D, L));
    Value Up = linear(X, Block + ".ffn.up", F, D, L);
    H = B.create<MulOp>(loc("ffn", Block), Gate, Up);
    break;
  }
  }
  return linear(H, Block + ".ffn.down", D, F, L);
}

func::FuncOp Importer::function(ModuleOp Module) {
  int64_t D = Spec.DModel;
  Location FuncLoc =
      FileLineColLoc::get(&Ctx, Spec.File, Spec.Loc.Line, Spec.Loc.Col);
  auto I32 = B.getI32Type();
  auto Dyn = ShapedType::kDynamic;
  auto IdsTy = RankedTensorType::get({Dyn, Dyn}, I32);
  auto LenTy = RankedTensorType::get({Dyn}, I32);

  // One argument per enc_input field the encoder reads.
  SmallVector<Type> Inputs;
  SmallVector<StringRef> Fields;
  if (Spec.Vocab > 0) {
    Inputs.push_back(IdsTy);
    Fields.push_back("tokens");
    if (Spec.TypeVocab > 0) {
      Inputs.push_back(IdsTy);
      Fields.push_back("token_types");
    }
  } else {
    Inputs.push_back(activation(D));
    Fields.push_back("embeddings");
  }
  Inputs.push_back(LenTy);
  Fields.push_back("lengths");
  const int64_t Width = Spec.outputWidth();
  Type Result = Spec.Pool == Pooling::None
                    ? Type(activation(Width))
                    : Type(RankedTensorType::get({Dyn, Width}, B.getF32Type()));

  B.setInsertionPointToEnd(Module.getBody());
  auto Func = B.create<func::FuncOp>(FuncLoc, Spec.Name,
                                     B.getFunctionType(Inputs, Result));
  for (auto [I, Field] : llvm::enumerate(Fields))
    setInputField(Func, I, Field);
  EncoderFacts Facts; // each fact is the spec's field of its name
#define ENC_FACT_FROM_SPEC(Field, Helper, Min) Facts.Field = Spec.Field;
  ENC_ENCODER_FACTS(ENC_FACT_FROM_SPEC)
#undef ENC_FACT_FROM_SPEC
  setEncoderFacts(Func, Facts);
  // One enum, from the family table's rows (enc/lang/Families.h).
  Layout = runtimeLayout(Spec.Checkpoint);
  if (Layout != ENC_CHECKPOINT_ENC)
    setCheckpoint(Func, Layout);
  if (Spec.Prec != Precision::Fp32)
    setPrecision(Func, toDialect<WeightPrecision>(Spec.Prec));
  return Func;
}

Value Importer::embedding(Block *Entry) {
  int64_t D = Spec.DModel, MaxLen = Spec.MaxLen;
  // Token gather (or the input embeddings), then positions. The table comes
  // first so that the fusion may fold it into the gather.
  Location PL = loc("positional");
  Value PE;
  if (Spec.Positional == PositionalKind::Sinusoidal)
    PE = B.create<PositionalTableOp>(
        PL, RankedTensorType::get({MaxLen, D}, B.getF32Type()),
        TableKindAttr::get(&Ctx, TableKind::sinusoidal), B.getI64IntegerAttr(D),
        FloatAttr(), IntegerAttr());
  else if (learnsPositions())
    // Position p is row p + position_offset; the file's table may be longer
    // than that: its first rows are used.
    PE = weight("embed.positions", {MaxLen + Spec.PositionOffset, D}, PL,
                /*AllowExtraRows=*/true);
  Value X;
  if (Spec.Vocab > 0) {
    Value Tok = weight("embed.tokens", {Spec.Vocab, D}, loc("vocab"));
    Value Types, TypeTable;
    if (Spec.TypeVocab > 0) {
      Types = Entry->getArgument(1);
      TypeTable = weight("embed.types", {Spec.TypeVocab, D}, loc("type_vocab"));
    }
    X = B.create<EmbedTokensOp>(
        loc("embed_scale"), activation(D), Entry->getArgument(0), Tok, Types,
        TypeTable, Value(),
        B.getF32FloatAttr(static_cast<float>(Spec.EmbedScale)),
        B.getI64IntegerAttr(0));
  } else {
    X = Entry->getArgument(0);
  }
  if (PE)
    X = B.create<AddPositionsOp>(
        PL, X.getType(), X, PE,
        B.getI64IntegerAttr(learnsPositions() ? Spec.PositionOffset : 0));
  if (Spec.EmbedNorm)
    X = norm(X, "embed.norm", loc("embed_norm"));
  return X;
}

SmallVector<Value> Importer::attentionTables(double RopeBase) {
  int64_t MaxLen = Spec.MaxLen;
  Location PL = loc("positional");
  SmallVector<Value> Tables;
  switch (Spec.Positional) {
  case PositionalKind::Rope:
    for (TableKind K : {TableKind::rope_cos, TableKind::rope_sin})
      Tables.push_back(B.create<PositionalTableOp>(
          PL, RankedTensorType::get({MaxLen, Spec.HeadDim / 2}, B.getF32Type()),
          TableKindAttr::get(&Ctx, K), B.getI64IntegerAttr(Spec.HeadDim),
          B.getF64FloatAttr(RopeBase), IntegerAttr()));
    break;
  case PositionalKind::Alibi:
    Tables.push_back(B.create<PositionalTableOp>(
        PL, RankedTensorType::get({Spec.Heads}, B.getF32Type()),
        TableKindAttr::get(&Ctx, TableKind::alibi_slopes),
        B.getI64IntegerAttr(Spec.Heads), FloatAttr(), IntegerAttr()));
    break;
  case PositionalKind::Relative:
    Tables.push_back(B.create<PositionalTableOp>(
        PL, RankedTensorType::get({2 * MaxLen - 1}, B.getI32Type()),
        TableKindAttr::get(&Ctx, TableKind::relative_buckets),
        B.getI64IntegerAttr(Spec.RelBuckets), FloatAttr(),
        B.getI64IntegerAttr(Spec.RelMaxDistance)));
    Tables.push_back(
        weight("relative.bias", {Spec.RelBuckets, Spec.Heads}, PL));
    break;
  case PositionalKind::None:
  case PositionalKind::Sinusoidal: // added to the embedding instead
  case PositionalKind::Learned:
    break;
  }
  return Tables;
}

Value Importer::block(Value X, int64_t N, ArrayRef<Value> Tables) {
  std::string Block = "blocks." + std::to_string(N);
  Location NL = loc("norm", Block);
  bool Local = isLocal(N);
  switch (Spec.Norm) {
  case NormLayout::Post: {
    Value A = attention(X, Block, Tables, Local);
    Value H = norm(B.create<AddOp>(NL, X, A), Block + ".norm1", NL);
    Value F = ffn(H, Block);
    return norm(B.create<AddOp>(NL, H, F), Block + ".norm2", NL);
  }
  case NormLayout::Pre: {
    // Without first_attn_norm, block 0 attends to its input as it is (the
    // embedding norm has just normalised it).
    Value In =
        N == 0 && !Spec.FirstAttnNorm ? X : norm(X, Block + ".norm1", NL);
    Value A = attention(In, Block, Tables, Local);
    Value H = B.create<AddOp>(NL, X, A);
    Value F = ffn(norm(H, Block + ".norm2", NL), Block);
    return B.create<AddOp>(NL, H, F);
  }
  }
  llvm_unreachable("a norm layout the import does not know");
}

func::FuncOp Importer::build(ModuleOp Module) {
  func::FuncOp Func = function(Module);
  Block *Entry = Func.addEntryBlock();
  B.setInsertionPointToStart(Entry);
  Lengths = Entry->getArguments().back();

  Value X = embedding(Entry);
  // Shared by every block of a kind; local blocks have tables of their own
  // only when RoPE's local base differs.
  SmallVector<Value> Global = attentionTables(Spec.RopeBase);
  SmallVector<Value> Local = Spec.Positional == PositionalKind::Rope &&
                                     Spec.RopeLocalBase != Spec.RopeBase &&
                                     Spec.Window > 0
                                 ? attentionTables(Spec.RopeLocalBase)
                                 : Global;
  for (int64_t N = 0; N < Spec.Blocks; ++N)
    X = block(X, N, isLocal(N) ? Local : Global);
  if (Spec.FinalNorm)
    X = norm(X, "final_norm", loc("final_norm"));

  auto Mode = PoolModeAttr::get(&Ctx, toDialect<PoolMode>(Spec.Pool));
  Value Out;
  switch (Spec.Head) {
  case HeadKind::None:
    Out = B.create<PoolOp>(loc(Spec.Normalize ? "normalize" : "pooling"),
                           Func.getResultTypes()[0], Mode, X, Lengths,
                           Spec.Normalize ? B.getUnitAttr() : UnitAttr());
    break;
  case HeadKind::Classifier: {
    Location L = loc("head");
    const int64_t D = Spec.DModel, Labels = Spec.HeadLabels;
    Value DenseW, DenseB, Gamma, Beta;
    if (Spec.HeadDense) {
      DenseW = weight("head.dense.weight", {D, D}, L);
      if (Spec.Bias)
        DenseB = weight("head.dense.bias", {D}, L);
    }
    // ModernBERT's head.norm: a norm of the blocks' kind after the activation.
    NormKindAttr NormAttr;
    FloatAttr Eps;
    if (Spec.HeadNorm) {
      Gamma = weight("head.norm.weight", {D}, L);
      if (Spec.NormKind == NormType::LayerNorm && Spec.NormBias)
        Beta = weight("head.norm.bias", {D}, L);
      NormAttr = NormKindAttr::get(&Ctx, toDialect<NormKind>(Spec.NormKind));
      Eps = B.getF32FloatAttr(static_cast<float>(Spec.Eps));
    }
    Out = B.create<ClassifierOp>(
        L, Func.getResultTypes()[0], Mode, X, Lengths, DenseW, DenseB, Gamma,
        Beta, weight("head.out.weight", {Labels, D}, L),
        weight("head.out.bias", {Labels}, L),
        ActivationKindAttr::get(
            &Ctx, Spec.HeadDense ? toDialect<ActivationKind>(Spec.HeadAct)
                                 : ActivationKind::none),
        ScoresKindAttr::get(&Ctx, toDialect<ScoresKind>(Spec.HeadScores)),
        NormAttr, Eps);
    break;
  }
  case HeadKind::Colbert:
    Out = B.create<ColbertOp>(loc("head"), Func.getResultTypes()[0], X, Lengths,
                              weight("head.linear.weight",
                                     {Spec.HeadColbertDim, Spec.DModel},
                                     loc("head")));
    break;
  case HeadKind::Dense: {
    Location L = loc("head");
    const int64_t N = Spec.HeadDenseDim;
    Out = B.create<DenseHeadOp>(
        L, Func.getResultTypes()[0], Mode, X, Lengths,
        weight("head.projection.weight", {N, Spec.DModel}, L),
        Spec.HeadDenseBias ? weight("head.projection.bias", {N}, L) : Value(),
        ActivationKindAttr::get(&Ctx, Spec.HeadDenseAct == DenseActivation::Tanh
                                          ? ActivationKind::tanh
                                          : ActivationKind::none),
        Spec.Normalize ? B.getUnitAttr() : UnitAttr());
    break;
  }
  case HeadKind::Mlm:
  case HeadKind::Splade: {
    // The masked-LM head: transform (dense, activation, norm) per token,
    // then the decoder over the vocabulary.
    Location L = loc("head");
    const int64_t D = Spec.DModel, V = Spec.Vocab;
    const Activation Act =
        Spec.Head == HeadKind::Mlm ? Spec.HeadMlmAct : Spec.HeadSpladeAct;
    Value H = B.create<ActivationOp>(
        L, ActivationKindAttr::get(&Ctx, toDialect<ActivationKind>(Act)),
        linear(X, "head.transform", D, D, L));
    H = norm(H, "head.transform_norm", L);
    Value W = weight("head.decoder.weight", {V, D}, L);
    Value Bias = weight("head.decoder.bias", {V}, L);
    Type R = Func.getResultTypes()[0];
    Out = Spec.Head == HeadKind::Mlm
              ? B.create<MlmOp>(L, R, H, Lengths, W, Bias).getResult()
              : B.create<SpladeOp>(L, R, H, Lengths, W, Bias).getResult();
    break;
  }
  }
  B.create<func::ReturnOp>(loc("pooling"), Out);
  return Func;
}

} // namespace

OwningOpRef<ModuleOp> enc::importSpecs(MLIRContext &Context,
                                       ArrayRef<ModelSpec> Specs) {
  Context.loadDialect<EncDialect, func::FuncDialect>();
  Location L =
      Specs.empty()
          ? UnknownLoc::get(&Context)
          : Location(FileLineColLoc::get(&Context, Specs[0].File, 1, 1));
  OwningOpRef<ModuleOp> Module = ModuleOp::create(L);
  bool Named = true;
  for (const ModelSpec &Spec : Specs) {
    Importer I(Context, Spec);
    I.build(*Module);
    Named &= I.succeeded();
  }
  if (!Named || failed(verify(*Module)))
    return nullptr;
  return Module;
}
