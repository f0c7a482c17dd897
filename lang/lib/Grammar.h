//===- Grammar.h - The X3 grammar of .enc, declared -------------*- C++ -*-===//
//
// The rules are defined in Grammar_def.h, which only Parser.cpp includes
// (X3 compiles slowly: one translation unit holds all of it).
// The parser drives `encoderHead` and `setting` one at a time so that it can
// resume after a syntax error and report the next one.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_LIB_GRAMMAR_H
#define ENC_LANG_LIB_GRAMMAR_H

#include "enc/lang/AST.h"

#include <boost/spirit/home/x3.hpp>

namespace enc {
namespace ast {
/// `encoder NAME (: BASE)? {` — the part of an encoder before its settings.
struct EncoderHead : Located {
  Identifier Name;
  boost::optional<Identifier> Base;
};
} // namespace ast

namespace grammar {
namespace x3 = boost::spirit::x3;

/// Context tag holding the start of the source buffer, from which the
/// position annotation computes byte offsets.
struct SourceBeginTag;

struct SkipperId;
struct EncoderHeadId;
struct SettingId;
using SkipperType = x3::rule<SkipperId, x3::unused_type>;
using EncoderHeadType = x3::rule<EncoderHeadId, ast::EncoderHead>;
using SettingType = x3::rule<SettingId, ast::Setting>;

/// Whitespace and comments.
extern const SkipperType Skipper;
/// `encoder NAME (: BASE)? {`
extern const EncoderHeadType EncoderHead;
/// `KEY = value ;`
extern const SettingType Setting;

} // namespace grammar
} // namespace enc

#endif // ENC_LANG_LIB_GRAMMAR_H
