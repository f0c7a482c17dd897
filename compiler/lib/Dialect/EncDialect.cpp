//===- EncDialect.cpp - The enc dialect -----------------------------------===//

#include "enc/Dialect/EncDialect.h"
#include "enc/Dialect/EncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace enc;

#include "enc/Dialect/EncDialect.cpp.inc"
#include "enc/Dialect/EncEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "enc/Dialect/EncAttrs.cpp.inc"

void EncDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "enc/Dialect/EncOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "enc/Dialect/EncAttrs.cpp.inc"
      >();
}
