//===- RuntimeBuilder.h - Building calls into the runtime -------*- C++ -*-===//
//
// An OpBuilder for the LLVM dialect with what every lowering step needs:
// constants, float pointer arithmetic, runtime callees declared from their C
// declarations (enc/ABI/RuntimeABI.h) and calls that return early on a
// failing enc_status.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_CONVERSION_RUNTIMEBUILDER_H
#define ENC_CONVERSION_RUNTIMEBUILDER_H

#include "enc/ABI/RuntimeABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace enc {

class RuntimeBuilder : public mlir::OpBuilder {
public:
  explicit RuntimeBuilder(mlir::ModuleOp Module);

  mlir::Type ptrType() const { return Ptr; }
  mlir::Type i32Type() const { return I32; }
  mlir::Type i64Type() const { return I64; }
  mlir::Type f32Type() const { return F32; }

  mlir::Value i32(int64_t V, mlir::Location L);
  mlir::Value i64(int64_t V, mlir::Location L);
  mlir::Value f32(float V, mlir::Location L);
  mlir::Value null(mlir::Location L);
  /// The zero of an LLVM type: a default for struct fields.
  mlir::Value zero(mlir::Type T, mlir::Location L);
  /// Float pointer P advanced by `Floats` elements.
  mlir::Value offset(mlir::Value P, mlir::Value Floats, mlir::Location L);
  mlir::Value addressOf(mlir::LLVM::GlobalOp G, mlir::Location L);

  /// The declaration of runtime function C in the module, added on first use
  /// with the LLVM type of its C declaration.
  mlir::LLVM::LLVMFuncOp declare(const abi::Callee &C);
  /// A call of runtime function C; Args must match its C parameters.
  mlir::Value call(const abi::Callee &C, mlir::ValueRange Args,
                   mlir::Location L);

  /// Where calls that fail go: a block taking the enc_status to return.
  void setFailBlock(mlir::Block *B) { FailBlock = B; }
  /// Calls C and branches to the fail block with its status unless it is
  /// ENC_OK.
  void callChecked(const abi::Callee &C, mlir::ValueRange Args,
                   mlir::Location L);
  /// Continues in a new block when `Failed` is false; otherwise returns
  /// `Status` through the fail block.
  void failIf(mlir::Value Failed, mlir::Value Status, mlir::Location L);

  /// A private constant NUL-terminated string.
  mlir::LLVM::GlobalOp stringGlobal(llvm::StringRef Symbol,
                                    llvm::StringRef Text, mlir::Location L);

  mlir::ModuleOp module() const { return Module; }

private:
  mlir::ModuleOp Module;
  mlir::Type Ptr, I32, I64, F32;
  mlir::Block *FailBlock = nullptr;
};

} // namespace enc

#endif // ENC_CONVERSION_RUNTIMEBUILDER_H
