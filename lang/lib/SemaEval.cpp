//===- SemaEval.cpp - Settings evaluated on demand
//--------------------------===//
//
// Each key is evaluated once, when first needed, so that keys may refer to
// each other in any order: written values, the table's defaults (parsed by
// the .enc parser itself), kinds, choices and their named arguments, and
// the cycles between keys.
//
//===----------------------------------------------------------------------===//

#include "EncoderResolver.h"

#include "enc/lang/NumberFormat.h"
#include "enc/lang/Parser.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

using namespace enc;
using namespace enc::sema;
namespace x3 = boost::spirit::x3;

namespace enc {
namespace sema {
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
} // namespace sema
} // namespace enc

namespace {
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
} // namespace

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
      error(R, "unknown setting '" + Id.Name +
                   "' in expression; did you mean '" + Near + "'?");
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
  ExprEvaluator Eval(Lookup,
                     Report); // function_refs: the lambdas must outlive it
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
      note(rangeOfKey(Stack[I]),
           "'" + llvm::Twine(Member.Name) + "' is defined here");
    else if (Member.Default.How == DefaultSpec::Expression)
      note(nameRange(), "'" + llvm::Twine(Member.Name) +
                            "' is not set, so it defaults to " +
                            Member.Default.Text);
    else
      note(nameRange(),
           "'" + llvm::Twine(Member.Name) + "' takes its default here");
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

// The value an integer, boolean or string setting takes, and how an error
// names it.
struct ValueKind {
  EvalValue::Kind Kind;
  const char *Noun;
};
static ValueKind valueKindOf(SettingKind K) {
  switch (K) {
  case SettingKind::Int:
    return {EvalValue::Int, "an integer"};
  case SettingKind::Bool:
    return {EvalValue::Bool, "true or false"};
  case SettingKind::String:
    return {EvalValue::String, "a string"};
  case SettingKind::Float:
  case SettingKind::Choice:
    break;
  }
  llvm_unreachable("floats and choices convert, they have no one kind");
}

std::optional<EvalValue> EncoderResolver::checkKind(const SettingInfo &Info,
                                                    const EvalValue &V,
                                                    SourceRange R) {
  switch (Info.Kind) {
  case SettingKind::Int:
  case SettingKind::Bool:
    if (V.K == valueKindOf(Info.Kind).Kind)
      return V;
    error(R, llvm::Twine("'") + Info.Name + "' must be " +
                 valueKindOf(Info.Kind).Noun + ", but its value " + V.str() +
                 " is " + V.kindName());
    return std::nullopt;
  case SettingKind::Float:
    if (V.K == EvalValue::Bool || V.K == EvalValue::String) {
      error(R, llvm::Twine("'") + Info.Name +
                   "' must be a number, but its "
                   "value " +
                   V.str() + " is " + V.kindName());
      return std::nullopt;
    }
    return EvalValue::ofFloat(V.asDouble());
  case SettingKind::String:
    if (V.K != EvalValue::String) {
      error(R, llvm::Twine("'") + Info.Name + "' must be a string such as " +
                   "\"tokenizer.json\", but its value " + V.str() + " is " +
                   V.kindName());
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
  auto Report = [&](SourceRange, const llvm::Twine &M) {
    error(nameRange(), M);
  };
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
    error({V.Begin, V.End}, llvm::Twine("'") + Info.Name + "' must name " +
                                withArticle(Set.Noun) + " (" +
                                quoteList(Set.Spellings) +
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
    if (V->K == EvalValue::Bool || V->K == EvalValue::String) {
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
  case SettingKind::Bool:
  case SettingKind::String:
    if (V->K == valueKindOf(Arg.Kind).Kind)
      return V;
    error(R, llvm::Twine("'") + Arg.Name + "' of " + SchemeName + " must be " +
                 valueKindOf(Arg.Kind).Noun + ", but " + V->str() + " is " +
                 V->kindName());
    return std::nullopt;
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
      auto Known =
          std::find_if(Args.begin(), Args.end(), [&](const SettingInfo *S) {
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
