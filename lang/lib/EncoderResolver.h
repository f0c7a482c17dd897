//===- EncoderResolver.h - One encoder's settings, resolved -----*- C++ -*-===//
//
// Sema's state for one encoder, shared by the files that implement it:
//   SemaEval.cpp   evaluation on demand, defaults, kinds, choices and their
//                  arguments, cycles
//   SemaRules.cpp  ranges, the rules the table cannot say, the family
//                  table's needs of a checkpoint layout
//   Sema.cpp       the encoder's resolution in order, and the file:
//                  inheritance, names, duplicates
// Private to lang/lib.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_LIB_ENCODERRESOLVER_H
#define ENC_LANG_LIB_ENCODERRESOLVER_H

#include "enc/lang/AST.h"
#include "enc/lang/Diagnostics.h"
#include "enc/lang/ExprEval.h"
#include "enc/lang/ModelSpec.h"
#include "enc/lang/Sema.h"
#include "enc/lang/Settings.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace enc {
namespace sema {

/// The setting that gives a key its value in one encoder: written there or
/// inherited (as written, not as a value) from a base.
struct Entry {
  const ast::Setting *Setting = nullptr; // null: not set, the default applies
  const ast::Encoder *Owner = nullptr;   // the encoder whose text holds it
};
/// Indexed like allSettings(): fixed-size, so that a file of thousands of
/// encoders does not spend its time in the allocator.
using SettingMap = std::array<Entry, NumSettings>;

inline unsigned indexOf(SettingId Id) { return static_cast<unsigned>(Id); }
inline unsigned indexOf(const SettingInfo &Info) { return indexOf(idOf(Info)); }

/// A resolved choice: the value's index in its set, and the call that gave
/// it arguments (`rope(base = 500000.0)`), if any.
struct Choice {
  unsigned Value = 0;
  const ast::Call *Call = nullptr;
};

inline std::string withArticle(llvm::StringRef Noun) {
  // "a norm layout", "an activation": the article follows the noun's sound,
  // which for these nouns is its first letter.
  bool Vowel = !Noun.empty() && llvm::StringRef("aeiou").contains(Noun[0]);
  return (Vowel ? "an " : "a ") + Noun.str();
}

inline std::string quoteList(llvm::ArrayRef<const char *> Items) {
  std::string Out;
  for (size_t I = 0; I < Items.size(); ++I) {
    if (I)
      Out += I + 1 == Items.size() ? " or " : ", ";
    Out += Items[I];
  }
  return Out;
}

inline std::string str(int64_t V) { return std::to_string(V); }

/// `a-b-c` written where a name was expected, as the name "a-b-c".
std::optional<std::string> dashedName(const ast::Expr &E);

/// Stores a resolved value in a ModelSpec field of any kind.
template <typename T> inline void assign(T &Field, const EvalValue &V) {
  if constexpr (std::is_same_v<T, int64_t>)
    Field = V.I;
  else if constexpr (std::is_same_v<T, double>)
    Field = V.asDouble();
  else if constexpr (std::is_same_v<T, bool>)
    Field = V.B;
  else if constexpr (std::is_same_v<T, std::string>)
    Field = V.S;
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
  void checkHead(HeadKind Head, const ModelSpec &Spec);
  /// A head's dim in [1, 65536]; an error naming the head otherwise.
  bool checkHeadDim(SourceRange R, llvm::StringRef Head, int64_t Dim);
  /// output_dim leaves the pooled vector whole: `Who` reads all of it.
  void checkWholePooled(SourceRange R, llvm::StringRef Who);
  /// The settings a checkpoint layout's family has (its names exist only
  /// for them): each contradiction is an error naming both.
  void checkCheckpoint(CheckpointLayout Layout);
  void layoutNeeds(CheckpointLayout Layout, SettingId Other,
                   const std::string &Needs, const std::string &Is);

  std::optional<int64_t> intOf(SettingId Id) const;
  std::optional<double> floatOf(SettingId Id) const;
  void ruleError(SettingId Id, const llvm::Twine &Message);
  void checkPositiveFp32(SettingId Id);

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

} // namespace sema
} // namespace enc

#endif // ENC_LANG_LIB_ENCODERRESOLVER_H
