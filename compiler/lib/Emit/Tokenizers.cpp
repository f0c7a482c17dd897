//===- Tokenizers.cpp - Tokenizers compiled into the object ---------------===//

#include "enc/Emit/Tokenizers.h"

#include "enc/tokenizer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace enc;

namespace {
/// What the runtime would open: tokenizer.json, or a SentencePiece .model.
/// The name a vocab.txt is compiled in under: in memory no
/// tokenizer_config.json sits beside it, so its do_lower_case (true unless
/// the config says false, as in transformers) goes into the name, which
/// enc_tokenizer_open_memory reads (".cased.txt": not lowercased).
bool compiledVocabName(llvm::StringRef Path, std::string &Name,
                       std::string &Why, std::vector<std::string> &Files) {
  llvm::SmallString<256> Config = llvm::sys::path::parent_path(Path);
  llvm::sys::path::append(Config, "tokenizer_config.json");
  bool Lower = true;
  if (llvm::sys::fs::exists(Config)) {
    Files.push_back(Config.str().str());
    auto Buffer = llvm::MemoryBuffer::getFile(Config);
    if (!Buffer) {
      Why = "cannot read '" + Config.str().str() +
            "': " + Buffer.getError().message();
      return false;
    }
    llvm::Expected<llvm::json::Value> V =
        llvm::json::parse((*Buffer)->getBuffer());
    if (!V) {
      Why = "'" + Config.str().str() +
            "' is not valid JSON: " + llvm::toString(V.takeError());
      return false;
    }
    if (const llvm::json::Object *O = V->getAsObject())
      if (const llvm::json::Value *L = O->get("do_lower_case")) {
        std::optional<bool> B = L->getAsBoolean();
        if (!B) {
          Why = "'" + Config.str().str() +
                "': key 'do_lower_case' is not a boolean";
          return false;
        }
        Lower = *B;
      }
  }
  const bool CasedName = llvm::StringRef(Name).ends_with(".cased.txt");
  if (!Lower && !CasedName)
    Name = Name.substr(0, Name.size() - 4) + ".cased.txt";
  else if (Lower && CasedName) // a file that happens to be called so
    Name = Name.substr(0, Name.size() - 4) + "-lowercased.txt";
  return true;
}

void noteWritten(const ModelSpec &Spec, llvm::StringRef Key,
                 DiagnosticEngine &Diags) {
  const SettingOrigin &O = Spec.origin(Key);
  if (O.How == SettingOrigin::Written)
    Diags.note(O.Range, Key + llvm::Twine(" is set here"));
}

/// The checks of one tokenizer against its encoder, and its image into
/// T.Image; false after reporting.
bool check(const ModelSpec &Spec, CompiledTokenizer &T, SourceRange Where,
           DiagnosticEngine &Diags) {
  enc_tokenizer *Tok = nullptr;
  if (enc_tokenizer_open_memory(T.Bytes.data(), T.Bytes.size(), T.Name.c_str(),
                                &Tok) != ENC_OK) {
    Diags.error(Where,
                llvm::Twine("cannot read the tokenizer: ") + enc_last_error());
    return false;
  }
  bool Ok = true;
  // `truncation` replaces the file's (sentence-transformers passes its
  // max_seq_length to the tokenizer on every call, longest first).
  if (Spec.Truncation > 0 &&
      enc_tokenizer_set_truncation(Tok, static_cast<int32_t>(Spec.Truncation),
                                   ENC_TRUNCATE_LONGEST_FIRST) != ENC_OK) {
    Diags.error(Where, llvm::Twine("cannot set the tokenizer's truncation: ") +
                           enc_last_error());
    enc_tokenizer_free(Tok);
    return false;
  }
  const int64_t Ids = enc_tokenizer_vocab_size(Tok);
  const int64_t Types = enc_tokenizer_max_type_id(Tok);
  const int64_t Truncation = enc_tokenizer_truncation_length(Tok);
  size_t Size = 0;
  enc_status Saved = enc_tokenizer_save_image(Tok, nullptr, 0, &Size);
  if (Saved == ENC_OK) {
    T.Image.resize(Size);
    Saved = enc_tokenizer_save_image(Tok, T.Image.data(), Size, &Size);
  }
  enc_tokenizer_free(Tok);
  if (Saved != ENC_OK) {
    Diags.error(Where, llvm::Twine("cannot compile the tokenizer: ") +
                           enc_last_error());
    return false;
  }
  if (Spec.Vocab == 0) {
    Diags.error(Where, "a tokenizer needs a model of token ids, but vocab "
                       "is 0 (the input is float embeddings)");
    return false;
  }
  if (Ids > Spec.Vocab) {
    Diags.error(Where, "the tokenizer's ids go up to " + llvm::Twine(Ids - 1) +
                           ", but vocab is " + llvm::Twine(Spec.Vocab));
    noteWritten(Spec, "vocab", Diags);
    Ok = false;
  }
  if (Spec.TypeVocab > 0 && Types >= Spec.TypeVocab) {
    Diags.error(Where, "the tokenizer gives type id " + llvm::Twine(Types) +
                           ", but type_vocab is " +
                           llvm::Twine(Spec.TypeVocab));
    noteWritten(Spec, "type_vocab", Diags);
    Ok = false;
  }
  if (Truncation > Spec.MaxLen) {
    Diags.error(Where, "the tokenizer truncates to " + llvm::Twine(Truncation) +
                           " tokens, but max_len is " +
                           llvm::Twine(Spec.MaxLen));
    noteWritten(Spec, "max_len", Diags);
    Ok = false;
  }
  return Ok;
}
} // namespace

std::vector<CompiledTokenizer>
enc::readTokenizers(llvm::ArrayRef<ModelSpec> Specs, llvm::StringRef EncFile,
                    DiagnosticEngine &Diags) {
  std::vector<CompiledTokenizer> Out;
  for (const ModelSpec &Spec : Specs) {
    if (Spec.Tokenizer.empty())
      continue;
    // An inherited setting is reported at the encoder that inherits it.
    const SettingOrigin &Origin = Spec.origin("tokenizer");
    const bool Inherited = Origin.How != SettingOrigin::Written;
    const SourceRange Where = Inherited ? Spec.NameRange : Origin.Range;
    const unsigned Errors = Diags.errorCount();
    llvm::SmallString<256> Path(Spec.Tokenizer);
    if (llvm::sys::path::is_relative(Path) && EncFile != "-") {
      Path = llvm::sys::path::parent_path(EncFile);
      llvm::sys::path::append(Path, Spec.Tokenizer);
    }
    CompiledTokenizer T;
    T.Encoder = Spec.Name;
    T.Written = Spec.Tokenizer;
    T.Name = llvm::sys::path::filename(Path).str();
    std::string Why;
    if (llvm::StringRef(T.Name).ends_with(".txt") &&
        !compiledVocabName(Path, T.Name, Why, T.Files)) {
      Diags.error(Where, Why);
      continue;
    }
    auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      Diags.error(Where, "cannot read the tokenizer '" + Path +
                             "': " + Buffer.getError().message());
      continue;
    }
    T.Bytes = (*Buffer)->getBuffer().str();
    T.Files.push_back(Path.str().str());
    T.MaxLen = Spec.MaxLen;
    T.Truncation = Spec.Truncation;
    T.Width = Spec.outputWidth();
    T.Pooled = Spec.Pool != Pooling::None;
    if (check(Spec, T, Where, Diags))
      Out.push_back(std::move(T));
    else if (Inherited && Diags.errorCount() > Errors)
      Diags.note(Origin.Range,
                 "'" + Spec.Name + "' inherits this tokenizer setting");
  }
  return Out;
}

void enc::emitTokenizerDeclarations(const CompiledTokenizer &T,
                                    llvm::raw_ostream &OS) {
  const std::string &N = T.Encoder;
  OS << "/* The tokenizer compiled in from \"" << T.Written << "\" ("
     << T.Bytes.size() << " bytes; its image " << T.Image.size() << " bytes,\n"
     << " * docs/tokenizers.md#compiled-in): opened from the object, its "
        "tables used\n"
     << " * in place, on the first call of any of these, thread-safe, kept\n"
     << " * for the life of the process (never free it). ";
  if (T.Truncation > 0)
    OS << "It truncates to " << T.Truncation << " tokens\n"
       << " * (the truncation setting), whatever the file sets. */\n";
  else
    OS << "It truncates to max_len\n"
       << " * when the file sets no truncation. */\n";
  OS << "enc_status " << N << "_tokenizer(const enc_tokenizer **out);\n"
     << "/* The compiled-in image (its bytes, their count, and the file's "
        "name), for\n"
     << " * enc_tokenizer_open_memory: each pointer that is not NULL "
        "receives its\n"
     << " * value. The bytes live as long as the object. */\n"
     << "enc_status " << N
     << "_tokenizer_file(const char **data, size_t *size,\n"
     << "    const char **name);\n"
     << "/* enc_tokenizer_encode_batch with that tokenizer: texts to the "
        "tokens,\n"
     << " * token_types and lengths of an enc_input for " << N
     << "_forward. */\n"
     << "enc_status " << N
     << "_tokenize(int32_t count, const char *const *texts,\n"
     << "    const size_t *lengths_in_bytes, int64_t capacity, int32_t "
        "*tokens,\n"
     << "    int32_t *token_types, int32_t *lengths, int32_t *seq_len);\n";
  if (T.Pooled)
    OS << "/* Texts to " << N << "_forward's rows: out holds count * " << N
       << "_OUT_DIM floats,\n"
       << " * row i for texts[i] (lengths_in_bytes may be NULL for "
          "NUL-terminated\n"
       << " * texts). Sorted by length and run in batches of up to 32; no "
          "work\n"
       << " * on padding beyond a batch's longest text. */\n"
       << "enc_status " << N << "_embed_text(" << N
       << " *model, int32_t count,\n"
       << "    const char *const *texts, const size_t *lengths_in_bytes, "
          "float *out);\n";
  OS << "\n";
}

void enc::emitTokenizerFunctions(llvm::Module &IR, const CompiledTokenizer &T) {
  llvm::LLVMContext &C = IR.getContext();
  llvm::Type *I32 = llvm::Type::getInt32Ty(C);
  llvm::Type *I64 = llvm::Type::getInt64Ty(C);
  llvm::PointerType *Ptr = llvm::PointerType::getUnqual(C);
  const std::string &N = T.Encoder;

  // The image, 8-byte aligned: the runtime views its tables in place.
  auto *Bytes = new llvm::GlobalVariable(
      IR, llvm::ArrayType::get(llvm::Type::getInt8Ty(C), T.Image.size()),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::getString(C, T.Image, /*AddNull=*/false),
      N + "_tokenizer_image");
  Bytes->setAlignment(llvm::Align(8));
  auto *Name = new llvm::GlobalVariable(
      IR, llvm::ArrayType::get(llvm::Type::getInt8Ty(C), T.Name.size() + 1),
      true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::getString(C, T.Name, /*AddNull=*/true),
      N + "_tokenizer_name");
  auto *Slot = new llvm::GlobalVariable(
      IR, Ptr, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantPointerNull::get(Ptr), N + "_tokenizer_slot");

  llvm::FunctionCallee Embedded = IR.getOrInsertFunction(
      "enc_tokenizer_embedded",
      llvm::FunctionType::get(I32, {Ptr, I64, Ptr, I32, Ptr, Ptr}, false));
  auto Define = [&](llvm::StringRef Suffix, llvm::ArrayRef<llvm::Type *> Args) {
    return llvm::Function::Create(llvm::FunctionType::get(I32, Args, false),
                                  llvm::GlobalValue::ExternalLinkage,
                                  N + "_" + Suffix, IR);
  };
  auto Open = [&](llvm::IRBuilder<> &B, llvm::Value *Out) {
    return B.CreateCall(Embedded, {Bytes, B.getInt64(T.Image.size()), Name,
                                   B.getInt32(static_cast<int32_t>(T.MaxLen)),
                                   Slot, Out});
  };
  // Opens the tokenizer into a local; returns its status when not ENC_OK,
  // else calls Then(tokenizer) and returns what it returns.
  auto OpenThen =
      [&](llvm::Function *F,
          llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &, llvm::Value *)>
              Then) {
        auto *Entry = llvm::BasicBlock::Create(C, "entry", F);
        auto *Failed = llvm::BasicBlock::Create(C, "failed", F);
        auto *Opened = llvm::BasicBlock::Create(C, "opened", F);
        llvm::IRBuilder<> B(Entry);
        llvm::Value *Local = B.CreateAlloca(Ptr);
        llvm::Value *Status = Open(B, Local);
        B.CreateCondBr(B.CreateICmpNE(Status, B.getInt32(ENC_OK)), Failed,
                       Opened);
        B.SetInsertPoint(Failed);
        B.CreateRet(Status);
        B.SetInsertPoint(Opened);
        B.CreateRet(Then(B, B.CreateLoad(Ptr, Local)));
      };

  llvm::Function *Get = Define("tokenizer", {Ptr});
  {
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", Get));
    B.CreateRet(Open(B, Get->getArg(0)));
  }

  // The image, its size and the file's name, each stored where its pointer is
  // not NULL: for a copy of the tokenizer opened elsewhere.
  llvm::Function *File = Define("tokenizer_file", {Ptr, Ptr, Ptr});
  {
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", File));
    llvm::Value *Values[] = {Bytes, B.getInt64(T.Image.size()), Name};
    for (unsigned I = 0; I < 3; ++I) {
      llvm::Argument *To = File->getArg(I);
      auto *Store = llvm::BasicBlock::Create(C, "store", File);
      auto *Next = llvm::BasicBlock::Create(C, "next", File);
      B.CreateCondBr(B.CreateIsNotNull(To), Store, Next);
      B.SetInsertPoint(Store);
      B.CreateStore(Values[I], To);
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
    B.CreateRet(B.getInt32(ENC_OK));
  }

  llvm::FunctionCallee EncodeBatch = IR.getOrInsertFunction(
      "enc_tokenizer_encode_batch",
      llvm::FunctionType::get(
          I32, {Ptr, I32, Ptr, Ptr, I64, Ptr, Ptr, Ptr, Ptr}, false));
  llvm::Function *Tokenize =
      Define("tokenize", {I32, Ptr, Ptr, I64, Ptr, Ptr, Ptr, Ptr});
  OpenThen(Tokenize, [&](llvm::IRBuilder<> &B, llvm::Value *Tok) {
    llvm::SmallVector<llvm::Value *> Args = {Tok};
    for (llvm::Argument &A : Tokenize->args())
      Args.push_back(&A);
    return B.CreateCall(EncodeBatch, Args);
  });

  llvm::Function *Forward = IR.getFunction(N + "_forward");
  if (!T.Pooled || !Forward)
    return;
  llvm::FunctionCallee Embed = IR.getOrInsertFunction(
      "enc_tokenizer_embed",
      llvm::FunctionType::get(
          I32, {Ptr, Ptr, Ptr, I32, I32, I32, Ptr, Ptr, Ptr}, false));
  llvm::Function *EmbedText = Define("embed_text", {Ptr, I32, Ptr, Ptr, Ptr});
  OpenThen(EmbedText, [&](llvm::IRBuilder<> &B, llvm::Value *Tok) {
    return B.CreateCall(Embed, {Tok, EmbedText->getArg(0), Forward,
                                B.getInt32(static_cast<int32_t>(T.MaxLen)),
                                B.getInt32(static_cast<int32_t>(T.Width)),
                                EmbedText->getArg(1), EmbedText->getArg(2),
                                EmbedText->getArg(3), EmbedText->getArg(4)});
  });
}
