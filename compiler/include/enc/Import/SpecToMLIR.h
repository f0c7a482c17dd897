//===- SpecToMLIR.h - Import resolved encoders into the enc dialect -*- C++
//-*-===//
#ifndef ENC_IMPORT_SPECTOMLIR_H
#define ENC_IMPORT_SPECTOMLIR_H

#include "enc/lang/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace enc {

/// One `func.func @NAME` per encoder, computing docs/numerics.md at tensor
/// level, every op located at the .enc setting it comes from. The module is
/// verified; null on failure (after emitting diagnostics to the context).
mlir::OwningOpRef<mlir::ModuleOp> importSpecs(mlir::MLIRContext &Context,
                                              llvm::ArrayRef<ModelSpec> Specs);

} // namespace enc

#endif // ENC_IMPORT_SPECTOMLIR_H
