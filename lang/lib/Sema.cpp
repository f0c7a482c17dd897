//===- Sema.cpp - Inheritance, evaluation, defaults and rules -------------===//

#include "enc/lang/Sema.h"

#include "enc/lang/ExprEval.h"
#include "enc/lang/NumberFormat.h"
#include "enc/lang/Settings.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <map>
#include <cmath>
#include <cstring>

using namespace enc;
namespace x3 = boost::spirit::x3;

namespace {

/// The setting that gives a key its value in one encoder: written there or
/// inherited (as written, not as a value) from a base.
struct Entry {
  const ast::Setting *Setting = nullptr; // null: not set, the default applies
  const ast::Encoder *Owner = nullptr;   // the encoder whose text holds it
};
/// Indexed like allSettings(): fixed-size, so that a file of thousands of
/// encoders does not spend its time in the allocator.
using SettingMap = std::array<Entry, NumSettings>;

unsigned keyIndex(llvm::StringRef Key) { return indexOf(*findSetting(Key)); }

/// A resolved choice: `rope(base = 500000.0)` is Name "rope" plus arguments.
struct Choice {
  std::string Name;
  const ast::Call *Call = nullptr; // null when written as a bare name
};

/// "a norm layout", "an activation": the article follows the noun's sound,
/// which for these nouns is its first letter.
constexpr int64_t MaxDModel = 65536;

std::string withArticle(llvm::StringRef Noun) {
  bool Vowel = !Noun.empty() && llvm::StringRef("aeiou").contains(Noun[0]);
  return (Vowel ? "an " : "a ") + Noun.str();
}

std::string quoteList(llvm::ArrayRef<const char *> Items) {
  std::string Out;
  for (size_t I = 0; I < Items.size(); ++I) {
    if (I)
      Out += I + 1 == Items.size() ? " or " : ", ";
    Out += Items[I];
  }
  return Out;
}

/// Resolves one encoder: evaluates each key once, on demand, so that keys may
/// refer to each other in any order.
class EncoderResolver {
public:
  /// `BaseFailed`: the base encoder had errors, which were reported there;
  /// errors in what this encoder inherits are then not reported again.
  EncoderResolver(const ast::Encoder &Enc, const SettingMap &Map,
                  DiagnosticEngine &Diags, bool BaseFailed)
      : Enc(Enc), Map(Map), Diags(Diags), BaseFailed(BaseFailed) {}

  std::optional<ModelSpec> resolve();

private:
  enum class State { Unvisited, Active, Done, Failed };
  struct KeyState {
    State St = State::Unvisited;
    EvalValue Value;
  };

  std::optional<EvalValue> valueOf(llvm::StringRef Key);
  std::optional<EvalValue> computeValue(const SettingInfo &Info);
  std::optional<EvalValue> defaultValue(llvm::StringRef Key);
  std::optional<EvalValue> lookup(const ast::Identifier &Id);
  std::optional<Choice> choiceOf(llvm::StringRef Key);
  std::optional<EvalValue> evalArg(const ast::Arg &A);
  bool checkSchemeArgs(const Choice &C, ModelSpec &Spec);
  void reportCycle(llvm::StringRef Key);

  void error(SourceRange R, const llvm::Twine &Message);
  void note(SourceRange R, const llvm::Twine &Message) {
    if (!Quiet)
      Diags.note(R, Message);
  }
  /// The value's expression, or the encoder's name for a default.
  SourceRange rangeOfKey(llvm::StringRef Key) const;
  const Entry *entry(llvm::StringRef Key) const {
    const Entry &E = Map[keyIndex(Key)];
    return E.Setting ? &E : nullptr;
  }
  SourceRange nameRange() const { return {Enc.Name.Begin, Enc.Name.End}; }

  const ast::Encoder &Enc;
  const SettingMap &Map;
  DiagnosticEngine &Diags;
  bool BaseFailed;
  bool Failed = false; // an error, reported or not, in this encoder
  bool Quiet = false;  // inside an error that is not to be reported
  std::array<KeyState, NumSettings> Values;
  std::array<std::optional<Choice>, NumSettings> Choices;
  std::array<bool, NumSettings> ChoiceDone{};
  std::vector<std::string> Stack;           // keys being evaluated
  std::vector<const Entry *> EntryStack;    // their entries (null: default)
};

void EncoderResolver::error(SourceRange R, const llvm::Twine &Message) {
  Failed = true;
  const Entry *E = EntryStack.empty() ? nullptr : EntryStack.back();
  Quiet = E && E->Owner != &Enc && BaseFailed;
  if (Quiet)
    return;
  Diags.error(R, Message);
  // An inherited expression may be fine in its own encoder and wrong here:
  // say which encoder it is being evaluated for, as clang's "in
  // instantiation of" notes do.
  if (E && E->Owner != &Enc)
    note(nameRange(), "in encoder '" + Enc.Name.Name + "', which inherits '" +
                          E->Setting->Key.Name + "' from '" +
                          E->Owner->Name.Name + "'");
}

SourceRange EncoderResolver::rangeOfKey(llvm::StringRef Key) const {
  if (const Entry *E = entry(Key))
    return {E->Setting->Value.Begin, E->Setting->Value.End};
  return nameRange();
}

std::optional<EvalValue> EncoderResolver::lookup(const ast::Identifier &Id) {
  const SettingInfo *Info = findSetting(Id.Name);
  SourceRange R{Id.Begin, Id.End};
  if (!Info) {
    std::vector<llvm::StringRef> Names;
    for (const SettingInfo &S : allSettings())
      if (S.Kind != SettingKind::Choice)
        Names.push_back(S.Name);
    llvm::StringRef Near = closestMatch(Id.Name, Names);
    if (!Near.empty())
      error(R, "unknown setting '" + Id.Name + "' in expression; did you mean '" +
                   Near + "'?");
    else
      error(R, "unknown setting '" + Id.Name + "' in expression");
    return std::nullopt;
  }
  if (Info->Kind == SettingKind::Choice) {
    error(R, "'" + Id.Name + "' is " + withArticle(Info->Noun) +
                 ", not a number; it cannot be used in an expression");
    return std::nullopt;
  }
  return valueOf(Id.Name);
}

void EncoderResolver::reportCycle(llvm::StringRef Key) {
  auto Start = std::find(Stack.begin(), Stack.end(), Key.str());
  std::string Path;
  for (auto It = Start; It != Stack.end(); ++It)
    Path += *It + " -> ";
  Path += Key.str();
  // Report at the member that closes the cycle, then point at each member.
  size_t First = Start - Stack.begin();
  EntryStack.push_back(EntryStack[First]);
  error(rangeOfKey(Key), "cyclic definition: " + Path);
  EntryStack.pop_back();
  for (size_t I = First; I < Stack.size() && Stack.size() - First > 1; ++I) {
    const std::string &Member = Stack[I];
    if (entry(Member))
      note(rangeOfKey(Member), "'" + Member + "' is defined here");
    else if (Member == "d_ff")
      note(nameRange(), "'d_ff' is not set, so it defaults to 4 * d_model");
    else
      note(nameRange(), "'" + Member + "' takes its default here");
  }
}

std::optional<EvalValue> EncoderResolver::valueOf(llvm::StringRef Key) {
  KeyState &S = Values[keyIndex(Key)];
  switch (S.St) {
  case State::Done:
    return S.Value;
  case State::Failed:
    return std::nullopt;
  case State::Active:
    reportCycle(Key);
    return std::nullopt;
  case State::Unvisited:
    break;
  }
  S.St = State::Active;
  Stack.push_back(Key.str());
  EntryStack.push_back(entry(Key));
  std::optional<EvalValue> V = computeValue(*findSetting(Key));
  EntryStack.pop_back();
  Stack.pop_back();
  KeyState &After = S;
  // A cycle through this key failed it already.
  if (V && After.St == State::Active) {
    After.St = State::Done;
    After.Value = *V;
    return V;
  }
  After.St = State::Failed;
  return std::nullopt;
}

std::optional<EvalValue> EncoderResolver::computeValue(const SettingInfo &Info) {
  const Entry *E = entry(Info.Name);
  if (!E)
    return defaultValue(Info.Name);
  auto Lookup = [&](const ast::Identifier &Id) { return lookup(Id); };
  auto Report = [&](SourceRange R, const llvm::Twine &M) { error(R, M); };
  ExprEvaluator Eval(Lookup, Report); // function_refs: the lambdas must outlive it
  const ast::Expr &Expr = E->Setting->Value;
  std::optional<EvalValue> V = Eval.eval(Expr);
  if (!V)
    return std::nullopt;
  SourceRange R{Expr.Begin, Expr.End};
  switch (Info.Kind) {
  case SettingKind::Int:
    if (V->K != EvalValue::Int) {
      error(R, llvm::Twine("'") + Info.Name + "' must be an integer, but " +
                   "its value " + V->str() + " is " + V->kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Float:
    if (V->K == EvalValue::Bool) {
      error(R, llvm::Twine("'") + Info.Name + "' must be a number, but its "
                   "value " + V->str() + " is a boolean");
      return std::nullopt;
    }
    return EvalValue::ofFloat(V->asDouble());
  case SettingKind::Bool:
    if (V->K != EvalValue::Bool) {
      error(R, llvm::Twine("'") + Info.Name + "' must be true or false, but " +
                   "its value " + V->str() + " is " + V->kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Choice:
    break;
  }
  return std::nullopt;
}

std::optional<EvalValue> EncoderResolver::defaultValue(llvm::StringRef Key) {
  if (Key == "d_model" || Key == "heads") {
    // A broken base already explains why a key is missing.
    if (!BaseFailed)
      error(nameRange(), "encoder '" + Enc.Name.Name + "' does not set '" +
                             Key + "', which is required");
    return std::nullopt;
  }
  if (Key == "d_ff") {
    std::optional<EvalValue> D = valueOf("d_model");
    if (!D)
      return std::nullopt;
    // A d_model outside 1..65536 is reported by its own range rule; 4 times
    // it would only be a cascade of that error (or an overflow).
    if (D->K == EvalValue::Int && (D->I < 1 || D->I > MaxDModel))
      return std::nullopt;
    int64_t V;
    if (__builtin_mul_overflow(D->I, int64_t(4), &V)) {
      error(nameRange(), "integer overflow in the default d_ff = 4 * d_model "
                         "(d_model is " + D->str() + ")");
      return std::nullopt;
    }
    return EvalValue::ofInt(V);
  }
  if (Key == "blocks")
    return EvalValue::ofInt(6);
  if (Key == "max_len")
    return EvalValue::ofInt(512);
  if (Key == "vocab" || Key == "type_vocab")
    return EvalValue::ofInt(0);
  if (Key == "eps")
    return EvalValue::ofFloat(1e-5);
  if (Key == "embed_scale")
    return EvalValue::ofFloat(1.0);
  if (Key == "bias")
    return EvalValue::ofBool(true);
  if (Key == "embed_norm")
    return EvalValue::ofBool(false);
  if (Key == "final_norm") {
    std::optional<Choice> Norm = choiceOf("norm");
    return EvalValue::ofBool(Norm && Norm->Name == "pre");
  }
  return std::nullopt;
}

std::optional<Choice> EncoderResolver::choiceOf(llvm::StringRef Key) {
  unsigned Index = keyIndex(Key);
  if (ChoiceDone[Index])
    return Choices[Index];
  ChoiceDone[Index] = true;
  std::optional<Choice> &Result = Choices[Index];
  const SettingInfo &Info = *findSetting(Key);
  const Entry *E = entry(Key);
  if (!E) {
    Result = Choice{Key == "norm" ? "post"
                    : Key == "norm_type" ? "layernorm"
                    : Key == "activation" ? "relu"
                    : Key == "positional" ? "sinusoidal"
                                          : "none",
                    nullptr};
    return Result;
  }
  EntryStack.push_back(E);
  const ast::Operand &Op = stripParens(E->Setting->Value);
  Choice C;
  const ast::Identifier *Name = nullptr;
  if (const auto *Id = boost::get<ast::Identifier>(&Op.get())) {
    Name = Id;
  } else if (const auto *Call = boost::get<x3::forward_ast<ast::Call>>(&Op.get())) {
    Name = &Call->get().Callee;
    C.Call = &Call->get();
  }
  if (!Name) {
    const ast::Expr &V = E->Setting->Value;
    error({V.Begin, V.End},
          llvm::Twine("'") + Key + "' must name " + withArticle(Info.Noun) +
              " (" + quoteList(Info.Choices) + "), not an expression");
    EntryStack.pop_back();
    return Result;
  }
  bool Known = false;
  for (const char *Option : Info.Choices)
    Known |= Name->Name == Option;
  if (!Known) {
    llvm::StringRef Near = closestMatch(Name->Name, Info.Choices);
    SourceRange R{Name->Begin, Name->End};
    if (!Near.empty())
      error(R, llvm::Twine("unknown ") + Info.Noun + " '" + Name->Name +
                   "'; did you mean '" + Near + "'?");
    else
      error(R, llvm::Twine("unknown ") + Info.Noun + " '" + Name->Name +
                   "'; expected " + quoteList(Info.Choices));
    EntryStack.pop_back();
    return Result;
  }
  C.Name = Name->Name;
  EntryStack.pop_back();
  Result = C;
  return Result;
}

std::optional<EvalValue> EncoderResolver::evalArg(const ast::Arg &A) {
  auto Lookup = [&](const ast::Identifier &Id) { return lookup(Id); };
  auto Report = [&](SourceRange R, const llvm::Twine &M) { error(R, M); };
  ExprEvaluator Eval(Lookup, Report); // function_refs: the lambdas must outlive it
  return Eval.eval(A.Value);
}

bool EncoderResolver::checkSchemeArgs(const Choice &C, ModelSpec &Spec) {
  if (!C.Call || C.Call->Args.empty())
    return true;
  static const char *const RopeArgs[] = {"base", "style"};
  static const char *const RelativeArgs[] = {"buckets", "max_distance"};
  llvm::ArrayRef<const char *> Allowed;
  if (C.Name == "rope")
    Allowed = RopeArgs;
  else if (C.Name == "relative")
    Allowed = RelativeArgs;
  const ast::Call &Call = *C.Call;
  if (Allowed.empty()) {
    error({Call.Begin, Call.End}, "'" + C.Name + "' takes no arguments");
    return false;
  }
  bool Ok = true;
  std::map<std::string, const ast::Arg *> Seen;
  for (const ast::Arg &A : Call.Args) {
    SourceRange R{A.Begin, A.End};
    if (!A.Name) {
      error(R, "arguments of '" + C.Name + "' must be named, as in " +
                   (C.Name == "rope" ? "rope(base = 10000.0)"
                                     : "relative(buckets = 32)"));
      Ok = false;
      continue;
    }
    const std::string &ArgName = A.Name->Name;
    SourceRange NameR{A.Name->Begin, A.Name->End};
    bool Known = false;
    for (const char *Option : Allowed)
      Known |= ArgName == Option;
    if (!Known) {
      llvm::StringRef Near = closestMatch(ArgName, Allowed);
      if (!Near.empty())
        error(NameR, "unknown argument '" + ArgName + "' of '" + C.Name +
                         "'; did you mean '" + Near + "'?");
      else
        error(NameR, "unknown argument '" + ArgName + "' of '" + C.Name +
                         "'; it takes " + quoteList(Allowed));
      Ok = false;
      continue;
    }
    auto [It, Inserted] = Seen.emplace(ArgName, &A);
    if (!Inserted) {
      error(NameR, "duplicate argument '" + ArgName + "' of '" + C.Name + "'");
      note({It->second->Begin, It->second->End}, "previous value is here");
      Ok = false;
      continue;
    }
    SourceRange ValueR{A.Value.Begin, A.Value.End};
    if (ArgName == "style") {
      const auto *Id = boost::get<ast::Identifier>(&stripParens(A.Value).get());
      if (!Id || (Id->Name != "halves" && Id->Name != "interleaved")) {
        static const char *const Styles[] = {"halves", "interleaved"};
        llvm::StringRef Near =
            Id ? closestMatch(Id->Name, Styles) : llvm::StringRef();
        if (!Near.empty())
          error(ValueR, "unknown rope style '" + Id->Name +
                            "'; did you mean '" + Near + "'?");
        else
          error(ValueR, "rope style must be halves or interleaved");
        Ok = false;
        continue;
      }
      Spec.Rope = Id->Name == "halves" ? RopeStyle::Halves
                                       : RopeStyle::Interleaved;
      continue;
    }
    std::optional<EvalValue> V = evalArg(A);
    if (!V) {
      Ok = false;
      continue;
    }
    if (ArgName == "base") {
      if (V->K == EvalValue::Bool) {
        error(ValueR, "rope base must be a number, not " + V->str());
        Ok = false;
      } else if (!(V->asDouble() > 0)) {
        error(ValueR, "rope base (" + V->str() + ") must be greater than 0");
        Ok = false;
      } else {
        Spec.RopeBase = V->asDouble();
      }
      continue;
    }
    // buckets, max_distance
    if (V->K != EvalValue::Int) {
      error(ValueR, "'" + ArgName + "' of relative must be an integer, but " +
                        V->str() + " is " + V->kindName());
      Ok = false;
      continue;
    }
    (ArgName == "buckets" ? Spec.RelBuckets : Spec.RelMaxDistance) = V->I;
  }
  return Ok;
}

std::optional<ModelSpec> EncoderResolver::resolve() {
  unsigned ErrorsBefore = Diags.errorCount();
  ModelSpec Spec;
  Spec.Name = Enc.Name.Name;
  if (Enc.Base)
    Spec.Base = Enc.Base->Name;
  Spec.File = Diags.file().name().str();
  Spec.NameRange = nameRange();
  Spec.Loc = Diags.file().lineCol(Enc.Name.Begin);

  // Evaluate every key, in table order; references pull others in early.
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind == SettingKind::Choice)
      choiceOf(Info.Name);
    else
      valueOf(Info.Name);
  }

  auto intOf = [&](const char *Key) -> std::optional<int64_t> {
    const KeyState &S = Values[keyIndex(Key)];
    if (S.St != State::Done)
      return std::nullopt;
    return S.Value.I;
  };
  auto floatOf = [&](const char *Key) -> std::optional<double> {
    const KeyState &S = Values[keyIndex(Key)];
    if (S.St != State::Done)
      return std::nullopt;
    return S.Value.F;
  };
  auto boolOf = [&](const char *Key) -> std::optional<bool> {
    const KeyState &S = Values[keyIndex(Key)];
    if (S.St != State::Done)
      return std::nullopt;
    return S.Value.B;
  };
  // Rule errors point at the offending value; inherited ones say for whom.
  auto ruleError = [&](const char *Key, const llvm::Twine &Message) {
    EntryStack.push_back(entry(Key));
    error(rangeOfKey(Key), Message);
    EntryStack.pop_back();
  };
  auto str = [](int64_t V) { return std::to_string(V); };
  auto checkRange = [&](const char *Key, int64_t Lo, int64_t Hi) {
    std::optional<int64_t> V = intOf(Key);
    if (!V || (*V >= Lo && *V <= Hi))
      return true;
    if (*V < Lo && Hi == MaxInt32Setting && Lo == 1)
      ruleError(Key, llvm::Twine(Key) + " (" + str(*V) + ") must be at least 1");
    else if (*V < Lo && Lo == 0)
      ruleError(Key, llvm::Twine(Key) + " (" + str(*V) +
                         ") must not be negative");
    else if (*V > Hi && Hi == MaxInt32Setting)
      ruleError(Key, llvm::Twine(Key) + " (" + str(*V) +
                         ") is too large: the runtime takes at most " +
                         str(MaxInt32Setting));
    else if (*V < Lo || *V > Hi)
      ruleError(Key, llvm::Twine(Key) + " (" + str(*V) + ") must be between " +
                         str(Lo) + " and " + str(Hi));
    return false;
  };

  bool DModelOk = checkRange("d_model", 1, MaxDModel);
  if (auto Heads = intOf("heads")) {
    if (*Heads < 1) {
      ruleError("heads", "heads (" + str(*Heads) + ") must be at least 1");
    } else if (auto D = intOf("d_model"); DModelOk && D && *D % *Heads != 0) {
      ruleError("heads", "d_model (" + str(*D) + ") is not divisible by heads (" +
                             str(*Heads) + ")");
      if (entry("d_model"))
        note(rangeOfKey("d_model"), "d_model is set here");
    }
  }
  // The default d_ff = 4 * d_model is only as wrong as d_model, reported.
  if (DModelOk || entry("d_ff"))
    checkRange("d_ff", 1, MaxInt32Setting);
  checkRange("blocks", 1, 1024);
  checkRange("max_len", 1, MaxInt32Setting);
  checkRange("vocab", 0, MaxInt32Setting);
  checkRange("type_vocab", 0, MaxInt32Setting);
  if (auto TV = intOf("type_vocab"), V = intOf("vocab"); TV && V && *TV > 0 &&
                                                          *V == 0)
    ruleError("type_vocab", "type_vocab (" + str(*TV) +
                                ") needs token ids, but vocab is 0 (the input "
                                "is float embeddings)");
  if (auto Eps = floatOf("eps")) {
    if (!(*Eps > 0))
      ruleError("eps", "eps (" + formatFloat(*Eps) + ") must be greater than 0");
    else if (!(static_cast<float>(*Eps) > 0) ||
             std::isinf(static_cast<float>(*Eps)))
      ruleError("eps", "eps (" + formatFloat(*Eps) +
                           ") is not a positive finite fp32 number, the "
                           "precision the model runs in");
  }
  if (auto Scale = floatOf("embed_scale")) {
    if (std::isinf(static_cast<float>(*Scale)))
      ruleError("embed_scale", "embed_scale (" + formatFloat(*Scale) +
                                   ") overflows fp32, the precision the model "
                                   "runs in");
    else if (*Scale != 1.0 && intOf("vocab") == std::optional<int64_t>(0) &&
             entry("embed_scale"))
      Diags.warning(rangeOfKey("embed_scale"),
                    "embed_scale has no effect when vocab is 0: the input is "
                    "embeddings, which are not scaled");
  }

  // Choices and their arguments.
  std::optional<Choice> Pos = choiceOf("positional");
  EntryStack.push_back(entry("positional"));
  if (Pos && checkSchemeArgs(*Pos, Spec)) {
    SourceRange R = rangeOfKey("positional");
    if (Pos->Name == "rope") {
      auto D = intOf("d_model"), H = intOf("heads");
      if (D && H && *H >= 1 && *D % *H == 0 && (*D / *H) % 2 != 0)
        error(R, "rope needs an even d_k, but d_model (" + str(*D) +
                     ") / heads (" + str(*H) + ") = " + str(*D / *H));
    } else if (Pos->Name == "relative") {
      if (Spec.RelBuckets < 2 || Spec.RelBuckets % 2 != 0)
        error(R, "relative buckets (" + str(Spec.RelBuckets) +
                     ") must be even and at least 2");
      else if (Spec.RelBuckets > MaxInt32Setting)
        error(R, "relative buckets (" + str(Spec.RelBuckets) +
                     ") is too large");
      else if (Spec.RelMaxDistance > MaxInt32Setting)
        error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                     ") is too large");
      else if (Spec.RelMaxDistance <= Spec.RelBuckets / 2)
        error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                     ") must be greater than buckets / 2 (" +
                     str(Spec.RelBuckets / 2) + ")");
    }
  }
  EntryStack.pop_back();
  for (const char *Key : {"norm", "norm_type", "activation", "pooling"}) {
    EntryStack.push_back(entry(Key));
    if (std::optional<Choice> C = choiceOf(Key))
      checkSchemeArgs(*C, Spec);
    EntryStack.pop_back();
  }

  if (Failed || Diags.errorCount() != ErrorsBefore)
    return std::nullopt;

  Spec.DModel = *intOf("d_model");
  Spec.Heads = *intOf("heads");
  Spec.DK = Spec.DModel / Spec.Heads;
  Spec.DFF = *intOf("d_ff");
  Spec.Blocks = *intOf("blocks");
  Spec.MaxLen = *intOf("max_len");
  Spec.Vocab = *intOf("vocab");
  Spec.TypeVocab = *intOf("type_vocab");
  Spec.Eps = *floatOf("eps");
  Spec.EmbedScale = *floatOf("embed_scale");
  Spec.Bias = *boolOf("bias");
  Spec.EmbedNorm = *boolOf("embed_norm");
  Spec.FinalNorm = *boolOf("final_norm");
  const std::string &P = Pos->Name;
  Spec.Positional = P == "none"         ? PositionalKind::None
                    : P == "sinusoidal" ? PositionalKind::Sinusoidal
                    : P == "learned"    ? PositionalKind::Learned
                    : P == "rope"       ? PositionalKind::Rope
                    : P == "alibi"      ? PositionalKind::Alibi
                                        : PositionalKind::Relative;
  Spec.Norm = choiceOf("norm")->Name == "pre" ? NormLayout::Pre
                                              : NormLayout::Post;
  Spec.NormKind = choiceOf("norm_type")->Name == "rmsnorm"
                      ? NormType::RMSNorm
                      : NormType::LayerNorm;
  const std::string A = choiceOf("activation")->Name;
  Spec.Act = A == "relu"   ? Activation::Relu
             : A == "gelu" ? Activation::Gelu
                           : Activation::GeluTanh;
  const std::string Pl = choiceOf("pooling")->Name;
  Spec.Pool = Pl == "none" ? Pooling::None
              : Pl == "cls" ? Pooling::Cls
                            : Pooling::Mean;

  Spec.Origins.reserve(NumSettings);
  for (const SettingInfo &Info : allSettings()) {
    SettingOrigin O;
    if (const Entry *E = entry(Info.Name)) {
      O.How = E->Owner == &Enc ? SettingOrigin::Written
                               : SettingOrigin::Inherited;
    }
    O.Range = rangeOfKey(Info.Name);
    O.Loc = Diags.file().lineCol(O.Range.Begin);
    Spec.Origins.push_back(std::move(O));
  }
  return Spec;
}

} // namespace

std::vector<ModelSpec> enc::resolveFile(const ast::File &File,
                                        DiagnosticEngine &Diags) {
  std::vector<ModelSpec> Result;
  Result.reserve(File.Encoders.size());
  llvm::StringMap<size_t> FirstByName; // encoder name -> index, so far
  llvm::StringMap<size_t> AllNames;    // the same over the whole file
  for (size_t I = 0; I < File.Encoders.size(); ++I)
    AllNames.try_emplace(File.Encoders[I].Name.Name, I);
  std::vector<SettingMap> Maps(File.Encoders.size());
  std::vector<bool> Broken(File.Encoders.size(), false);

  for (size_t Index = 0; Index < File.Encoders.size(); ++Index) {
    if (Diags.limitReached())
      break;
    const ast::Encoder &Enc = File.Encoders[Index];
    const std::string &Name = Enc.Name.Name;
    SourceRange NameR{Enc.Name.Begin, Enc.Name.End};
    unsigned ErrorsBefore = Diags.errorCount();

    if (isCOrCxxKeyword(Name))
      Diags.error(NameR, "encoder name '" + Name +
                             "' is a C or C++ keyword; it must be usable as "
                             "a C symbol prefix");
    else if (llvm::StringRef(Name).starts_with("enc_") || Name == "enc")
      Diags.error(NameR, "encoder name '" + Name +
                             "' is reserved: names beginning with 'enc_' "
                             "belong to the runtime's C ABI");
    auto [It, Inserted] = FirstByName.try_emplace(Name, Index);
    if (!Inserted) {
      const ast::Encoder &Prev = File.Encoders[It->second];
      Diags.error(NameR, "redefinition of encoder '" + Name + "'");
      Diags.note({Prev.Name.Begin, Prev.Name.End},
                 "previous definition is here");
    }
    // Every encoder M defines C symbols and macros M_load, M_D_MODEL, ...:
    // another encoder may not be named like one of them.
    static const char *const AbiSuffixes[] = {
        "_load",    "_forward", "_free",       "_workspace_bytes",
        "_D_MODEL", "_MAX_LEN", "_VOCAB",      "_TYPE_VOCAB",
        "_HEADS",   "_BLOCKS",  "_D_FF",       "_POOLED"};
    for (const char *Suffix : AbiSuffixes) {
      llvm::StringRef N(Name);
      if (!N.ends_with(Suffix))
        continue;
      auto Owner = AllNames.find(N.drop_back(std::strlen(Suffix)));
      if (Owner == AllNames.end())
        continue;
      const ast::Encoder &Other = File.Encoders[Owner->second];
      Diags.error(NameR, "encoder name '" + Name + "' is also the name '" +
                             Name + "' that encoder '" + Other.Name.Name +
                             "' defines in the generated C header");
      Diags.note({Other.Name.Begin, Other.Name.End},
                 "'" + Other.Name.Name + "' is declared here");
      break;
    }

    // Inheritance: start from the base's settings, as written.
    bool BaseFailed = false;
    if (Enc.Base) {
      const std::string &BaseName = Enc.Base->Name;
      SourceRange BaseR{Enc.Base->Begin, Enc.Base->End};
      auto Found = FirstByName.find(BaseName);
      if (BaseName == Name) {
        Diags.error(BaseR, "encoder '" + Name + "' cannot inherit from itself");
        BaseFailed = true;
      } else if (Found != FirstByName.end() && Found->second < Index) {
        Maps[Index] = Maps[Found->second];
        BaseFailed = Broken[Found->second];
      } else {
        BaseFailed = true;
        // Declared later in the file?
        const ast::Encoder *Later = nullptr;
        for (size_t J = Index + 1; J < File.Encoders.size() && !Later; ++J)
          if (File.Encoders[J].Name.Name == BaseName)
            Later = &File.Encoders[J];
        if (Later) {
          Diags.error(BaseR, "base encoder '" + BaseName +
                                 "' must be declared before '" + Name + "'");
          Diags.note({Later->Name.Begin, Later->Name.End},
                     "'" + BaseName + "' is declared here");
        } else {
          std::vector<llvm::StringRef> Names;
          for (size_t J = 0; J < Index; ++J)
            Names.push_back(File.Encoders[J].Name.Name);
          llvm::StringRef Near = closestMatch(BaseName, Names);
          if (!Near.empty())
            Diags.error(BaseR, "unknown base encoder '" + BaseName +
                                   "'; did you mean '" + Near + "'?");
          else
            Diags.error(BaseR, "unknown base encoder '" + BaseName + "'");
        }
      }
    }

    // This encoder's own settings override inherited ones.
    std::array<const ast::Setting *, NumSettings> Own{};
    for (const ast::Setting &S : Enc.Settings) {
      SourceRange KeyR{S.Key.Begin, S.Key.End};
      if (!findSetting(S.Key.Name)) {
        std::vector<llvm::StringRef> Names;
        for (const SettingInfo &Info : allSettings())
          Names.push_back(Info.Name);
        llvm::StringRef Near = closestMatch(S.Key.Name, Names);
        if (!Near.empty())
          Diags.error(KeyR, "unknown setting '" + S.Key.Name +
                                "'; did you mean '" + Near + "'?");
        else
          Diags.error(KeyR, "unknown setting '" + S.Key.Name + "'");
        continue;
      }
      unsigned Key = keyIndex(S.Key.Name);
      if (const ast::Setting *Prev = Own[Key]) {
        Diags.error(KeyR, "duplicate setting '" + S.Key.Name +
                              "' in encoder '" + Name + "'");
        Diags.note({Prev->Key.Begin, Prev->Key.End},
                   "previous definition is here");
        continue;
      }
      Own[Key] = &S;
      Maps[Index][Key] = Entry{&S, &Enc};
    }

    EncoderResolver Resolver(Enc, Maps[Index], Diags,
                             BaseFailed || Enc.Incomplete);
    std::optional<ModelSpec> Spec = Resolver.resolve();
    Broken[Index] = !Spec || Diags.errorCount() != ErrorsBefore;
    if (!Broken[Index])
      Result.push_back(std::move(*Spec));
  }
  return Result;
}

const SettingOrigin &ModelSpec::origin(llvm::StringRef Key) const {
  return Origins[keyIndex(Key)];
}

llvm::StringRef enc::toString(PositionalKind K) {
  switch (K) {
  case PositionalKind::None: return "none";
  case PositionalKind::Sinusoidal: return "sinusoidal";
  case PositionalKind::Learned: return "learned";
  case PositionalKind::Rope: return "rope";
  case PositionalKind::Alibi: return "alibi";
  case PositionalKind::Relative: return "relative";
  }
  return "";
}
llvm::StringRef enc::toString(RopeStyle S) {
  return S == RopeStyle::Halves ? "halves" : "interleaved";
}
llvm::StringRef enc::toString(NormLayout L) {
  return L == NormLayout::Post ? "post" : "pre";
}
llvm::StringRef enc::toString(NormType T) {
  return T == NormType::LayerNorm ? "layernorm" : "rmsnorm";
}
llvm::StringRef enc::toString(Activation A) {
  switch (A) {
  case Activation::Relu: return "relu";
  case Activation::Gelu: return "gelu";
  case Activation::GeluTanh: return "gelu_tanh";
  }
  return "";
}
llvm::StringRef enc::toString(Pooling P) {
  switch (P) {
  case Pooling::None: return "none";
  case Pooling::Cls: return "cls";
  case Pooling::Mean: return "mean";
  }
  return "";
}
