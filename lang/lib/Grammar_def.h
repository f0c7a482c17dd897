//===- Grammar_def.h - The X3 grammar of .enc, defined ----------*- C++ -*-===//
//
//   file      := encoder+
//   encoder   := "encoder" IDENT ( ":" IDENT )? "{" setting* "}"
//   setting   := KEY "=" value ";"
//   value     := expr            (a scheme is an identifier or a call)
//   expr      := term ( ( "+" | "-" ) term )*
//   term      := factor ( ( "*" | "/" ) factor )*
//   factor    := NUMBER | "true" | "false" | STRING | call | IDENT
//              | "(" expr ")" | "-" factor
//   STRING    := '"' (any character but '"' and a line break)* '"'
//   call      := IDENT "(" ( arg ( "," arg )* )? ")"
//   arg       := ( IDENT "=" )? expr
//
// Schemes and `sqrt` share the call syntax; Sema tells them apart by the key
// they are assigned to, which gives better messages than a grammar that
// forks on the key would.
//
// Only Parser.cpp includes this file.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_LIB_GRAMMAR_DEF_H
#define ENC_LANG_LIB_GRAMMAR_DEF_H

#include "ASTAdapted.h"
#include "Grammar.h"

namespace enc {
namespace grammar {

/// Records the byte range of every AST node that derives from Located, the
/// hand-rolled equivalent of X3's annotate_on_success that stores offsets
/// rather than iterators.
struct Annotate {
  template <typename It, typename Attr, typename Context>
  void on_success(const It &First, const It &Last, Attr &Node,
                  const Context &Ctx) const {
    if constexpr (std::is_base_of_v<ast::Located, Attr>) {
      const char *Begin = x3::get<SourceBeginTag>(Ctx);
      // X3 has skipped leading whitespace before First already.
      Node.Begin = static_cast<uint32_t>(First - Begin);
      Node.End = static_cast<uint32_t>(Last - Begin);
    }
  }
};

struct SkipperId {};
struct IdentifierId {};
struct NumberId {};
struct BoolId {};
struct StringId {};
struct KeywordId {};
struct FactorId : Annotate {};
struct NegateId : Annotate {};
struct CallId : Annotate {};
struct ArgId : Annotate {};
struct NamedArgId : Annotate {};
struct ArgListId {};
struct PlainArgId : Annotate {};
struct MulOpId : Annotate {};
struct AddOpId : Annotate {};
struct TermId : Annotate {};
struct ExprId : Annotate {};
struct EncoderHeadId : Annotate {};
struct SettingId : Annotate {};

const SkipperType Skipper = "whitespace";
const EncoderHeadType EncoderHead = "encoder";
const SettingType Setting = "setting";
const x3::rule<IdentifierId, ast::Identifier> Identifier = "identifier";
const x3::rule<NumberId, ast::NumberLit> Number = "number";
const x3::rule<BoolId, ast::BoolLit> Bool = "boolean";
const x3::rule<StringId, ast::StringLit> String = "string";
const x3::rule<KeywordId> EncoderKeyword = "'encoder'";
const x3::rule<FactorId, ast::Operand> Factor = "expression";
const x3::rule<NegateId, ast::Negate> Negate = "expression";
const x3::rule<CallId, ast::Call> Call = "call";
// A missing argument (after `=` or after a `,`) is a missing expression.
const x3::rule<ArgId, ast::Arg> Arg = "expression";
const x3::rule<NamedArgId, ast::Arg> NamedArg = "expression";
const x3::rule<ArgListId, std::vector<ast::Arg>> ArgList = "expression";
const x3::rule<PlainArgId, ast::Arg> PlainArg = "expression";
const x3::rule<MulOpId, ast::Operation> MulOp = "expression";
const x3::rule<AddOpId, ast::Operation> AddOp = "expression";
const x3::rule<TermId, ast::Expr> Term = "expression";
const x3::rule<ExprId, ast::Expr> Expr = "expression";

// Character classes spelled as sets: the `ascii` classifiers assert on bytes
// above 0x7F, and a .enc file may hold any byte.
const auto IdentStart = x3::char_("a-zA-Z_");
const auto IdentChar = x3::char_("a-zA-Z0-9_");
const auto Digit = x3::char_("0-9");
const auto Space = x3::char_(" \t\r\n\f\v");
const auto Eol = x3::lit('\n');

const auto Skipper_def =
    Space | (x3::lit("//") >> *(x3::char_ - Eol)) |
    (x3::lit("/*") >> *(x3::char_ - x3::lit("*/")) >> x3::lit("*/"));

// Leaf rules build their node in a semantic action, which also records the
// position: X3 does not call on_success for a rule whose body has an action.
template <typename Ctx, typename Node> void locate(Ctx &C, Node &N) {
  const auto &Range = x3::_attr(C);
  const char *Begin = x3::get<SourceBeginTag>(C);
  N.Begin = static_cast<uint32_t>(&*Range.begin() - Begin);
  N.End = static_cast<uint32_t>(N.Begin + Range.size());
}
const auto setText = [](auto &Ctx) {
  const auto &Range = x3::_attr(Ctx);
  x3::_val(Ctx).Text.assign(Range.begin(), Range.end());
  locate(Ctx, x3::_val(Ctx));
};
const auto setName = [](auto &Ctx) {
  const auto &Range = x3::_attr(Ctx);
  x3::_val(Ctx).Name.assign(Range.begin(), Range.end());
  locate(Ctx, x3::_val(Ctx));
};

const auto Keyword = [](const char *Word) {
  return x3::lexeme[x3::lit(Word) >> !IdentChar];
};

const auto Identifier_def =
    x3::raw[x3::lexeme[IdentStart >> *IdentChar]][setName];
const auto Number_def =
    x3::raw[x3::lexeme[+Digit >> -(x3::lit('.') >> *Digit) >>
                       -(x3::char_("eE") >> -x3::char_("+-") >> +Digit)]]
           [setText];
const auto Bool_def = x3::raw[Keyword("true") | Keyword("false")][setText];
// The node spans the quotes; its text is what lies between them.
const auto setString = [](auto &Ctx) {
  const auto &Range = x3::_attr(Ctx);
  auto &Node = x3::_val(Ctx);
  Node.Text.assign(std::next(Range.begin()), std::prev(Range.end()));
  locate(Ctx, Node);
};
const auto String_def =
    x3::raw[x3::lexeme[(x3::lit('"') >> *(x3::char_ - x3::char_("\"\r\n"))) >
                       x3::lit('"')]][setString];
const auto EncoderKeyword_def = Keyword("encoder");

const auto Factor_def = Number | Bool | String | Call | Identifier |
                        (x3::lit('(') > Expr > x3::lit(')')) | Negate;
const auto Negate_def = x3::char_('-') > Factor;
// After a `,` an argument must follow (no trailing comma).
const auto Call_def = (Identifier >> x3::lit('(')) > -ArgList > x3::lit(')');
const auto ArgList_def = Arg >> *(x3::lit(',') > Arg);
// The look-ahead keeps `sqrt(d_model)` from half-filling the argument's name
// before backtracking; after `name =` the value is expected.
const auto Arg_def = (&(Identifier >> x3::lit('=')) >> NamedArg) | PlainArg;
const auto NamedArg_def = (Identifier >> x3::lit('=')) > Expr;
const auto PlainArg_def = x3::attr(boost::optional<ast::Identifier>()) >> Expr;
// Each `op operand` step is a rule of its own so that it records where it
// ends: an error in it underlines the chain up to there.
const auto MulOp_def = x3::char_("*/") > Factor;
const auto AddOp_def = x3::char_("+-") > Term;
const auto Term_def = Factor >> *MulOp;
const auto Expr_def = Term >> *AddOp;

const auto EncoderHead_def = EncoderKeyword > Identifier >
                             -(x3::lit(':') > Identifier) > x3::lit('{');
const auto Setting_def = Identifier > x3::lit('=') > Expr > x3::lit(';');

BOOST_SPIRIT_DEFINE(Skipper, Identifier, Number, Bool, String, EncoderKeyword,
                    Factor, Negate, Call, ArgList, Arg, NamedArg, PlainArg,
                    MulOp, AddOp, Term, Expr, EncoderHead, Setting)

} // namespace grammar
} // namespace enc

BOOST_FUSION_ADAPT_STRUCT(enc::ast::EncoderHead, Name, Base)

#endif // ENC_LANG_LIB_GRAMMAR_DEF_H
