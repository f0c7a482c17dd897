//===- HFImport.h - A Hugging Face config as a .enc file --------*- C++ -*-===//
//
// What `encc import DIR_OR_CONFIG` does: reads a Hugging Face `config.json`
// (or a sentence-transformers model directory: config.json, modules.json,
// 1_Pooling/config.json, a Normalize module) and writes the .enc encoder that
// describes it, with its checkpoint layout set and each value commented with
// the key it came from (docs/import.md). The mapping of each family is its
// rows of the family table (runtime/include/enc/families.def) plus the
// config quirks of HFImport.cpp. A config encc cannot express is an error
// naming the key and its value, never a silently different model.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_HFIMPORT_HFIMPORT_H
#define ENC_HFIMPORT_HFIMPORT_H

#include <optional>
#include <string>
#include <vector>

namespace llvm {
namespace json {
class Object;
} // namespace json
} // namespace llvm

namespace enc {

struct HFImportResult {
  std::string Enc;                   ///< the .enc text, when no error
  std::vector<std::string> Errors;   ///< "config.json: key 'x' ..."
  std::vector<std::string> Warnings; ///< keys not known to be harmless
  /// sentence-transformers' max_seq_length (at most max_len), for the
  /// `truncation` setting written beside a tokenizer; 0: none. With the
  /// comment beside it.
  int64_t Truncation = 0;
  std::string TruncationSource;
};

/// The sentence-transformers modules after the Transformer (modules.json).
struct SentenceTransformersModules {
  std::optional<std::string> Pooling; ///< "cls", "mean", "max" or "last"
  std::string PoolingSource;          ///< the comment beside it
  bool Normalize = false;             ///< a Normalize module
  /// sentence_bert_config.json's max_seq_length: the tokens the Transformer
  /// module passes on (its tokenizer truncates to it on every call).
  std::optional<int64_t> MaxSeqLength;
  /// config_sentence_transformers.json's truncate_dim (Matryoshka).
  std::optional<int64_t> TruncateDim;
  /// A colbert-ir directory's artifact.metadata `dim`: a ColBERT head.
  std::optional<int64_t> ColbertDim;
  /// A SpladePooling module (max, relu): a SPLADE head.
  bool Splade = false;
  /// A Dense module after the pooling: `dense(dim = ..., ...)`, and the
  /// comment beside it.
  std::optional<std::string> Dense;
  std::string DenseSource;
  int64_t DenseIn = 0; ///< its in_features, which must be the hidden size
  /// `encc import --head`: "mlm" or "splade" on a ...ForMaskedLM
  /// checkpoint (which otherwise imports as its encoder, as AutoModel and
  /// text-embeddings-inference load it); "" for none.
  std::string MaskedLMHead;
};

/// Imports `Path` (a directory holding config.json, or a config.json file).
/// `Name` is the encoder name; empty derives one from the directory.
/// `Head` is `--head`: "", "mlm" or "splade".
HFImportResult importHuggingFace(const std::string &Path,
                                 const std::string &Name,
                                 const std::string &Head = "");

/// Imports one parsed config.json as encoder `Name`; `ConfigName` is how
/// messages and the header comment name it. `Modules`, when given, adds the
/// pooling and normalization of a sentence-transformers directory.
HFImportResult
importConfig(const llvm::json::Object &Config, const std::string &ConfigName,
             const std::string &Name,
             const SentenceTransformersModules *Modules = nullptr);

/// The tokenizer file of a model directory, as encc would compile it in:
/// its tokenizer.json, else a SentencePiece spiece.model or
/// sentencepiece.bpe.model; "" when it has none. `Path` is what `encc
/// import` was given (the directory or its config.json).
std::string tokenizerFileOf(const std::string &Path);

/// `Enc` (one encoder, as importHuggingFace writes it) with the setting
/// `tokenizer = "Written";` before its closing brace, and `truncation` when
/// `Import` has one (sentence-transformers' max_seq_length).
std::string withTokenizer(const std::string &Enc, const std::string &Written,
                          const HFImportResult &Import = HFImportResult());

/// A C identifier from a model name ("all-MiniLM-L6-v2" -> all_minilm_l6_v2).
std::string encoderNameFor(const std::string &ModelName);

} // namespace enc

#endif // ENC_HFIMPORT_HFIMPORT_H
