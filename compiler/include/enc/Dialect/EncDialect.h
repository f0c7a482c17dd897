//===- EncDialect.h - The enc dialect ---------------------------*- C++ -*-===//
#ifndef ENC_DIALECT_ENCDIALECT_H
#define ENC_DIALECT_ENCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "enc/Dialect/EncDialect.h.inc"
#include "enc/Dialect/EncEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "enc/Dialect/EncAttrs.h.inc"

#endif // ENC_DIALECT_ENCDIALECT_H
