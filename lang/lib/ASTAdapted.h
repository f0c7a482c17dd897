//===- ASTAdapted.h - Boost.Fusion adaptation of the AST --------*- C++ -*-===//
//
// Lets X3 fill the AST structs field by field. Only the parser includes it.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_LIB_ASTADAPTED_H
#define ENC_LANG_LIB_ASTADAPTED_H

#include "enc/lang/AST.h"

#include <boost/fusion/include/adapt_struct.hpp>

BOOST_FUSION_ADAPT_STRUCT(enc::ast::Negate, Op, Inner)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Operation, Op, Rhs)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Expr, First, Rest)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Arg, Name, Value)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Call, Callee, Args)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Setting, Key, Value)
BOOST_FUSION_ADAPT_STRUCT(enc::ast::Encoder, Name, Base, Settings)

#endif // ENC_LANG_LIB_ASTADAPTED_H
