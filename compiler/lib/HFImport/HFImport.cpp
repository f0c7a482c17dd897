//===- HFImport.cpp - A Hugging Face config as a .enc file ----------------===//
//
// The family table (families.def, read through enc/lang/Families.h) maps
// model_type to a layout, config keys to settings and gives the settings the
// layout's tensors need; the quirks of each family's config that a row
// cannot say (RoBERTa's position offset, T5's feed_forward_proj, ModernBERT's
// two rope bases) are one case each of an exhaustive switch. Every key read
// is marked used, so that what is left over can be told apart: keys known
// not to change inference are ignored silently, the others draw a warning.
// docs/import.md lists the mappings.
//
//===----------------------------------------------------------------------===//

#include "enc/HFImport/HFImport.h"

#include "enc/lang/Families.h"
#include "enc/lang/NumberFormat.h"

#include "enc/kernels/gemm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <optional>

using namespace llvm;

namespace {

/// Keys that do not change what an encoder computes at inference: dropout,
/// initialisation, token ids other than the padding id, heads and decoders
/// encc does not build, bookkeeping.
bool isHarmlessKey(StringRef Key) {
  static const StringSet<> Keys = {"_name_or_path",
                                   "architectures",
                                   "transformers_version",
                                   "torch_dtype",
                                   "model_type",
                                   "initializer_range",
                                   "initializer_factor",
                                   "initializer_cutoff_factor",
                                   "bos_token_id",
                                   "eos_token_id",
                                   "cls_token_id",
                                   "sep_token_id",
                                   "mask_token_id",
                                   "unk_token_id",
                                   "decoder_start_token_id",
                                   "use_cache",
                                   "gradient_checkpointing",
                                   "output_past",
                                   "task_specific_params",
                                   "id2label",
                                   "label2id",
                                   "num_labels",
                                   "problem_type",
                                   "finetuning_task",
                                   "return_dict",
                                   "output_attentions",
                                   "output_hidden_states",
                                   "tie_word_embeddings",
                                   "tie_weights_",
                                   "decoder_bias",
                                   "classifier_activation",
                                   "classifier_bias",
                                   "classifier_pooling",
                                   "classifier_dropout",
                                   "is_encoder_decoder",
                                   "num_decoder_layers",
                                   "sparse_prediction",
                                   "sparse_pred_ignore_index",
                                   "deterministic_flash_attn",
                                   "reference_compile",
                                   "repad_logits_with_grad",
                                   "chunk_size_feed_forward",
                                   "directionality",
                                   "pooler_fc_size",
                                   "pooler_num_attention_heads",
                                   "pooler_num_fc_layers",
                                   "pooler_size_per_head",
                                   "pooler_type",
                                   "prefix",
                                   "max_length",
                                   "min_length",
                                   "early_stopping",
                                   "num_beams",
                                   "length_penalty",
                                   "no_repeat_ngram_size",
                                   "bad_words_ids",
                                   "torchscript",
                                   "qa_dropout",
                                   "seq_classif_dropout",
                                   "layer_norm_type"};
  return Keys.contains(Key) || Key.contains("dropout");
}

/// Hugging Face activation names (ACT2FN) that encc computes exactly: the
/// activation table's ENC_ACTIVATION_HF_NAME rows.
std::optional<StringRef> activationFor(StringRef HF) {
  struct Row {
    enc_activation Act;
    const char *Spelling;
  };
  static constexpr Row Spellings[] = {
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula)                \
  {Enumerator, Spelling},
#include "enc/activations.def"
  };
  static constexpr std::pair<const char *, enc_activation> Names[] = {
#define ENC_ACTIVATION_HF_NAME(Enumerator, HFName) {HFName, Enumerator},
#include "enc/activations.def"
  };
  for (const auto &[Name, Act] : Names)
    if (HF == Name)
      for (const Row &R : Spellings)
        if (R.Act == Act)
          return StringRef(R.Spelling);
  return std::nullopt;
}

/// "gelu, gelu_tanh, relu and silu": the activations encc has.
std::string activationList() {
  std::vector<std::string> Names;
#define ENC_ACTIVATION(Enumerator, LangName, Spelling, Formula)                \
  Names.push_back(Spelling);
#include "enc/activations.def"
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? " and " : ", ") + Names[I];
  return Out;
}

std::string floatText(double V) { return enc::formatFloat(V); }

struct Setting {
  std::string Key, Value, Source;
};

class Importer {
public:
  Importer(const json::Object &Config, std::string ConfigName,
           enc::HFImportResult &R)
      : Config(Config), ConfigName(std::move(ConfigName)), R(R) {}

  void run(StringRef ModelType);
  void set(StringRef Key, const Twine &Value, const Twine &Source) {
    Settings.push_back({Key.str(), Value.str(), Source.str()});
  }
  void error(const Twine &Message) {
    R.Errors.push_back(ConfigName + ": " + Message.str());
  }
  void warnUnusedKeys();
  const std::vector<Setting> &settings() const { return Settings; }

private:
  const json::Value *get(StringRef Key) {
    Used.insert(Key);
    return Config.get(Key);
  }
  /// Key's value as `Read` reads it (an error naming `Noun` when it cannot),
  /// or Default when the key is absent or null (an error without one).
  template <typename T, typename ReadFn>
  std::optional<T> typed(StringRef Key, std::optional<T> Default,
                         const char *Noun, ReadFn Read) {
    const json::Value *V = get(Key);
    if (!V || V->kind() == json::Value::Null) {
      if (!Default)
        error("key '" + Key + "' is missing");
      return Default;
    }
    if (std::optional<T> X = Read(*V))
      return X;
    error("key '" + Key + "' must be " + Noun);
    return std::nullopt;
  }
  std::optional<int64_t> integer(StringRef Key, std::optional<int64_t> Default);
  std::optional<double> number(StringRef Key, std::optional<double> Default);
  std::optional<bool> boolean(StringRef Key, bool Default);
  std::optional<std::string> string(StringRef Key,
                                    std::optional<std::string> Default);
  /// Sets `Setting` from an integer key, with its source in the comment.
  std::optional<int64_t> intSetting(StringRef Setting, StringRef Key,
                                    std::optional<int64_t> Default = {});
  void activation(StringRef Key, std::optional<std::string> Default);
  void refuseIfTrue(StringRef Key, StringRef Why);
  bool isSet(StringRef Key) const;
  void common();
  void configKey(const enc::FamilyConfigKey &K);
  void need(const enc::FamilyNeed &N);
  void quirks(enc::CheckpointLayout Layout);
  std::string architecture(StringRef Suffix) const;
  void classifier(enc::CheckpointLayout Layout);
  void maskedLM(enc::CheckpointLayout Layout);

public:
  /// The directory's modules end in SpladePooling (a SparseEncoder).
  bool SpladeModule = false;
  /// `encc import --head`: "mlm", "splade" or "".
  std::string MaskedLMHead;

private:
  void bertTypesAndPositions(bool Roberta);
#define ENC_FAMILY(Enumerator, LangName, Spelling, Prefix, Family)             \
  void quirks##LangName();
#include "enc/families.def"

  const json::Object &Config;
  std::string ConfigName;
  enc::HFImportResult &R;
  StringSet<> Used;
  std::vector<Setting> Settings;
};

std::optional<int64_t> Importer::integer(StringRef Key,
                                         std::optional<int64_t> Default) {
  return typed(Key, Default, "an integer",
               [](const json::Value &V) { return V.getAsInteger(); });
}

std::optional<double> Importer::number(StringRef Key,
                                       std::optional<double> Default) {
  return typed(Key, Default, "a number",
               [](const json::Value &V) { return V.getAsNumber(); });
}

std::optional<bool> Importer::boolean(StringRef Key, bool Default) {
  return typed(Key, std::optional<bool>(Default), "true or false",
               [](const json::Value &V) { return V.getAsBoolean(); });
}

std::optional<std::string>
Importer::string(StringRef Key, std::optional<std::string> Default) {
  return typed(Key, Default, "a string",
               [](const json::Value &V) -> std::optional<std::string> {
                 if (std::optional<StringRef> S = V.getAsString())
                   return S->str();
                 return std::nullopt;
               });
}

std::optional<int64_t> Importer::intSetting(StringRef Setting, StringRef Key,
                                            std::optional<int64_t> Default) {
  bool Given = Config.get(Key) != nullptr;
  std::optional<int64_t> V = integer(Key, Default);
  if (V)
    set(Setting, Twine(*V), Given ? Key : Twine(Key) + " (not set: default)");
  return V;
}

void Importer::activation(StringRef Key, std::optional<std::string> Default) {
  bool Given = Config.get(Key) != nullptr;
  std::optional<std::string> HF = string(Key, Default);
  if (!HF)
    return;
  std::optional<StringRef> Act = activationFor(*HF);
  if (!Act) {
    error("key '" + Key + "' is \"" + *HF +
          "\", an activation encc cannot compute (it has " + activationList() +
          ")");
    return;
  }
  set("activation", *Act,
      Twine(Key) + " \"" + *HF + "\"" + (Given ? "" : " (not set: default)"));
}

void Importer::refuseIfTrue(StringRef Key, StringRef Why) {
  std::optional<bool> B = boolean(Key, false);
  if (B && *B)
    error("key '" + Key + "' is true: " + Why);
}

bool Importer::isSet(StringRef Key) const {
  return llvm::any_of(Settings, [&](const Setting &S) { return S.Key == Key; });
}

/// An ENC_FAMILY_CONFIG_* row: the setting from its config key.
void Importer::configKey(const enc::FamilyConfigKey &K) {
  StringRef Setting = enc::settingInfo(K.Key).Name;
  switch (K.What) {
  case enc::FamilyConfigKey::Int:
    intSetting(Setting, K.ConfigKey,
               K.Required
                   ? std::nullopt
                   : std::optional<int64_t>(static_cast<int64_t>(K.Default)));
    return;
  case enc::FamilyConfigKey::Float: {
    bool Given = Config.get(K.ConfigKey) != nullptr;
    if (std::optional<double> V =
            number(K.ConfigKey, K.Required ? std::nullopt
                                           : std::optional<double>(K.Default)))
      set(Setting, floatText(*V),
          Given ? Twine(K.ConfigKey)
                : Twine(K.ConfigKey) + " (not set: default)");
    return;
  }
  case enc::FamilyConfigKey::Activation:
    activation(K.ConfigKey, std::string(K.DefaultName));
    return;
  }
}

/// An ENC_FAMILY_NEEDS_* row: written unless the family's quirks wrote the
/// setting with arguments already; counts come from config keys.
void Importer::need(const enc::FamilyNeed &N) {
  const enc::SettingInfo &Info = enc::settingInfo(N.Key);
  if (isSet(Info.Name))
    return;
  switch (N.What) {
  case enc::FamilyNeed::Choice:
    set(Info.Name, Info.Choices->Spellings[N.Value], N.Why);
    return;
  case enc::FamilyNeed::Bool:
    set(Info.Name, N.Value ? "true" : "false", N.Why);
    return;
  case enc::FamilyNeed::Zero:
  case enc::FamilyNeed::Positive:
    return;
  }
}

/// What a family's config says that its table rows cannot: quirksX() for
/// each layout X of the family table.
void Importer::quirks(enc::CheckpointLayout Layout) {
  switch (Layout) {
#define ENC_FAMILY(Enumerator, LangName, Spelling, Prefix, Family)             \
  case enc::CheckpointLayout::LangName:                                        \
    return quirks##LangName();
#include "enc/families.def"
  }
}

/// The last of config.json's `architectures` ending in `Suffix`, or "".
std::string Importer::architecture(StringRef Suffix) const {
  const json::Array *Archs = Config.getArray("architectures");
  std::string Arch;
  for (const json::Value &A : Archs ? *Archs : json::Array())
    if (std::optional<StringRef> S = A.getAsString(); S && S->ends_with(Suffix))
      Arch = S->str();
  return Arch;
}

/// A ...ForSequenceClassification checkpoint (`architectures`): the
/// family's head (docs/language.md#heads) over its first token, with as
/// many labels as id2label names (transformers' num_labels; 2 without it).
void Importer::classifier(enc::CheckpointLayout Layout) {
  const std::string Arch = architecture("ForSequenceClassification");
  if (Arch.empty())
    return;
  std::string Act, Pooling = "cls", Extra;
  switch (Layout) {
  case enc::CheckpointLayout::Bert:    // BertPooler: tanh
  case enc::CheckpointLayout::Roberta: // RobertaClassificationHead: tanh
    Act = "tanh";
    break;
  case enc::CheckpointLayout::Electra: // ElectraClassificationHead: gelu
    Act = "gelu";
    break;
  case enc::CheckpointLayout::DistilBert: // pre_classifier, ReLU
    Act = "relu";
    break;
  case enc::CheckpointLayout::ModernBert: {
    // ModernBertPredictionHead (dense, classifier_activation, norm) over
    // the first token or the mean (classifier_pooling).
    if (boolean("classifier_bias", false) == true)
      error("key 'classifier_bias' is true: encc's ModernBERT head.dense has "
            "no bias");
    std::optional<std::string> A = string("classifier_activation", "gelu");
    std::optional<StringRef> Ours = A ? activationFor(*A) : std::nullopt;
    if (!Ours) {
      error("key 'classifier_activation' is \"" + A.value_or("?") +
            "\", an activation encc cannot compute (it has " +
            activationList() + ")");
      return;
    }
    Act = Ours->str();
    std::optional<std::string> P = string("classifier_pooling", "cls");
    if (P && *P != "cls" && *P != "mean") {
      error("key 'classifier_pooling' is \"" + *P +
            "\": ModernBERT pools by cls or mean");
      return;
    }
    Pooling = P.value_or("cls");
    Extra = ", norm = true";
    break;
  }
  case enc::CheckpointLayout::Enc:
  case enc::CheckpointLayout::T5:
  case enc::CheckpointLayout::MpNet:
  case enc::CheckpointLayout::NomicBert:
    error("key 'architectures' is [\"" + Arch +
          "\"]: encc has no classifier head for this family yet");
    return;
  }
  int64_t Labels = 2;
  if (const json::Object *Id2Label = Config.getObject("id2label"))
    Labels = static_cast<int64_t>(Id2Label->size());
  if (std::optional<int64_t> N = Config.getInteger("num_labels"))
    Labels = *N;
  set("pooling", Pooling,
      Pooling == "cls" ? Arch + " classifies the first token"
                       : "classifier_pooling: " + Pooling);
  set("head",
      "classifier(labels = " + Twine(Labels) + ", activation = " + Act + Extra +
          ")",
      "architectures: " + Arch + ", id2label");
}

/// A ...ForMaskedLM checkpoint (`architectures`), or a SparseEncoder
/// directory (its SpladePooling module): the family's masked-LM head over
/// every token, or SPLADE's maximum over them (docs/language.md#heads).
void Importer::maskedLM(enc::CheckpointLayout Layout) {
  const std::string Arch = architecture("ForMaskedLM");
  if (!SpladeModule && MaskedLMHead.empty())
    return; // a ...ForMaskedLM checkpoint embeds as its encoder by default
  if (Arch.empty() && !SpladeModule) {
    error("--head " + MaskedLMHead +
          ": key 'architectures' names no ...ForMaskedLM model, so the "
          "checkpoint has no masked-LM head");
    return;
  }
  const bool Splade = SpladeModule || MaskedLMHead == "splade";
  const std::string What = SpladeModule
                               ? std::string("modules.json: SpladePooling")
                               : "key 'architectures' is [\"" + Arch + "\"]";
  // The transform's activation: the blocks' (hidden_act), except where the
  // family's head names its own.
  std::string Act;
  for (const Setting &S : Settings)
    if (S.Key == "activation")
      Act = S.Value;
  switch (Layout) {
  case enc::CheckpointLayout::Bert:       // BertPredictionHeadTransform
  case enc::CheckpointLayout::DistilBert: // vocab_transform, activation
    break;
  case enc::CheckpointLayout::Roberta: // RobertaLMHead: gelu
    Act = "gelu";
    break;
  case enc::CheckpointLayout::ModernBert: // ModernBertPredictionHead
    if (boolean("classifier_bias", false) == true)
      error("key 'classifier_bias' is true: encc's ModernBERT head.dense has "
            "no bias");
    if (boolean("decoder_bias", true) == false)
      error("key 'decoder_bias' is false: encc's decoder has a bias");
    if (std::optional<std::string> A =
            string("classifier_activation", "gelu")) {
      std::optional<StringRef> Ours = activationFor(*A);
      if (!Ours) {
        error("key 'classifier_activation' is \"" + *A +
              "\", an activation encc cannot compute (it has " +
              activationList() + ")");
        return;
      }
      Act = Ours->str();
    }
    break;
  case enc::CheckpointLayout::Enc:
  case enc::CheckpointLayout::T5:
  case enc::CheckpointLayout::Electra:
  case enc::CheckpointLayout::MpNet:
  case enc::CheckpointLayout::NomicBert:
    error(What + ": encc has no masked-LM head for this family yet");
    return;
  }
  if (Act.empty())
    Act = "gelu";
  if (Splade) {
    set("pooling", "max", "SPLADE: the maximum over the tokens");
    set("head", "splade(activation = " + Act + ")",
        SpladeModule ? "modules.json: MLMTransformer + SpladePooling"
                     : "--head splade on " + Arch);
    return;
  }
  set("pooling", "none", Arch + " gives logits per token");
  set("head", "mlm(activation = " + Act + ")", "--head mlm on " + Arch);
}

// No model_type is imported as enc.
void Importer::quirksEnc() {}
void Importer::quirksBert() { bertTypesAndPositions(/*Roberta=*/false); }
void Importer::quirksRoberta() { bertTypesAndPositions(/*Roberta=*/true); }

void Importer::bertTypesAndPositions(bool Roberta) {
  if (std::optional<int64_t> T = integer("type_vocab_size", 2); T && *T > 0)
    set("type_vocab", Twine(*T), "type_vocab_size");
  std::optional<std::string> Pos =
      string("position_embedding_type", "absolute");
  if (Pos && *Pos != "absolute")
    error("key 'position_embedding_type' is \"" + *Pos +
          "\": encc has learned absolute positions for this family, not "
          "relative_key/relative_key_query attention");
  std::optional<int64_t> MaxPos = integer("max_position_embeddings", 512);
  if (Roberta) {
    // Positions start after the padding id: row p + 1 is position 0.
    std::optional<int64_t> Pad = integer("pad_token_id", 1);
    if (MaxPos && Pad) {
      int64_t Offset = *Pad + 1;
      if (*Pad < 0 || *MaxPos <= Offset)
        error(formatv("keys 'max_position_embeddings' ({0}) and "
                      "'pad_token_id' ({1}) leave no position",
                      *MaxPos, *Pad));
      set("position_offset", Twine(Offset), "pad_token_id + 1");
      set("max_len", Twine(*MaxPos - Offset),
          "max_position_embeddings - (pad_token_id + 1)");
    }
  } else if (MaxPos) {
    set("max_len", Twine(*MaxPos), "max_position_embeddings");
  }
  get("pad_token_id"); // only RoBERTa's changes anything
}

void Importer::quirksElectra() {
  // ElectraConfig's default embedding_size is 128: a narrower embedding
  // goes through embeddings_project, which encc does not compute.
  const json::Value *H = Config.get("hidden_size"); // read by its table row
  std::optional<int64_t> Hidden = H ? H->getAsInteger() : std::nullopt;
  std::optional<int64_t> Embedding = integer("embedding_size", 128);
  if (Hidden && Embedding && *Hidden != *Embedding)
    error(formatv("keys 'embedding_size' ({0}) and 'hidden_size' ({1}) "
                  "differ: ELECTRA then projects its embeddings "
                  "(embeddings_project), which encc does not compute",
                  *Embedding, *Hidden));
  bertTypesAndPositions(/*Roberta=*/false);
}

void Importer::quirksMpNet() {
  // MPNetEmbeddings: positions count from its fixed padding_idx (1), so
  // position p reads row p + 2, whatever pad_token_id says.
  std::optional<int64_t> MaxPos = integer("max_position_embeddings", 514);
  if (MaxPos) {
    if (*MaxPos <= 2)
      error(formatv("key 'max_position_embeddings' ({0}) leaves no position "
                    "after MPNet's padding row",
                    *MaxPos));
    set("position_offset", "2", "MPNet's padding_idx (1) + 1");
    set("max_len", Twine(*MaxPos - 2), "max_position_embeddings - 2");
  }
  // MPNetEncoder buckets every offset into 32 buckets up to distance 128
  // (compute_position_bias's defaults), whatever the table's size is.
  std::optional<int64_t> Buckets =
      integer("relative_attention_num_buckets", 32);
  if (Buckets && *Buckets != 32)
    error(formatv("key 'relative_attention_num_buckets' is {0}: MPNet's "
                  "code buckets offsets into 32, which encc computes",
                  *Buckets));
  set("positional",
      "relative(buckets = 32, max_distance = 128, absolute = true)",
      "MPNet: learned positions, and relative_attention_bias in every block");
  get("pad_token_id");
}

void Importer::quirksNomicBert() {
  // NomicBertConfig's defaults are GPT-2's and contrastors' own: rotary
  // positions only with rotary_emb_fraction > 0, biases on.
  std::optional<double> Fraction = number("rotary_emb_fraction", 0.0);
  if (Fraction && *Fraction != 1.0)
    error(formatv("key 'rotary_emb_fraction' is {0}: encc's NomicBERT rotates "
                  "every dimension of a head (1.0)",
                  floatText(*Fraction)));
  for (StringRef Key : {"rotary_emb_scale_base", "rotary_scaling_factor"})
    if (const json::Value *V = get(Key); V && V->kind() != json::Value::Null)
      error("key '" + Key +
            "' is set: encc computes NomicBERT's plain rotary positions, "
            "not their scaled (xPos or dynamic NTK) forms");
  get("max_trained_positions"); // read only by the dynamic NTK scaling
  std::optional<double> Base = number("rotary_emb_base", 10000.0);
  std::optional<bool> Interleaved = boolean("rotary_emb_interleaved", false);
  if (Base && Interleaved)
    set("positional",
        "rope(base = " + floatText(*Base) +
            (*Interleaved ? ", style = interleaved" : "") + ")",
        "rotary_emb_base, rotary_emb_interleaved");
  refuseIfTrue("prenorm", "encc reads NomicBERT's post-norm blocks only");
  refuseIfTrue("parallel_block", "encc's blocks run attention, then the "
                                 "feed-forward layer");
  refuseIfTrue("use_rms_norm", "NomicBERT's norms are then RMSNorm, whose "
                               "checkpoint names encc does not read");
  refuseIfTrue("causal", "encc compiles bidirectional encoders");
  if (std::optional<int64_t> Experts = integer("num_experts", 0);
      Experts && *Experts > 0)
    error(formatv("key 'num_experts' is {0}: encc has no mixture-of-experts "
                  "feed-forward layer",
                  *Experts));
  // GPT2Config maps max_position_embeddings onto n_positions: two values
  // that differ leave the length ambiguous.
  const json::Value *NPos = Config.get("n_positions");
  if (const json::Value *M = get("max_position_embeddings");
      M && NPos && M->getAsInteger() != NPos->getAsInteger())
    error("keys 'max_position_embeddings' and 'n_positions' differ: which "
          "length the model reads is ambiguous");
  // The vocabulary is padded up to pad_vocab_size_multiple rows.
  std::optional<int64_t> Vocab = integer("vocab_size", 50257); // GPT-2's
  std::optional<int64_t> Multiple = integer("pad_vocab_size_multiple", 1);
  if (Multiple && *Multiple < 1)
    error(formatv("key 'pad_vocab_size_multiple' is {0}: it must be >= 1",
                  *Multiple));
  else if (Vocab && Multiple)
    set("vocab", Twine((*Vocab + *Multiple - 1) / *Multiple * *Multiple),
        *Multiple == 1 ? "vocab_size"
                       : "vocab_size, padded to pad_vocab_size_multiple");
  if (std::optional<int64_t> T = integer("type_vocab_size", 2); T && *T > 0)
    set("type_vocab", Twine(*T), "type_vocab_size");
  // swiglu / geglu: the gated MLP, fc11 * act(fc12), its width n_inner
  // (or 8/3 of n_embd) rounded up to a multiple of 256; otherwise
  // NomicBertMLP, fc1 then act, n_inner or 4 n_embd wide.
  std::optional<std::string> Fn = string("activation_function", "gelu_new");
  // Plain values, 0 when absent (GCC misreads optionals here).
  const json::Value *D = Config.get("n_embd"); // read by its table row
  const int64_t Embd = D ? D->getAsInteger().value_or(0) : int64_t(0);
  const json::Value *Inner = get("n_inner");
  const bool HasInner = Inner && Inner->kind() != json::Value::Null;
  const int64_t Width = HasInner ? Inner->getAsInteger().value_or(0) : 0;
  if (HasInner && Width < 1)
    error("key 'n_inner' is not a positive integer");
  if (Fn && Embd > 0) {
    bool Gated = *Fn == "swiglu" || *Fn == "geglu";
    std::optional<StringRef> Act =
        *Fn == "swiglu"  ? std::optional<StringRef>("silu")
        : *Fn == "geglu" ? std::optional<StringRef>("gelu")
                         : activationFor(*Fn);
    if (!Act) {
      error("key 'activation_function' is \"" + *Fn +
            "\": encc takes swiglu, geglu or one of " + activationList());
    } else {
      int64_t Ff = HasInner ? Width : Gated ? 8 * Embd / 3 : 4 * Embd;
      if (Gated)
        Ff = (Ff + 255) / 256 * 256;
      set("ffn", Gated ? "gated" : "dense",
          Twine("activation_function \"") + *Fn + "\"");
      set("activation", *Act, Twine("activation_function \"") + *Fn + "\"");
      set("d_ff", Twine(Ff),
          Gated ? "n_inner, rounded up to a multiple of 256" : "n_inner");
    }
  }
  std::optional<bool> Qkv = boolean("qkv_proj_bias", true);
  std::optional<bool> Fc1 = boolean("mlp_fc1_bias", true);
  std::optional<bool> Fc2 = boolean("mlp_fc2_bias", true);
  if (Qkv && Fc1 && Fc2) {
    if (*Qkv != *Fc1 || *Fc1 != *Fc2)
      error(formatv("keys 'qkv_proj_bias' ({0}), 'mlp_fc1_bias' ({1}) and "
                    "'mlp_fc2_bias' ({2}) differ; encc's 'bias' covers every "
                    "linear layer",
                    *Qkv, *Fc1, *Fc2));
    else
      set("bias", *Qkv ? "true" : "false",
          "qkv_proj_bias, mlp_fc1_bias, mlp_fc2_bias");
  }
  // Kernel and training choices that compute the same model, and GPT-2's
  // keys that NomicBERT's code does not read.
  for (StringRef Key :
       {"fused_bias_fc", "fused_dropout_add_ln", "use_flash_attn",
        "use_xentropy", "dense_seq_output", "parallel_block_tied_norm",
        "pad_token_id", "attn_pdrop", "embd_pdrop", "resid_pdrop", "n_ctx",
        "reorder_and_upcast_attn", "scale_attn_by_inverse_layer_idx",
        "scale_attn_weights", "summary_activation", "summary_proj_to_labels",
        "summary_type", "summary_use_proj", "auto_map"})
    get(Key);
}

void Importer::quirksDistilBert() {
  refuseIfTrue("sinusoidal_pos_embds",
               "DistilBERT's sinusoidal table is not the interleaved one encc "
               "computes (it puts sin and cos in two halves)");
  set("eps", "1e-12", "fixed in DistilBERT's code");
  get("pad_token_id");
}

void Importer::quirksT5() {
  std::optional<std::string> Proj = string("feed_forward_proj", "relu");
  if (Proj) {
    StringRef P = *Proj;
    bool Gated = P.consume_front("gated-");
    // T5Config: "gated-gelu" runs gelu_new (the tanh form).
    std::string HF = Gated && P == "gelu" ? "gelu_new" : P.str();
    std::optional<StringRef> Act = activationFor(HF);
    if (!Act || P.contains('-')) {
      error("key 'feed_forward_proj' is \"" + *Proj +
            "\": encc takes ACT or gated-ACT with ACT one of gelu, gelu_new, "
            "relu, silu");
    } else {
      set("ffn", Gated ? "gated" : "dense",
          Twine("feed_forward_proj \"") + *Proj + "\"");
      set("activation", *Act, Twine("feed_forward_proj \"") + *Proj + "\"");
      if (std::optional<std::string> Dense = string("dense_act_fn", HF)) {
        std::optional<StringRef> D = activationFor(*Dense);
        if (!D || *D != *Act)
          error("keys 'feed_forward_proj' (\"" + *Proj +
                "\") and "
                "'dense_act_fn' (\"" +
                *Dense + "\") disagree");
      }
      std::optional<bool> IsGated = boolean("is_gated_act", Gated);
      if (IsGated && *IsGated != Gated)
        error("keys 'feed_forward_proj' (\"" + *Proj +
              "\") and "
              "'is_gated_act' disagree");
    }
  }
  std::optional<int64_t> Buckets =
      integer("relative_attention_num_buckets", 32);
  std::optional<int64_t> MaxDist =
      integer("relative_attention_max_distance", 128);
  if (Buckets && MaxDist)
    set("positional",
        formatv("relative(buckets = {0}, max_distance = {1})", *Buckets,
                *MaxDist),
        "relative_attention_num_buckets, relative_attention_max_distance");
  set("attention_scale", "1.0",
      "T5 folds the 1/sqrt(d_kv) scale into its weights");
  get("pad_token_id");
}

void Importer::quirksModernBert() {
  std::optional<double> Global = number("global_rope_theta", 160000.0);
  std::optional<double> Local = number("local_rope_theta", 10000.0);
  if (Global && Local)
    set("positional",
        "rope(base = " + floatText(*Global) +
            ", local_base = " + floatText(*Local) + ")",
        "global_rope_theta, local_rope_theta");
  std::optional<bool> NormBias = boolean("norm_bias", false);
  if (NormBias)
    set("norm_bias", *NormBias ? "true" : "false", "norm_bias");
  std::optional<bool> AttnBias = boolean("attention_bias", false);
  std::optional<bool> MlpBias = boolean("mlp_bias", false);
  if (AttnBias && MlpBias) {
    if (*AttnBias != *MlpBias)
      error(formatv("keys 'attention_bias' ({0}) and 'mlp_bias' ({1}) "
                    "differ; encc's 'bias' covers every linear layer",
                    *AttnBias, *MlpBias));
    else
      set("bias", *AttnBias ? "true" : "false", "attention_bias, mlp_bias");
  }
  get("pad_token_id");
  get("position_embedding_type"); // ModernBERT uses rotary positions only
}

/// Keys every Hugging Face config may hold (PretrainedConfig's) that would
/// make the model something other than the encoder the family's keys
/// describe.
void Importer::common() {
  refuseIfTrue("is_decoder", "encc compiles encoders, not decoders");
  refuseIfTrue("add_cross_attention", "encc has no cross-attention");
  if (const json::Value *V = get("pruned_heads")) {
    const json::Object *O = V->getAsObject();
    bool Empty = V->kind() == json::Value::Null || (O && O->empty());
    if (!Empty)
      error("key 'pruned_heads' is not empty: encc gives every block the same "
            "heads (prune the checkpoint's heads out of the config and the "
            "weights, or keep them)");
  }
}

void Importer::run(StringRef ModelType) {
  common();
  std::optional<enc::CheckpointLayout> Layout;
  std::vector<std::string> Known;
  for (const enc::FamilyModelType &M : enc::familyModelTypes()) {
    Known.push_back(M.ModelType);
    if (ModelType == M.ModelType)
      Layout = M.Layout;
  }
  if (!Layout) {
    error("model_type \"" + ModelType + "\" is not one encc imports (" +
          join(Known, ", ") + ")");
    return;
  }
  set("checkpoint", enc::toString(*Layout), "model_type");
  for (const enc::FamilyConfigKey &K : enc::familyConfigKeys())
    if (K.Layout == *Layout)
      configKey(K);
  quirks(*Layout);
  classifier(*Layout);
  maskedLM(*Layout);
  for (const enc::FamilyNeed &N : enc::familyNeeds())
    if (N.Layout == *Layout)
      need(N);
}

void Importer::warnUnusedKeys() {
  std::vector<std::string> Keys;
  for (const auto &KV : Config)
    Keys.push_back(KV.first.str());
  llvm::sort(Keys);
  for (const std::string &K : Keys)
    if (!Used.contains(K) && !isHarmlessKey(K))
      R.Warnings.push_back(ConfigName + ": key '" + K +
                           "' is not one encc knows; ignored (check that it "
                           "does not change what the model computes)");
}

/// Reads and parses a JSON file; an error names the file.
std::optional<json::Value> readJSON(const std::string &Path,
                                    std::vector<std::string> &Errors) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer) {
    Errors.push_back(Path + ": cannot read: " + Buffer.getError().message());
    return std::nullopt;
  }
  Expected<json::Value> V = json::parse((*Buffer)->getBuffer());
  if (!V) {
    Errors.push_back(Path + ": not valid JSON: " + toString(V.takeError()));
    return std::nullopt;
  }
  return std::move(*V);
}

/// A JSON file of a model directory or of one of its modules (Dir/Path/File)
/// as an object: Obj is null, and an error names the file, when it cannot be
/// read or parsed or is not an object; when it is absent too (Absent), an
/// error only if Required.
struct JsonFile {
  JsonFile(StringRef Dir, StringRef Path, StringRef File,
           std::vector<std::string> &Errors, bool Required = false) {
    SmallString<256> P(Dir);
    sys::path::append(P, Path, File);
    Name = P.str().str();
    Absent = !sys::fs::exists(P);
    if (Absent && !Required)
      return;
    Value = readJSON(Name, Errors);
    Obj = Value ? Value->getAsObject() : nullptr;
    if (Value && !Obj)
      Errors.push_back(Name + ": expected an object");
  }
  JsonFile(const JsonFile &) = delete; // Obj points into Value
  std::string Name;
  bool Absent = false;
  std::optional<json::Value> Value;
  const json::Object *Obj = nullptr;
};

/// The sentence-transformers modules of a model directory.
struct SentenceTransformers : enc::SentenceTransformersModules {
  std::string TransformerPath; ///< where config.json is, relative
};

std::optional<SentenceTransformers> readModules(const std::string &Dir,
                                                enc::HFImportResult &R) {
  SmallString<256> ModulesPath(Dir);
  sys::path::append(ModulesPath, "modules.json");
  if (!sys::fs::exists(ModulesPath))
    return std::nullopt;
  std::string Name = ModulesPath.str().str();
  std::optional<json::Value> V = readJSON(Name, R.Errors);
  if (!V)
    return std::nullopt;
  const json::Array *Modules = V->getAsArray();
  if (!Modules) {
    R.Errors.push_back(Name + ": expected a list of modules");
    return std::nullopt;
  }
  SentenceTransformers ST;
  for (const json::Value &M : *Modules) {
    const json::Object *O = M.getAsObject();
    std::optional<StringRef> Type = O ? O->getString("type") : std::nullopt;
    std::optional<StringRef> Path = O ? O->getString("path") : std::nullopt;
    if (!Type || !Path) {
      R.Errors.push_back(Name + ": a module without 'type' and 'path'");
      continue;
    }
    StringRef T =
        Type->rsplit('.').second.empty() ? *Type : Type->rsplit('.').second;
    if (T == "Transformer" || T == "MLMTransformer") {
      ST.TransformerPath = Path->str();
      // Its max_seq_length: what its tokenizer truncates to on every call.
      const JsonFile F(Dir, *Path, "sentence_bert_config.json", R.Errors);
      const json::Value *L = F.Obj ? F.Obj->get("max_seq_length") : nullptr;
      std::optional<int64_t> N = L ? L->getAsInteger() : std::nullopt;
      if (L && L->kind() != json::Value::Null && (!N || *N < 1))
        R.Errors.push_back(F.Name + ": key 'max_seq_length' is not a positive "
                                    "integer");
      else if (N)
        ST.MaxSeqLength = *N;
    } else if (T == "SpladePooling") {
      // sentence-transformers' SparseEncoder: log1p(relu(.)) pooled by max.
      // Without its config.json the module's defaults: max, relu.
      const JsonFile F(Dir, *Path, "config.json", R.Errors);
      const std::string &PName = F.Name;
      const json::Object Defaults;
      const json::Object *PO = F.Absent ? &Defaults : F.Obj;
      std::optional<StringRef> Strategy =
          PO ? PO->getString("pooling_strategy") : std::nullopt;
      std::optional<StringRef> Act =
          PO ? PO->getString("activation_function") : std::nullopt;
      if (!PO) {
        // JsonFile reported why
      } else if (Strategy && *Strategy != "max") {
        R.Errors.push_back(PName + ": key 'pooling_strategy' is \"" +
                           Strategy->str() +
                           "\": encc's SPLADE pools by the maximum only");
      } else if (Act && *Act != "relu") {
        R.Errors.push_back(PName + ": key 'activation_function' is \"" +
                           Act->str() +
                           "\": encc's SPLADE takes log(1 + relu(.)) only");
      } else {
        ST.Splade = true;
      }
    } else if (T == "Dense") {
      // sentence-transformers' Dense: Linear(in, out, bias), then its
      // activation (Tanh by default; Identity in sentence-t5).
      const JsonFile F(Dir, *Path, "config.json", R.Errors,
                       /*Required=*/true);
      const std::string &PName = F.Name;
      const json::Object *PO = F.Obj;
      // 0 when absent (plain values: GCC misreads optionals here).
      const int64_t In =
          PO ? PO->getInteger("in_features").value_or(0) : int64_t(0);
      const int64_t Out =
          PO ? PO->getInteger("out_features").value_or(0) : int64_t(0);
      std::optional<bool> Bias = PO ? PO->getBoolean("bias") : std::nullopt;
      const json::Value *ActV = PO ? PO->get("activation_function") : nullptr;
      const StringRef Act =
          ActV ? ActV->getAsString().value_or(StringRef()) : StringRef();
      std::string A = !ActV || !ActV->getAsString() ? "tanh"
                      : Act.ends_with(".Tanh")      ? "tanh"
                      : Act.ends_with(".Identity")  ? "identity"
                                                    : "";
      if (!PO) {
        // JsonFile reported why
      } else if (In < 1 || Out < 1) {
        R.Errors.push_back(PName + ": keys 'in_features' and 'out_features' "
                                   "must be positive integers");
      } else if (A.empty()) {
        R.Errors.push_back(PName + ": key 'activation_function' is \"" +
                           Act.str() +
                           "\": encc's dense head has Tanh or Identity");
      } else if (ST.Dense || ST.Normalize || !ST.Pooling) {
        R.Errors.push_back(Name + ": module '" + Type->str() + "' (" +
                           Path->str() +
                           "): encc has one Dense module, after the "
                           "Pooling and before Normalize");
      } else {
        ST.Dense = "dense(dim = " + std::to_string(Out) +
                   ", activation = " + A +
                   ", bias = " + (Bias.value_or(true) ? "true" : "false") + ")";
        ST.DenseSource = Path->str() + "/config.json: a Dense module";
        ST.DenseIn = In;
      }
    } else if (T == "Normalize") {
      ST.Normalize = true;
    } else if (T == "Pooling") {
      const JsonFile F(Dir, *Path, "config.json", R.Errors,
                       /*Required=*/true);
      const std::string &PName = F.Name;
      const json::Object *PO = F.Obj;
      if (!PO)
        continue; // JsonFile reported why
      std::vector<std::string> Modes;
      for (const auto &KV : *PO) {
        StringRef K = KV.first;
        if (K.starts_with("pooling_mode_") && KV.second.getAsBoolean() == true)
          Modes.push_back(K.str());
      }
      llvm::sort(Modes);
      if (Modes.size() != 1) {
        R.Errors.push_back(
            PName + ": " + std::to_string(Modes.size()) +
            " pooling modes are on" +
            (Modes.empty() ? "" : " (" + join(Modes, ", ") + ")") +
            "; encc pools with exactly one of cls_token, mean_tokens, "
            "max_tokens and lasttoken");
      } else if (Modes[0] == "pooling_mode_cls_token") {
        ST.Pooling = "cls";
      } else if (Modes[0] == "pooling_mode_mean_tokens") {
        ST.Pooling = "mean";
      } else if (Modes[0] == "pooling_mode_max_tokens") {
        ST.Pooling = "max";
      } else if (Modes[0] == "pooling_mode_lasttoken") {
        ST.Pooling = "last";
      } else {
        R.Errors.push_back(PName + ": key '" + Modes[0] +
                           "' is true: encc pools with the cls token, the "
                           "mean, the maximum or the last of the tokens only");
      }
      ST.PoolingSource = (Path->str() + "/config.json: " +
                          (Modes.empty() ? std::string("?") : Modes[0]));
    } else {
      R.Errors.push_back(Name + ": module '" + Type->str() + "' (" +
                         Path->str() +
                         ") changes the embedding; encc cannot express it");
    }
  }
  // Matryoshka models name the width they were trained to be cut to.
  const JsonFile C(Dir, "", "config_sentence_transformers.json", R.Errors);
  const json::Value *TD = C.Obj ? C.Obj->get("truncate_dim") : nullptr;
  if (TD && TD->kind() != json::Value::Null) {
    std::optional<int64_t> N = TD->getAsInteger();
    if (!N || *N < 1)
      R.Errors.push_back(C.Name +
                         ": key 'truncate_dim' is not a positive integer");
    else
      ST.TruncateDim = *N;
  }
  return ST;
}

} // namespace

std::string enc::encoderNameFor(const std::string &ModelName) {
  std::string Out;
  for (char C : ModelName) {
    if (isAlnum(C))
      Out += toLower(C);
    else if (!Out.empty() && Out.back() != '_')
      Out += '_';
  }
  while (!Out.empty() && Out.back() == '_')
    Out.pop_back();
  if (Out.empty() || isDigit(Out[0]))
    Out = "model_" + Out;
  return Out;
}

enc::HFImportResult
enc::importConfig(const json::Object &Config, const std::string &ConfigName,
                  const std::string &Name,
                  const SentenceTransformersModules *Modules) {
  HFImportResult R;
  Importer I(Config, ConfigName, R);
  std::optional<StringRef> Type = Config.getString("model_type");
  if (!Type) {
    I.error(
        "key 'model_type' is missing (is this a Hugging Face config.json?)");
    return R;
  }
  I.SpladeModule = Modules && Modules->Splade;
  I.MaskedLMHead = Modules ? Modules->MaskedLMHead : std::string();
  I.run(*Type);
  if (Modules && Modules->Pooling)
    I.set("pooling", *Modules->Pooling, Modules->PoolingSource);
  if (Modules && Modules->Normalize)
    I.set("normalize", "true", "modules.json: a Normalize module");
  // A cut wider than the model is the directory's error, named as such.
  for (const Setting &S : I.settings())
    if (int64_t D = 0; Modules && Modules->TruncateDim && S.Key == "d_model" &&
                       !StringRef(S.Value).getAsInteger(10, D) &&
                       *Modules->TruncateDim > D)
      R.Errors.push_back("config_sentence_transformers.json: key "
                         "'truncate_dim' (" +
                         std::to_string(*Modules->TruncateDim) +
                         ") is wider than the model's hidden size (" + S.Value +
                         ")");
  for (const Setting &S : I.settings())
    if (int64_t D = 0; Modules && Modules->Dense && S.Key == "d_model" &&
                       !StringRef(S.Value).getAsInteger(10, D) &&
                       Modules->DenseIn != D)
      R.Errors.push_back(Modules->DenseSource + ": in_features (" +
                         std::to_string(Modules->DenseIn) +
                         ") is not the model's hidden size (" + S.Value + ")");
  if (Modules && Modules->Dense)
    I.set("head", *Modules->Dense, Modules->DenseSource);
  if (Modules && Modules->ColbertDim)
    I.set("head", "colbert(dim = " + std::to_string(*Modules->ColbertDim) + ")",
          "artifact.metadata: dim (ColBERT's projection, linear.weight)");
  if (Modules && Modules->TruncateDim)
    I.set("output_dim", std::to_string(*Modules->TruncateDim),
          "config_sentence_transformers.json: truncate_dim" +
              std::string(Modules->Normalize ? " (renormalised after the cut)"
                                             : ""));
  // sentence-transformers truncates to max_seq_length, within the model's
  // positions: written beside the tokenizer, when the directory has one.
  for (const Setting &S : I.settings())
    if (int64_t M = 0; Modules && Modules->MaxSeqLength && S.Key == "max_len" &&
                       !StringRef(S.Value).getAsInteger(10, M)) {
      R.Truncation = std::min(*Modules->MaxSeqLength, M);
      R.TruncationSource = "sentence_bert_config.json: max_seq_length";
      if (*Modules->MaxSeqLength > M)
        R.TruncationSource +=
            " (" + std::to_string(*Modules->MaxSeqLength) + "), cut to max_len";
    }
  I.warnUnusedKeys();
  if (!R.Errors.empty())
    return R;

  raw_string_ostream OS(R.Enc);
  OS << "// " << Name << ".enc: written by `encc import` from " << ConfigName
     << ".\n// Each value names the key it came from; the weights load as they "
        "are\n// (checkpoint layout: docs/weights.md).\n"
     << "encoder " << Name << " {\n";
  // Keys aligned at '=', comments aligned after the longest line.
  size_t KeyWidth = 0, LineWidth = 0;
  for (const Setting &S : I.settings())
    KeyWidth = std::max(KeyWidth, S.Key.size());
  for (const Setting &S : I.settings())
    LineWidth = std::max(LineWidth, KeyWidth + S.Value.size() + 6);
  for (const Setting &S : I.settings()) {
    std::string Text = "  " + S.Key +
                       std::string(KeyWidth - S.Key.size(), ' ') + " = " +
                       S.Value + ";";
    OS << Text << std::string(LineWidth - Text.size() + 2, ' ') << "// "
       << S.Source << "\n";
  }
  OS << "}\n";
  return R;
}

enc::HFImportResult enc::importHuggingFace(const std::string &Path,
                                           const std::string &Name,
                                           const std::string &Head) {
  HFImportResult R;
  std::string Dir, ConfigPath;
  if (!sys::fs::exists(Path)) {
    R.Errors.push_back(Path + ": no such model directory or config.json");
    return R;
  }
  if (sys::fs::is_directory(Path)) {
    Dir = Path;
  } else {
    ConfigPath = Path;
    Dir = sys::path::parent_path(Path).str();
    if (Dir.empty())
      Dir = ".";
  }
  std::optional<SentenceTransformers> ST;
  if (ConfigPath.empty()) {
    ST = readModules(Dir, R);
    SmallString<256> P(Dir);
    if (ST && !ST->TransformerPath.empty())
      sys::path::append(P, ST->TransformerPath);
    sys::path::append(P, "config.json");
    ConfigPath = P.str().str();
  } else if (sys::path::filename(ConfigPath) == "config.json") {
    // The config.json of a sentence-transformers directory: its pooling and
    // normalization are the model's too, as when the directory is given.
    ST = readModules(Dir, R);
    if (ST && !ST->TransformerPath.empty() && ST->TransformerPath != ".")
      ST.reset(); // this config.json is not the Transformer module's
  }
  // colbert-ir's ColBERT checkpoints say their projection's width here.
  if (const JsonFile A(Dir, "", "artifact.metadata", R.Errors); A.Obj) {
    std::optional<int64_t> Dim = A.Obj->getInteger("dim");
    if (!Dim || *Dim < 1) {
      R.Errors.push_back(A.Name + ": key 'dim' is not a positive integer");
    } else {
      if (!ST)
        ST.emplace();
      ST->ColbertDim = *Dim;
    }
  }
  std::optional<json::Value> V = readJSON(ConfigPath, R.Errors);
  if (!V)
    return R;
  const json::Object *Config = V->getAsObject();
  if (!Config) {
    R.Errors.push_back(ConfigPath + ": expected a JSON object");
    return R;
  }
  std::string Model = Name;
  if (Model.empty()) {
    SmallString<256> Abs(Dir);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    Model = encoderNameFor(sys::path::filename(Abs).str());
  }
  if (!Head.empty()) {
    if (!ST)
      ST.emplace();
    ST->MaskedLMHead = Head;
  }
  HFImportResult C =
      importConfig(*Config, ConfigPath, Model, ST ? &*ST : nullptr);
  R.Errors.insert(R.Errors.end(), C.Errors.begin(), C.Errors.end());
  R.Warnings.insert(R.Warnings.end(), C.Warnings.begin(), C.Warnings.end());
  if (R.Errors.empty()) {
    R.Enc = std::move(C.Enc);
    R.Truncation = C.Truncation;
    R.TruncationSource = C.TruncationSource;
  }
  return R;
}

std::string enc::tokenizerFileOf(const std::string &Path) {
  SmallString<256> Dir(Path);
  if (!sys::fs::is_directory(Path))
    Dir = sys::path::parent_path(Path);
  for (const char *Name :
       {"tokenizer.json", "spiece.model", "sentencepiece.bpe.model"}) {
    SmallString<256> P(Dir);
    sys::path::append(P, Name);
    if (sys::fs::is_regular_file(P))
      return P.str().str();
  }
  return "";
}

std::string enc::withTokenizer(const std::string &Enc,
                               const std::string &Written,
                               const HFImportResult &Import) {
  const size_t Close = Enc.rfind("\n}");
  if (Close == std::string::npos)
    return Enc;
  auto Line = [](const std::string &Code, const std::string &Comment) {
    std::string L = Code;
    L.resize(std::max<size_t>(L.size() + 1, 27), ' ');
    return L + "// " + Comment;
  };
  std::string Lines =
      Line("  tokenizer  = \"" + Written + "\";",
           "the directory's " + sys::path::filename(Written).str());
  if (Import.Truncation > 0)
    Lines +=
        "\n" + Line("  truncation = " + std::to_string(Import.Truncation) + ";",
                    Import.TruncationSource);
  return Enc.substr(0, Close + 1) + Lines + Enc.substr(Close);
}
