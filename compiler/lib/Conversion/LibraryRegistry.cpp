//===- LibraryRegistry.cpp - enc_library_encoders for a shared library ----===//
//
// A shared library built by `encc --emit=shared` describes its encoders
// (enc/library.h) so that one loader serves every model:
//
//   static const enc_encoder_info table[] = {
//     {ENC_LIBRARY_ABI_VERSION, "NAME", d_model, ..., NAME_load, ...}, ...};
//   const enc_encoder_info *enc_library_encoders(int32_t *count) {
//     if (count) *count = N;
//     return table;
//   }
//
// Every field comes from ModelABI.def: the facts of ENC_MODEL_INFO, and a
// pointer to each ENC_MODEL_FUNCTION entry point, found by the field's name.
//
//===----------------------------------------------------------------------===//

#include "EncoderLowering.h"

#include "enc/ABI/ModelABI.h"

using namespace mlir;
using namespace enc;

namespace {
/// The value of field `F` of encoder `Entry`'s enc_encoder_info.
FailureOr<Value> fieldValue(RuntimeBuilder &B, const abi::Field &F,
                            const RegistryEntry &Entry, LLVM::GlobalOp Name,
                            Location L) {
  llvm::StringRef Field = F.Name;
  if (Field == "abi_version")
    return B.i32(ENC_LIBRARY_ABI_VERSION, L);
  if (Field == "name")
    return B.addressOf(Name, L);
  for (const ModelInfoField &I : modelInfoFields())
    if (Field == I.Field)
      return B.i32(Entry.Facts.*I.Fact, L);
  for (const ModelFunction &Fn : modelFunctions()) {
    if (Field != Fn.Suffix)
      continue;
    auto Func =
        B.module().lookupSymbol<LLVM::LLVMFuncOp>(Fn.symbol(Entry.Name));
    if (!Func)
      return failure();
    return Value(B.create<LLVM::AddressOfOp>(L, Func));
  }
  return failure();
}
} // namespace

LogicalResult enc::emitLibraryRegistry(ModuleOp Module,
                                       ArrayRef<RegistryEntry> Entries) {
  RuntimeBuilder B(Module);
  Location L = Module.getLoc();
  MLIRContext *Ctx = B.getContext();
  auto InfoTy = abi::structType<enc_encoder_info>(Ctx);
  auto TableTy = LLVM::LLVMArrayType::get(InfoTy, Entries.size());

  SmallVector<LLVM::GlobalOp> Names;
  for (auto [I, Entry] : llvm::enumerate(Entries))
    Names.push_back(B.stringGlobal("enc_library_name" + std::to_string(I),
                                   Entry.Name, Entry.Loc));

  B.setInsertionPointToEnd(Module.getBody());
  auto Table = B.create<LLVM::GlobalOp>(L, TableTy, /*isConstant=*/true,
                                        LLVM::Linkage::Internal,
                                        "enc_library_table", Attribute());
  B.setInsertionPointToStart(B.createBlock(&Table.getInitializerRegion()));
  Value V = B.create<LLVM::UndefOp>(L, TableTy);
  for (auto [I, Entry] : llvm::enumerate(Entries)) {
    Value Info = B.create<LLVM::UndefOp>(L, InfoTy);
    for (auto [FieldIndex, F] :
         llvm::enumerate(abi::RuntimeStruct<enc_encoder_info>::Fields)) {
      FailureOr<Value> FieldValue = fieldValue(B, F, Entry, Names[I], L);
      if (failed(FieldValue))
        return emitError(Entry.Loc, "no value for field '")
               << F.Name << "' of enc_encoder_info (enc/library.h) for '"
               << Entry.Name << "'";
      Info = B.create<LLVM::InsertValueOp>(
          L, Info, *FieldValue,
          ArrayRef<int64_t>{static_cast<int64_t>(FieldIndex)});
    }
    V = B.create<LLVM::InsertValueOp>(
        L, V, Info, ArrayRef<int64_t>{static_cast<int64_t>(I)});
  }
  B.create<LLVM::ReturnOp>(L, V);

  B.setInsertionPointToEnd(Module.getBody());
  auto Fn = B.create<LLVM::LLVMFuncOp>(
      L, "enc_library_encoders",
      abi::LLVMType<decltype(enc_library_encoders)>::get(Ctx));
  Block *Entry = Fn.addEntryBlock(B);
  Block *Store = B.createBlock(&Fn.getBody());
  Block *Return = B.createBlock(&Fn.getBody());
  B.setInsertionPointToEnd(Entry);
  Value Count = Entry->getArgument(0);
  Value HasCount =
      B.create<LLVM::ICmpOp>(L, LLVM::ICmpPredicate::ne, Count, B.null(L));
  B.create<LLVM::CondBrOp>(L, HasCount, Store, Return);
  B.setInsertionPointToEnd(Store);
  B.create<LLVM::StoreOp>(L, B.i32(Entries.size(), L), Count);
  B.create<LLVM::BrOp>(L, Return);
  B.setInsertionPointToEnd(Return);
  B.create<LLVM::ReturnOp>(L, B.addressOf(Table, L));
  return success();
}
