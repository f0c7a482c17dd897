//===- Sema.cpp - Inheritance, evaluation, defaults and rules -------------===//
//
// Table-driven: every setting's kind, default and range come from
// Settings.def. What the table cannot say (d_model divisible by heads, the
// fp32 limits, a scheme's own rules) is checked in `checkRules` and
// `checkChoiceRules`, one exhaustive switch each.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Sema.h"

#include "enc/lang/ExprEval.h"
#include "enc/lang/Families.h"
#include "enc/lang/NumberFormat.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Settings.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <type_traits>

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

unsigned indexOf(SettingId Id) { return static_cast<unsigned>(Id); }
unsigned indexOf(const SettingInfo &Info) { return indexOf(idOf(Info)); }

/// A resolved choice: the value's index in its set, and the call that gave
/// it arguments (`rope(base = 500000.0)`), if any.
struct Choice {
  unsigned Value = 0;
  const ast::Call *Call = nullptr;
};

std::string withArticle(llvm::StringRef Noun) {
  // "a norm layout", "an activation": the article follows the noun's sound,
  // which for these nouns is its first letter.
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

std::string str(int64_t V) { return std::to_string(V); }

/// `a-b-c` written where a name was expected, as the name "a-b-c".
std::optional<std::string> dashedName(const ast::Expr &E) {
  auto Name = [](const ast::Operand &O) -> std::optional<std::string> {
    if (const auto *Id = boost::get<ast::Identifier>(&O.get()))
      return Id->Name;
    if (const auto *Inner = boost::get<x3::forward_ast<ast::Expr>>(&O.get()))
      if (Inner->get().Rest.empty())
        if (const auto *Id =
                boost::get<ast::Identifier>(&Inner->get().First.get()))
          return Id->Name;
    return std::nullopt;
  };
  std::optional<std::string> Out = Name(E.First);
  if (!Out || E.Rest.empty())
    return std::nullopt;
  for (const ast::Operation &Op : E.Rest) {
    std::optional<std::string> Part = Name(Op.Rhs);
    if (Op.Op != '-' || !Part)
      return std::nullopt;
    *Out += "-" + *Part;
  }
  return Out;
}

/// The table's default expressions, parsed once by the .enc parser itself:
/// a default is evaluated exactly as if it had been written.
class DefaultExpressions {
public:
  static const DefaultExpressions &get() {
    static const DefaultExpressions Instance;
    return Instance;
  }
  const ast::Expr &of(const SettingInfo &Info) const {
    auto It = Exprs.find(&Info);
    assert(It != Exprs.end() && "no default expression");
    return *It->second;
  }

private:
  DefaultExpressions() {
    std::vector<const SettingInfo *> Rows;
    for (const SettingInfo &S : allSettings())
      Rows.push_back(&S);
    for (const SettingInfo &S : allSettings())
      if (S.Kind == SettingKind::Choice)
        for (unsigned V = 0; V < S.Choices->Spellings.size(); ++V)
          for (const SettingInfo *A : schemeArgs(*S.Choices, V))
            Rows.push_back(A);
    std::string Text = "encoder defaults {\n";
    std::vector<const SettingInfo *> Parsed;
    for (const SettingInfo *Row : Rows) {
      if (Row->Default.How != DefaultSpec::Expression ||
          Row->Kind == SettingKind::Choice)
        continue;
      Text += "  d" + std::to_string(Parsed.size()) + " = " +
              Row->Default.Text + ";\n";
      Parsed.push_back(Row);
    }
    Text += "}\n";
    Source = std::make_unique<SourceFile>("<defaults>", Text);
    std::string Errors;
    llvm::raw_string_ostream ErrorStream(Errors);
    DiagnosticEngine Diags(*Source, ErrorStream, /*UseColor=*/false);
    File = parseFile(*Source, Diags);
    if (Diags.hasErrors() || File.Encoders.size() != 1 ||
        File.Encoders[0].Settings.size() != Parsed.size())
      llvm::report_fatal_error("Settings.def: a default does not parse:\n" +
                               llvm::Twine(Errors));
    for (size_t I = 0; I < Parsed.size(); ++I)
      Exprs[Parsed[I]] = &File.Encoders[0].Settings[I].Value;
  }

  std::unique_ptr<SourceFile> Source;
  ast::File File;
  std::map<const SettingInfo *, const ast::Expr *> Exprs;
};

/// Stores a resolved value in a ModelSpec field of any kind.
template <typename T> void assign(T &Field, const EvalValue &V) {
  if constexpr (std::is_same_v<T, int64_t>)
    Field = V.I;
  else if constexpr (std::is_same_v<T, double>)
    Field = V.asDouble();
  else if constexpr (std::is_same_v<T, bool>)
    Field = V.B;
  else
    Field = static_cast<T>(V.I); // a choice: its index in the set
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
  /// A scheme argument's resolved value (a choice: its index, as an Int).
  using ArgValues = std::vector<std::optional<EvalValue>>;

  std::optional<EvalValue> valueOf(SettingId Id);
  std::optional<EvalValue> computeValue(const SettingInfo &Info);
  std::optional<EvalValue> defaultValue(const SettingInfo &Info);
  std::optional<EvalValue> checkKind(const SettingInfo &Info,
                                     const EvalValue &V, SourceRange R);
  std::optional<EvalValue> lookup(const ast::Identifier &Id);
  std::optional<Choice> choiceOf(SettingId Id);
  std::optional<unsigned> nameChoice(const ChoiceSetInfo &Set,
                                     const ast::Identifier &Name);
  std::optional<EvalValue> evalExpr(const ast::Expr &E);
  std::optional<ArgValues> resolveArgs(const SettingInfo &Info,
                                       const Choice &C);
  std::optional<EvalValue> evalArg(const SettingInfo &Scheme,
                                   const SettingInfo &Arg, const ast::Arg &A);
  void storeArgs(ModelSpec &Spec, const ChoiceSetInfo &Set, unsigned Scheme,
                 const ArgValues &Values);
  void reportCycle(SettingId Id);

  bool checkRange(const SettingInfo &Info);
  /// The index of a resolved choice's value, if it resolved.
  std::optional<unsigned> choiceValue(SettingId Id) const;
  /// How many blocks attend within the window (0 without one), once window,
  /// global_every and blocks are known and in range.
  std::optional<int64_t> localBlocks() const;
  /// "NAME is set here", when the setting is written.
  void noteSetting(SettingId Id);
  void checkRules(SettingId Id, bool InRange);
  void checkChoiceRules(SettingId Id, const Choice &C, const ModelSpec &Spec);
  /// The settings a checkpoint layout's family has (its names exist only
  /// for them): each contradiction is an error naming both.
  void checkCheckpoint(CheckpointLayout Layout);
  void layoutNeeds(CheckpointLayout Layout, SettingId Other,
                   const std::string &Needs, const std::string &Is);

  std::optional<int64_t> intOf(SettingId Id) const;
  std::optional<double> floatOf(SettingId Id) const;
  void ruleError(SettingId Id, const llvm::Twine &Message);

  void error(SourceRange R, const llvm::Twine &Message);
  void note(SourceRange R, const llvm::Twine &Message) {
    if (!Quiet)
      Diags.note(R, Message);
  }
  /// The value's expression, or the encoder's name for a default.
  SourceRange rangeOfKey(SettingId Id) const;
  const Entry *entry(SettingId Id) const {
    const Entry &E = Map[indexOf(Id)];
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
  std::array<bool, NumSettings> RangeOk{};
  std::vector<SettingId> Stack;          // keys being evaluated
  std::vector<const Entry *> EntryStack; // their entries (null: default)
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

SourceRange EncoderResolver::rangeOfKey(SettingId Id) const {
  if (const Entry *E = entry(Id))
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
    error(R, "'" + Id.Name + "' is " + withArticle(Info->Choices->Noun) +
                 ", not a number; it cannot be used in an expression");
    return std::nullopt;
  }
  return valueOf(idOf(*Info));
}

std::optional<EvalValue> EncoderResolver::evalExpr(const ast::Expr &E) {
  auto Lookup = [&](const ast::Identifier &Id) { return lookup(Id); };
  auto Report = [&](SourceRange R, const llvm::Twine &M) { error(R, M); };
  ExprEvaluator Eval(Lookup, Report); // function_refs: the lambdas must outlive it
  return Eval.eval(E);
}

void EncoderResolver::reportCycle(SettingId Id) {
  auto Start = std::find(Stack.begin(), Stack.end(), Id);
  std::string Path;
  for (auto It = Start; It != Stack.end(); ++It)
    Path += std::string(settingInfo(*It).Name) + " -> ";
  Path += settingInfo(Id).Name;
  // Report at the member that closes the cycle, then point at each member.
  size_t First = Start - Stack.begin();
  EntryStack.push_back(EntryStack[First]);
  error(rangeOfKey(Id), "cyclic definition: " + Path);
  EntryStack.pop_back();
  for (size_t I = First; I < Stack.size() && Stack.size() - First > 1; ++I) {
    const SettingInfo &Member = settingInfo(Stack[I]);
    if (entry(Stack[I]))
      note(rangeOfKey(Stack[I]), "'" + llvm::Twine(Member.Name) +
                                     "' is defined here");
    else if (Member.Default.How == DefaultSpec::Expression)
      note(nameRange(), "'" + llvm::Twine(Member.Name) +
                            "' is not set, so it defaults to " +
                            Member.Default.Text);
    else
      note(nameRange(), "'" + llvm::Twine(Member.Name) +
                            "' takes its default here");
  }
}

std::optional<EvalValue> EncoderResolver::valueOf(SettingId Id) {
  KeyState &S = Values[indexOf(Id)];
  switch (S.St) {
  case State::Done:
    return S.Value;
  case State::Failed:
    return std::nullopt;
  case State::Active:
    reportCycle(Id);
    return std::nullopt;
  case State::Unvisited:
    break;
  }
  S.St = State::Active;
  Stack.push_back(Id);
  EntryStack.push_back(entry(Id));
  std::optional<EvalValue> V = computeValue(settingInfo(Id));
  EntryStack.pop_back();
  Stack.pop_back();
  // A cycle through this key failed it already.
  if (V && S.St == State::Active) {
    S.St = State::Done;
    S.Value = *V;
    return V;
  }
  S.St = State::Failed;
  return std::nullopt;
}

std::optional<EvalValue> EncoderResolver::checkKind(const SettingInfo &Info,
                                                    const EvalValue &V,
                                                    SourceRange R) {
  switch (Info.Kind) {
  case SettingKind::Int:
    if (V.K != EvalValue::Int) {
      error(R, llvm::Twine("'") + Info.Name + "' must be an integer, but " +
                   "its value " + V.str() + " is " + V.kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Float:
    if (V.K == EvalValue::Bool) {
      error(R, llvm::Twine("'") + Info.Name + "' must be a number, but its "
                   "value " + V.str() + " is a boolean");
      return std::nullopt;
    }
    return EvalValue::ofFloat(V.asDouble());
  case SettingKind::Bool:
    if (V.K != EvalValue::Bool) {
      error(R, llvm::Twine("'") + Info.Name + "' must be true or false, but " +
                   "its value " + V.str() + " is " + V.kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Choice:
    break;
  }
  llvm_unreachable("choices are resolved by choiceOf");
}

std::optional<EvalValue>
EncoderResolver::computeValue(const SettingInfo &Info) {
  const Entry *E = entry(idOf(Info));
  if (!E)
    return defaultValue(Info);
  const ast::Expr &Expr = E->Setting->Value;
  std::optional<EvalValue> V = evalExpr(Expr);
  if (!V)
    return std::nullopt;
  return checkKind(Info, *V, {Expr.Begin, Expr.End});
}

std::optional<EvalValue>
EncoderResolver::defaultValue(const SettingInfo &Info) {
  switch (Info.Default.How) {
  case DefaultSpec::Required:
    // No value, so no spec, even when nothing is reported: resolve() must
    // not build one from the missing key (UBSan: d_model / heads read as 0).
    Failed = true;
    // A broken base already explains why a key is missing.
    if (!BaseFailed)
      error(nameRange(), "encoder '" + Enc.Name.Name + "' does not set '" +
                             Info.Name + "', which is required");
    return std::nullopt;
  case DefaultSpec::TrueWhen: {
    const SettingInfo *Key = findSetting(Info.Default.WhenKey);
    std::optional<Choice> C = choiceOf(idOf(*Key));
    return EvalValue::ofBool(
        C && Info.Default.WhenValue ==
                 llvm::StringRef(Key->Choices->Spellings[C->Value]));
  }
  case DefaultSpec::Expression:
    break;
  }
  // The default head_dim = d_model / heads needs heads to divide d_model;
  // checkRules(heads) says so, naming both values, so its evaluation here
  // must not add a second message about an inexact division.
  if (idOf(Info) == SettingId::head_dim)
    if (auto D = valueOf(SettingId::d_model), H = valueOf(SettingId::heads);
        D && H && H->K == EvalValue::Int && D->K == EvalValue::Int &&
        H->I >= 1 && D->I % H->I != 0) {
      Failed = true;
      return std::nullopt;
    }
  // The default is evaluated as if written, against this encoder's values.
  // A setting it reads that breaks its own range is reported by that rule;
  // evaluating the default from it would only add a cascade (or overflow).
  std::string Refs;
  auto Lookup = [&](const ast::Identifier &Id) -> std::optional<EvalValue> {
    const SettingInfo *Ref = findSetting(Id.Name);
    assert(Ref && Ref->Kind != SettingKind::Choice && "bad default in table");
    std::optional<EvalValue> V = valueOf(idOf(*Ref));
    if (V && V->K == EvalValue::Int && !Ref->Range.contains(V->I))
      return std::nullopt;
    if (V)
      Refs += (Refs.empty() ? "" : ", ") + Id.Name + " is " + V->str();
    return V;
  };
  auto Report = [&](SourceRange, const llvm::Twine &M) { error(nameRange(), M); };
  ExprEvaluator Eval(Lookup, Report);
  Eval.setDescription([&] {
    return "the default " + std::string(Info.Name) + " = " + Info.Default.Text +
           (Refs.empty() ? "" : " (" + Refs + ")");
  });
  std::optional<EvalValue> V = Eval.eval(DefaultExpressions::get().of(Info));
  if (!V)
    return std::nullopt;
  return checkKind(Info, *V, nameRange());
}

std::optional<unsigned>
EncoderResolver::nameChoice(const ChoiceSetInfo &Set,
                            const ast::Identifier &Name) {
  for (unsigned I = 0; I < Set.Spellings.size(); ++I)
    if (Name.Name == Set.Spellings[I])
      return I;
  SourceRange R{Name.Begin, Name.End};
  llvm::StringRef Variant = spellingVariant(Name.Name, Set.Spellings);
  if (!Variant.empty())
    error(R, llvm::Twine("unknown ") + Set.Noun + " '" + Name.Name +
                 "'; did you mean '" + Variant + "'?");
  else if (const char *Meaning = meaningOf(Set, Name.Name))
    error(R, llvm::Twine("unknown ") + Set.Noun + " '" + Name.Name + "'; " +
                 Meaning);
  else
    error(R, llvm::Twine("unknown ") + Set.Noun + " '" + Name.Name +
                 "'; expected " + quoteList(Set.Spellings));
  return std::nullopt;
}

std::optional<Choice> EncoderResolver::choiceOf(SettingId Id) {
  unsigned Index = indexOf(Id);
  if (ChoiceDone[Index])
    return Choices[Index];
  ChoiceDone[Index] = true;
  std::optional<Choice> &Result = Choices[Index];
  const SettingInfo &Info = settingInfo(Id);
  const ChoiceSetInfo &Set = *Info.Choices;
  const Entry *E = entry(Id);
  if (!E) {
    for (unsigned I = 0; I < Set.Spellings.size(); ++I)
      if (llvm::StringRef(Info.Default.Text) == Set.Spellings[I])
        Result = Choice{I, nullptr};
    assert(Result && "a choice's default must be one of its spellings");
    return Result;
  }
  EntryStack.push_back(E);
  const ast::Operand &Op = stripParens(E->Setting->Value);
  Choice C;
  const ast::Identifier *Name = nullptr;
  if (const auto *Id = boost::get<ast::Identifier>(&Op.get())) {
    Name = Id;
  } else if (const auto *Call =
                 boost::get<x3::forward_ast<ast::Call>>(&Op.get())) {
    Name = &Call->get().Callee;
    C.Call = &Call->get();
  }
  if (!Name) {
    const ast::Expr &V = E->Setting->Value;
    // `gelu-tanh` parses as gelu minus tanh: the name with '_' may be meant.
    std::string Hint;
    if (std::optional<std::string> Dashed = dashedName(V))
      if (llvm::StringRef Variant = spellingVariant(*Dashed, Set.Spellings);
          !Variant.empty())
        Hint = "; did you mean '" + Variant.str() + "'?";
    error({V.Begin, V.End},
          llvm::Twine("'") + Info.Name + "' must name " +
              withArticle(Set.Noun) + " (" + quoteList(Set.Spellings) +
              "), not an expression" + Hint);
  } else if (std::optional<unsigned> Value = nameChoice(Set, *Name)) {
    C.Value = *Value;
    Result = C;
  }
  EntryStack.pop_back();
  return Result;
}

std::optional<EvalValue> EncoderResolver::evalArg(const SettingInfo &Scheme,
                                                  const SettingInfo &Arg,
                                                  const ast::Arg &A) {
  const char *SchemeName = Scheme.Choices->Spellings[Arg.Scheme];
  SourceRange R{A.Value.Begin, A.Value.End};
  if (Arg.Kind == SettingKind::Choice) {
    const auto *Id = boost::get<ast::Identifier>(&stripParens(A.Value).get());
    if (!Id) {
      error(R, llvm::Twine(Arg.Choices->Noun) + " must be " +
                   quoteList(Arg.Choices->Spellings));
      return std::nullopt;
    }
    for (unsigned I = 0; I < Arg.Choices->Spellings.size(); ++I)
      if (Id->Name == Arg.Choices->Spellings[I])
        return EvalValue::ofInt(I);
    llvm::StringRef Variant = spellingVariant(Id->Name, Arg.Choices->Spellings);
    if (!Variant.empty())
      error(R, llvm::Twine("unknown ") + Arg.Choices->Noun + " '" + Id->Name +
                   "'; did you mean '" + Variant + "'?");
    else if (const char *Meaning = meaningOf(*Arg.Choices, Id->Name))
      error(R, llvm::Twine("unknown ") + Arg.Choices->Noun + " '" + Id->Name +
                   "'; " + Meaning);
    else
      error(R, llvm::Twine(Arg.Choices->Noun) + " must be " +
                   quoteList(Arg.Choices->Spellings));
    return std::nullopt;
  }
  std::optional<EvalValue> V = evalExpr(A.Value);
  if (!V)
    return std::nullopt;
  switch (Arg.Kind) {
  case SettingKind::Float:
    if (V->K == EvalValue::Bool) {
      error(R, llvm::Twine(SchemeName) + " " + Arg.Name +
                   " must be a number, not " + V->str());
      return std::nullopt;
    }
    if (Arg.Range.How == RangeSpec::Positive && !(V->asDouble() > 0)) {
      error(R, llvm::Twine(SchemeName) + " " + Arg.Name + " (" + V->str() +
                   ") must be greater than 0");
      return std::nullopt;
    }
    return EvalValue::ofFloat(V->asDouble());
  case SettingKind::Int:
    if (V->K != EvalValue::Int) {
      error(R, llvm::Twine("'") + Arg.Name + "' of " + SchemeName +
                   " must be an integer, but " + V->str() + " is " +
                   V->kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Bool:
    if (V->K != EvalValue::Bool) {
      error(R, llvm::Twine("'") + Arg.Name + "' of " + SchemeName +
                   " must be true or false, but " + V->str() + " is " +
                   V->kindName());
      return std::nullopt;
    }
    return V;
  case SettingKind::Choice:
    break;
  }
  llvm_unreachable("choice arguments are handled above");
}

std::optional<EncoderResolver::ArgValues>
EncoderResolver::resolveArgs(const SettingInfo &Info, const Choice &C) {
  const ChoiceSetInfo &Set = *Info.Choices;
  const char *Name = Set.Spellings[C.Value];
  std::vector<const SettingInfo *> Args = schemeArgs(Set, C.Value);
  ArgValues Values(Args.size());
  bool Ok = true;
  if (C.Call && !C.Call->Args.empty()) {
    if (Args.empty()) {
      error({C.Call->Begin, C.Call->End},
            llvm::Twine("'") + Name + "' takes no arguments");
      return std::nullopt;
    }
    std::vector<const char *> ArgNames;
    for (const SettingInfo *A : Args)
      ArgNames.push_back(A->Name);
    std::map<std::string, const ast::Arg *> Seen;
    for (const ast::Arg &A : C.Call->Args) {
      if (!A.Name) {
        error({A.Begin, A.End}, llvm::Twine("arguments of '") + Name +
                                    "' must be named, as in " + Name + "(" +
                                    Args[0]->Name + " = " +
                                    Args[0]->Default.Text + ")");
        Ok = false;
        continue;
      }
      const std::string &ArgName = A.Name->Name;
      SourceRange NameR{A.Name->Begin, A.Name->End};
      auto Known = std::find_if(Args.begin(), Args.end(),
                                [&](const SettingInfo *S) {
                                  return ArgName == S->Name;
                                });
      if (Known == Args.end()) {
        llvm::StringRef Near = closestMatch(ArgName, ArgNames);
        if (!Near.empty())
          error(NameR, "unknown argument '" + ArgName + "' of '" + Name +
                           "'; did you mean '" + Near + "'?");
        else
          error(NameR, "unknown argument '" + ArgName + "' of '" + Name +
                           "'; it takes " + quoteList(ArgNames));
        Ok = false;
        continue;
      }
      auto [It, Inserted] = Seen.emplace(ArgName, &A);
      if (!Inserted) {
        error(NameR, "duplicate argument '" + ArgName + "' of '" + Name + "'");
        note({It->second->Begin, It->second->End}, "previous value is here");
        Ok = false;
        continue;
      }
      std::optional<EvalValue> V = evalArg(Info, **Known, A);
      Ok &= V.has_value();
      Values[Known - Args.begin()] = V;
    }
  }
  if (!Ok)
    return std::nullopt;
  // The arguments not written take their defaults, which may name the
  // scheme's other arguments.
  for (size_t I = 0; I < Args.size(); ++I) {
    if (Values[I])
      continue;
    const SettingInfo &A = *Args[I];
    if (A.Kind == SettingKind::Choice) {
      for (unsigned V = 0; V < A.Choices->Spellings.size(); ++V)
        if (llvm::StringRef(A.Default.Text) == A.Choices->Spellings[V])
          Values[I] = EvalValue::ofInt(V);
      continue;
    }
    auto Lookup = [&](const ast::Identifier &Id) -> std::optional<EvalValue> {
      for (size_t J = 0; J < Args.size(); ++J)
        if (Id.Name == Args[J]->Name && Values[J])
          return Values[J];
      return lookup(Id);
    };
    auto Report = [&](SourceRange, const llvm::Twine &M) {
      error(rangeOfKey(idOf(Info)), M);
    };
    ExprEvaluator Eval(Lookup, Report);
    Values[I] = Eval.eval(DefaultExpressions::get().of(A));
    if (!Values[I])
      return std::nullopt;
  }
  return Values;
}

void EncoderResolver::storeArgs(ModelSpec &Spec, const ChoiceSetInfo &Set,
                                unsigned Scheme, const ArgValues &Values) {
  std::vector<const SettingInfo *> Args = schemeArgs(Set, Scheme);
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Name = Args[I]->Name;
    const EvalValue &V = *Values[I];
#define ENC_SCHEME_ARG(Enum, Enumerator, Arg, Field, ...)                      \
  if (&Set == &ChoiceSet<Enum>::info() &&                                      \
      Scheme == static_cast<unsigned>(Enum::Enumerator) && Name == #Arg)       \
    assign(Spec.Field, V);
#include "enc/lang/Settings.def"
  }
}

std::optional<int64_t> EncoderResolver::intOf(SettingId Id) const {
  const KeyState &S = Values[indexOf(Id)];
  if (S.St != State::Done)
    return std::nullopt;
  return S.Value.I;
}

std::optional<double> EncoderResolver::floatOf(SettingId Id) const {
  const KeyState &S = Values[indexOf(Id)];
  if (S.St != State::Done)
    return std::nullopt;
  return S.Value.F;
}

// Rule errors point at the offending value; inherited ones say for whom.
void EncoderResolver::ruleError(SettingId Id, const llvm::Twine &Message) {
  EntryStack.push_back(entry(Id));
  error(rangeOfKey(Id), Message);
  EntryStack.pop_back();
}

bool EncoderResolver::checkRange(const SettingInfo &Info) {
  SettingId Id = idOf(Info);
  const RangeSpec &Range = Info.Range;
  switch (Range.How) {
  case RangeSpec::Any:
    return true;
  case RangeSpec::Positive:
    if (std::optional<double> V = floatOf(Id); V && !(*V > 0)) {
      ruleError(Id, llvm::Twine(Info.Name) + " (" + formatFloat(*V) +
                        ") must be greater than 0");
      return false;
    }
    return true;
  case RangeSpec::IntRange:
    break;
  }
  std::optional<int64_t> V = intOf(Id);
  if (!V || Range.contains(*V))
    return true;
  const int64_t Lo = Range.Lo, Hi = Range.Hi;
  const bool NoUpperBound = Hi == MaxInt32Setting || Hi == INT64_MAX;
  if (*V < Lo && Lo == 1 && NoUpperBound)
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") must be at least 1");
  else if (*V < Lo && Lo == 0)
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") must not be negative");
  else if (*V > Hi && Hi == MaxInt32Setting)
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") is too large: the runtime takes at most " +
                      str(MaxInt32Setting));
  else
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") must be between " + str(Lo) + " and " + str(Hi));
  return false;
}

std::optional<unsigned> EncoderResolver::choiceValue(SettingId Id) const {
  const std::optional<Choice> &C = Choices[indexOf(Id)];
  if (!ChoiceDone[indexOf(Id)] || !C)
    return std::nullopt;
  return C->Value;
}

std::optional<int64_t> EncoderResolver::localBlocks() const {
  auto Window = intOf(SettingId::window), Every = intOf(SettingId::global_every),
       Blocks = intOf(SettingId::blocks);
  if (!Window || !Every || !Blocks || *Window < 0 || *Every < 0 ||
      *Blocks < 1 || *Blocks > 1024)
    return std::nullopt;
  if (*Window == 0)
    return 0;
  int64_t Global = *Every > 0 ? (*Blocks + *Every - 1) / *Every : 0;
  return *Blocks - Global;
}

void EncoderResolver::noteSetting(SettingId Id) {
  if (entry(Id))
    note(rangeOfKey(Id), llvm::Twine(settingInfo(Id).Name) + " is set here");
}

void EncoderResolver::checkRules(SettingId Id, bool InRange) {
  switch (Id) {
  case SettingId::heads:
    // With head_dim written, each head has its own width and heads need not
    // divide d_model (T5's d_kv).
    if (auto H = intOf(Id), D = intOf(SettingId::d_model);
        InRange && H && D && RangeOk[indexOf(SettingId::d_model)] &&
        !entry(SettingId::head_dim) && *D % *H != 0) {
      ruleError(Id, "d_model (" + str(*D) + ") is not divisible by heads (" +
                        str(*H) + ")");
      noteSetting(SettingId::d_model);
      note(rangeOfKey(Id), "heads of another width need head_dim (T5's "
                           "d_kv), which then need not divide d_model");
    }
    return;
  case SettingId::head_dim:
    if (auto HD = intOf(Id), H = intOf(SettingId::heads);
        InRange && HD && H && RangeOk[indexOf(SettingId::heads)] &&
        *H > MaxAttentionWidth / *HD) {
      ruleError(Id, "heads (" + str(*H) + ") * head_dim (" + str(*HD) +
                        ") is too wide: the attention takes at most " +
                        str(MaxAttentionWidth) + " columns");
      noteSetting(SettingId::heads);
    }
    return;
  case SettingId::attention_scale:
    if (auto Scale = floatOf(Id);
        InRange && Scale &&
        (!(static_cast<float>(*Scale) > 0) ||
         std::isinf(static_cast<float>(*Scale))))
      ruleError(Id, "attention_scale (" + formatFloat(*Scale) +
                        ") is not a positive finite fp32 number, the "
                        "precision the model runs in");
    return;
  case SettingId::position_offset:
    if (auto O = intOf(Id); InRange && O && *O > 0) {
      std::optional<unsigned> P = choiceValue(SettingId::positional);
      if (P && static_cast<PositionalKind>(*P) != PositionalKind::Learned) {
        ruleError(Id, "position_offset (" + str(*O) +
                          ") has no effect: positions are not learned "
                          "(positional is " +
                          toString(static_cast<PositionalKind>(*P)).str() + ")");
        noteSetting(SettingId::positional);
      } else if (auto M = intOf(SettingId::max_len);
                 P && M && RangeOk[indexOf(SettingId::max_len)] &&
                 *M > MaxInt32Setting - *O) {
        ruleError(Id, "max_len (" + str(*M) + ") + position_offset (" +
                          str(*O) + ") rows of embed.positions is more than "
                          "the runtime takes (" +
                          str(MaxInt32Setting) + ")");
      }
    }
    return;
  case SettingId::window:
    if (auto W = intOf(Id); InRange && W && *W > 0) {
      std::optional<int64_t> Local = localBlocks();
      auto Every = intOf(SettingId::global_every);
      if (Local && *Local == 0 && Every) {
        ruleError(Id, "window (" + str(*W) +
                          ") has no effect: every block is global (with "
                          "global_every " + str(*Every) + ", block n is "
                          "global when n % " + str(*Every) + " == 0, and "
                          "blocks is " + str(*intOf(SettingId::blocks)) +
                          ")");
        noteSetting(SettingId::global_every);
      } else if (auto M = intOf(SettingId::max_len);
                 M && RangeOk[indexOf(SettingId::max_len)] && entry(Id) &&
                 *W / 2 >= *M - 1) {
        Diags.warning(rangeOfKey(Id),
                      "window (" + str(*W) + ") has no effect at max_len " +
                          str(*M) + ": every key is within window / 2 (" +
                          str(*W / 2) + ") of every query");
      }
    }
    return;
  case SettingId::global_every:
    if (auto E = intOf(Id), W = intOf(SettingId::window);
        InRange && E && W && *E > 0 && *W == 0) {
      ruleError(Id, "global_every (" + str(*E) +
                        ") has no effect without a window: with window 0 "
                        "every block is global");
    }
    return;
  case SettingId::norm_bias:
    if (auto NB = Values[indexOf(Id)]; NB.St == State::Done && !NB.Value.B)
      if (std::optional<unsigned> K = choiceValue(SettingId::norm_type);
          K && static_cast<NormType>(*K) == NormType::RMSNorm) {
        ruleError(Id, "norm_bias = false has no effect: rmsnorm has no bias");
        noteSetting(SettingId::norm_type);
      }
    return;
  case SettingId::first_attn_norm:
    if (auto F = Values[indexOf(Id)]; F.St == State::Done && !F.Value.B)
      if (std::optional<unsigned> N = choiceValue(SettingId::norm);
          N && static_cast<NormLayout>(*N) == NormLayout::Post) {
        ruleError(Id, "first_attn_norm = false needs norm = pre: with norm "
                      "= post, block 0's first norm follows its attention");
        noteSetting(SettingId::norm);
      }
    return;
  case SettingId::type_vocab:
    if (auto TV = intOf(Id), V = intOf(SettingId::vocab);
        TV && V && *TV > 0 && *V == 0)
      ruleError(Id, "type_vocab (" + str(*TV) +
                        ") needs token ids, but vocab is 0 (the input is "
                        "float embeddings)");
    return;
  case SettingId::eps:
    if (auto Eps = floatOf(Id);
        InRange && Eps &&
        (!(static_cast<float>(*Eps) > 0) ||
         std::isinf(static_cast<float>(*Eps))))
      ruleError(Id, "eps (" + formatFloat(*Eps) +
                        ") is not a positive finite fp32 number, the "
                        "precision the model runs in");
    return;
  case SettingId::embed_scale:
    if (auto Scale = floatOf(Id)) {
      if (std::isinf(static_cast<float>(*Scale)))
        ruleError(Id, "embed_scale (" + formatFloat(*Scale) +
                          ") overflows fp32, the precision the model runs in");
      else if (*Scale != 1.0 &&
               intOf(SettingId::vocab) == std::optional<int64_t>(0) &&
               entry(Id))
        Diags.warning(rangeOfKey(Id),
                      "embed_scale has no effect when vocab is 0: the input "
                      "is embeddings, which are not scaled");
    }
    return;
  case SettingId::d_model:
  case SettingId::d_ff:
  case SettingId::blocks:
  case SettingId::max_len:
  case SettingId::vocab:
  case SettingId::positional:
  case SettingId::norm:
  case SettingId::norm_type:
  case SettingId::activation:
  case SettingId::bias:
  case SettingId::embed_norm:
  case SettingId::final_norm:
  case SettingId::pooling:
  case SettingId::ffn:
  case SettingId::normalize:
  case SettingId::checkpoint:
  case SettingId::precision:
    return;
  }
}

void EncoderResolver::layoutNeeds(CheckpointLayout Layout, SettingId Other,
                                  const std::string &Needs,
                                  const std::string &Is) {
  error(rangeOfKey(SettingId::checkpoint),
        "checkpoint = " + toString(Layout).str() + " needs " + Needs +
            " (its family's tensors), but " + Is);
  noteSetting(Other);
}

void EncoderResolver::checkCheckpoint(CheckpointLayout Layout) {
  // The family table's rows (families.def), in its order.
  for (const FamilyNeed &N : familyNeeds()) {
    if (N.Layout != Layout)
      continue;
    const SettingInfo &Info = settingInfo(N.Key);
    std::string Key = Info.Name;
    switch (N.What) {
    case FamilyNeed::Choice: {
      std::optional<unsigned> V = choiceValue(N.Key);
      if (V && *V != N.Value)
        layoutNeeds(Layout, N.Key, Key + " = " + Info.Choices->Spellings[N.Value],
                    Key + " is " + Info.Choices->Spellings[*V]);
      break;
    }
    case FamilyNeed::Bool: {
      const KeyState &V = Values[indexOf(N.Key)];
      const char *Spelled[] = {"false", "true"};
      if (V.St == State::Done && V.Value.B != (N.Value != 0))
        layoutNeeds(Layout, N.Key, Key + " = " + Spelled[N.Value != 0],
                    Key + " is " + Spelled[N.Value == 0]);
      break;
    }
    case FamilyNeed::Zero:
      if (auto V = intOf(N.Key); V && *V != 0)
        layoutNeeds(Layout, N.Key, Key + " = 0", Key + " is " + str(*V));
      break;
    case FamilyNeed::Positive:
      if (auto V = intOf(N.Key); V && *V <= 0)
        layoutNeeds(Layout, N.Key, Key + " > 0", Key + " is " + str(*V));
      break;
    }
  }
}

void EncoderResolver::checkChoiceRules(SettingId Id, const Choice &C,
                                       const ModelSpec &Spec) {
  if (Id == SettingId::checkpoint) {
    checkCheckpoint(static_cast<CheckpointLayout>(C.Value));
    return;
  }
  if (Id != SettingId::positional)
    return;
  SourceRange R = rangeOfKey(Id);
  switch (static_cast<PositionalKind>(C.Value)) {
  case PositionalKind::Rope:
    if (std::optional<unsigned> L = choiceValue(SettingId::checkpoint);
        L && static_cast<CheckpointLayout>(*L) == CheckpointLayout::ModernBert &&
        Spec.Rope == RopeStyle::Interleaved)
      error(R, "checkpoint = modernbert needs rope style = halves (its "
               "family's rotation), but style is interleaved");
    if (auto HD = intOf(SettingId::head_dim); HD && *HD % 2 != 0) {
      if (entry(SettingId::head_dim))
        error(R, "rope needs an even d_k, but head_dim is " + str(*HD));
      else
        error(R, "rope needs an even d_k, but d_model (" +
                     str(*intOf(SettingId::d_model)) + ") / heads (" +
                     str(*intOf(SettingId::heads)) + ") = " + str(*HD));
    } else if (Spec.RopeLocalBase != Spec.RopeBase &&
               localBlocks() == std::optional<int64_t>(0)) {
      error(R, "rope local_base (" + formatFloat(Spec.RopeLocalBase) +
                   ") has no effect without local blocks (window is " +
                   str(*intOf(SettingId::window)) + ")");
    }
    return;
  case PositionalKind::Relative:
    if (Spec.RelBuckets < 2 || Spec.RelBuckets % 2 != 0)
      error(R, "relative buckets (" + str(Spec.RelBuckets) +
                   ") must be even and at least 2");
    else if (Spec.RelBuckets > MaxInt32Setting)
      error(R, "relative buckets (" + str(Spec.RelBuckets) + ") is too large");
    else if (Spec.RelMaxDistance > MaxInt32Setting)
      error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                   ") is too large");
    else if (Spec.RelMaxDistance <= Spec.RelBuckets / 2)
      error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                   ") must be greater than buckets / 2 (" +
                   str(Spec.RelBuckets / 2) + ")");
    return;
  case PositionalKind::None:
  case PositionalKind::Sinusoidal:
  case PositionalKind::Learned:
  case PositionalKind::Alibi:
    return;
  }
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
      choiceOf(idOf(Info));
    else
      valueOf(idOf(Info));
  }

  // Every scheme's arguments start at their defaults; the chosen scheme's
  // then take what is written.
  for (const SettingInfo &Info : allSettings())
    if (Info.Kind == SettingKind::Choice)
      for (unsigned V = 0; V < Info.Choices->Spellings.size(); ++V)
        if (auto Defaults = resolveArgs(Info, Choice{V, nullptr}))
          storeArgs(Spec, *Info.Choices, V, *Defaults);

  // Ranges and rules: the numbers first, then the choices and their
  // arguments.
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind == SettingKind::Choice)
      continue;
    RangeOk[indexOf(Info)] = checkRange(Info);
    checkRules(idOf(Info), RangeOk[indexOf(Info)]);
  }
  for (const SettingInfo &Info : allSettings()) {
    if (Info.Kind != SettingKind::Choice)
      continue;
    SettingId Id = idOf(Info);
    EntryStack.push_back(entry(Id));
    if (std::optional<Choice> C = choiceOf(Id)) {
      if (std::optional<ArgValues> Args = resolveArgs(Info, *C)) {
        storeArgs(Spec, *Info.Choices, C->Value, *Args);
        checkChoiceRules(Id, *C, Spec);
      }
    }
    EntryStack.pop_back();
  }

  if (Failed || Diags.errorCount() != ErrorsBefore)
    return std::nullopt;

  auto valueFor = [&](SettingId Id) -> EvalValue {
    if (settingInfo(Id).Kind == SettingKind::Choice)
      return EvalValue::ofInt(Choices[indexOf(Id)]->Value);
    return Values[indexOf(Id)].Value;
  };
#define ENC_SETTING(Key, Field, ...) assign(Spec.Field, valueFor(SettingId::Key));
#include "enc/lang/Settings.def"

  Spec.Origins.reserve(NumSettings);
  for (const SettingInfo &Info : allSettings()) {
    SettingOrigin O;
    if (const Entry *E = entry(idOf(Info))) {
      O.How = E->Owner == &Enc ? SettingOrigin::Written
                               : SettingOrigin::Inherited;
    }
    O.Range = rangeOfKey(idOf(Info));
    O.Loc = Diags.file().lineCol(O.Range.Begin);
    Spec.Origins.push_back(std::move(O));
  }
  return Spec;
}

} // namespace

namespace {
/// Resolves a file's encoders in order, each against those before it.
class FileResolver {
public:
  FileResolver(const ast::File &File, DiagnosticEngine &Diags)
      : File(File), Diags(Diags), Maps(File.Encoders.size()),
        Broken(File.Encoders.size(), false) {}

  std::vector<ModelSpec> resolve() {
    std::vector<ModelSpec> Result;
    Result.reserve(File.Encoders.size());
    for (size_t Index = 0; Index < File.Encoders.size(); ++Index) {
      if (Diags.limitReached())
        break;
      const ast::Encoder &Enc = File.Encoders[Index];
      unsigned ErrorsBefore = Diags.errorCount();
      checkName(Index);
      bool BaseFailed = inherit(Index);
      addOwnSettings(Index);
      EncoderResolver Resolver(Enc, Maps[Index], Diags,
                               BaseFailed || Enc.Incomplete);
      std::optional<ModelSpec> Spec = Resolver.resolve();
      Broken[Index] = !Spec || Diags.errorCount() != ErrorsBefore;
      if (!Broken[Index])
        Result.push_back(std::move(*Spec));
    }
    return Result;
  }

private:
  /// A C symbol prefix, unique in the file.
  void checkName(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    const std::string &Name = Enc.Name.Name;
    SourceRange NameR{Enc.Name.Begin, Enc.Name.End};
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
  }

  /// Starts from the base's settings, as written. True when the base is
  /// missing or had errors (reported there).
  bool inherit(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    if (!Enc.Base)
      return false;
    const std::string &Name = Enc.Name.Name;
    const std::string &BaseName = Enc.Base->Name;
    SourceRange BaseR{Enc.Base->Begin, Enc.Base->End};
    auto Found = FirstByName.find(BaseName);
    if (BaseName == Name) {
      Diags.error(BaseR, "encoder '" + Name + "' cannot inherit from itself");
      return true;
    }
    if (Found != FirstByName.end() && Found->second < Index) {
      Maps[Index] = Maps[Found->second];
      return Broken[Found->second];
    }
    // Declared later in the file?
    for (size_t J = Index + 1; J < File.Encoders.size(); ++J) {
      const ast::Encoder &Later = File.Encoders[J];
      if (Later.Name.Name != BaseName)
        continue;
      Diags.error(BaseR, "base encoder '" + BaseName +
                             "' must be declared before '" + Name + "'");
      Diags.note({Later.Name.Begin, Later.Name.End},
                 "'" + BaseName + "' is declared here");
      return true;
    }
    std::vector<llvm::StringRef> Names;
    for (size_t J = 0; J < Index; ++J)
      Names.push_back(File.Encoders[J].Name.Name);
    llvm::StringRef Near = closestMatch(BaseName, Names);
    if (!Near.empty())
      Diags.error(BaseR, "unknown base encoder '" + BaseName +
                             "'; did you mean '" + Near + "'?");
    else
      Diags.error(BaseR, "unknown base encoder '" + BaseName + "'");
    return true;
  }

  /// This encoder's own settings override inherited ones.
  void addOwnSettings(size_t Index) {
    const ast::Encoder &Enc = File.Encoders[Index];
    std::array<const ast::Setting *, NumSettings> Own{};
    for (const ast::Setting &S : Enc.Settings) {
      SourceRange KeyR{S.Key.Begin, S.Key.End};
      const SettingInfo *Info = findSetting(S.Key.Name);
      if (!Info) {
        std::vector<llvm::StringRef> Names;
        for (const SettingInfo &I : allSettings())
          Names.push_back(I.Name);
        llvm::StringRef Near = closestMatch(S.Key.Name, Names);
        if (!Near.empty())
          Diags.error(KeyR, "unknown setting '" + S.Key.Name +
                                "'; did you mean '" + Near + "'?");
        else
          Diags.error(KeyR, "unknown setting '" + S.Key.Name + "'");
        continue;
      }
      unsigned Key = indexOf(*Info);
      if (const ast::Setting *Prev = Own[Key]) {
        Diags.error(KeyR, "duplicate setting '" + S.Key.Name +
                              "' in encoder '" + Enc.Name.Name + "'");
        Diags.note({Prev->Key.Begin, Prev->Key.End},
                   "previous definition is here");
        continue;
      }
      Own[Key] = &S;
      Maps[Index][Key] = Entry{&S, &Enc};
    }
  }

  const ast::File &File;
  DiagnosticEngine &Diags;
  llvm::StringMap<size_t> FirstByName; // encoder name -> index, so far
  std::vector<SettingMap> Maps;
  std::vector<bool> Broken;
};
} // namespace

std::vector<ModelSpec> enc::resolveFile(const ast::File &File,
                                        DiagnosticEngine &Diags) {
  return FileResolver(File, Diags).resolve();
}

const SettingOrigin &ModelSpec::origin(llvm::StringRef Key) const {
  const SettingInfo *Info = findSetting(Key);
  assert(Info && "origin of an unknown setting");
  return Origins[indexOf(*Info)];
}
