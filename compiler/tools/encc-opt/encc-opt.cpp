//===- encc-opt.cpp - mlir-opt with the enc dialect and passes ------------===//
//
// Runs any of the enc passes (and MLIR's own) on .mlir input, so that each
// pass is tested on its own: `encc-opt --enc-fuse-epilogues in.mlir`.
//
//===----------------------------------------------------------------------===//

#include "enc/Dialect/EncDialect.h"
#include "enc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  enc::registerEncPasses();
  mlir::registerTransformsPasses();
  mlir::registerConversionPasses();

  mlir::DialectRegistry Registry;
  Registry.insert<enc::EncDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::LLVM::LLVMDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "encc-opt: the enc dialect's passes\n", Registry));
}
