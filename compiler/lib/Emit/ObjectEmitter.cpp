//===- ObjectEmitter.cpp - LLVM dialect -> LLVM IR -> machine code --------===//

#include "enc/Emit/Emitters.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace enc;

namespace {
void initializeTargets() {
  static bool Initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)Initialized;
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(const TargetOptions &O,
                                                       std::string &Error) {
  initializeTargets();
  std::string Triple = targetTriple(O);
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Error);
  if (!T)
    return nullptr;
  std::string CPU = O.CPU, Features;
  bool Host =
      O.Triple.empty() || O.Triple == llvm::sys::getDefaultTargetTriple();
  if ((CPU.empty() || CPU == "native") && Host) {
    CPU = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures F;
    for (auto &[Name, On] : llvm::sys::getHostCPUFeatures())
      F.AddFeature(Name, On);
    Features = F.getString();
  } else if (CPU == "native") {
    CPU = "";
  }
  llvm::TargetOptions Options;
  auto Level = O.OptLevel == 0 ? llvm::CodeGenOptLevel::None
                               : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
      Triple, CPU, Features, Options, llvm::Reloc::PIC_, std::nullopt, Level));
  if (!TM)
    Error = "cannot create a target machine for '" + Triple + "'";
  return TM;
}
} // namespace

std::string enc::targetTriple(const TargetOptions &O) {
  return O.Triple.empty() ? llvm::sys::getDefaultTargetTriple() : O.Triple;
}

std::vector<std::string> enc::targetCPUs(const TargetOptions &O,
                                         std::string &Error) {
  initializeTargets();
  std::string Triple = targetTriple(O);
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Error);
  if (!T)
    return {};
  std::unique_ptr<llvm::MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(Triple, "", ""));
  std::vector<std::string> CPUs;
  if (STI)
    for (const llvm::SubtargetSubTypeKV &CPU :
         STI->getAllProcessorDescriptions())
      CPUs.push_back(CPU.Key);
  llvm::sort(CPUs);
  return CPUs;
}

std::unique_ptr<llvm::Module>
enc::translateToLLVMIR(mlir::ModuleOp Module, llvm::LLVMContext &Context,
                       const TargetOptions &Options, std::string &Error) {
  mlir::DialectRegistry Registry;
  mlir::registerBuiltinDialectTranslation(Registry);
  mlir::registerLLVMDialectTranslation(Registry);
  Module->getContext()->appendDialectRegistry(Registry);
  std::unique_ptr<llvm::Module> IR =
      mlir::translateModuleToLLVMIR(Module, Context, "encc");
  if (!IR) {
    Error = "cannot translate the module to LLVM IR";
    return nullptr;
  }
  std::unique_ptr<llvm::TargetMachine> TM = makeTargetMachine(Options, Error);
  if (!TM)
    return nullptr;
  IR->setTargetTriple(TM->getTargetTriple().str());
  IR->setDataLayout(TM->createDataLayout());

  if (Options.OptLevel > 0) {
    llvm::LoopAnalysisManager LAM;
    llvm::FunctionAnalysisManager FAM;
    llvm::CGSCCAnalysisManager CGAM;
    llvm::ModuleAnalysisManager MAM;
    llvm::PassBuilder PB(TM.get());
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    llvm::ModulePassManager MPM =
        PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    MPM.run(*IR, MAM);
  }
  return IR;
}

bool enc::emitMachineCode(llvm::Module &IR, const TargetOptions &Options,
                          bool Assembly, llvm::raw_pwrite_stream &OS,
                          std::string &Error) {
  std::unique_ptr<llvm::TargetMachine> TM = makeTargetMachine(Options, Error);
  if (!TM)
    return false;
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              Assembly ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile)) {
    Error = "the target cannot emit this file type";
    return false;
  }
  PM.run(IR);
  return true;
}
