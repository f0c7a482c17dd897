// Unit tests of the Hugging Face import on config dicts: the family table's
// rows reach the .enc text, each family's quirks, and what is refused. Every
// imported text is resolved by Sema, so a table row that the front end
// would reject fails here.
#include "enc/HFImport/HFImport.h"
#include "enc/lang/Families.h"
#include "enc/lang/Parser.h"
#include "enc/lang/Sema.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace enc;

namespace {

llvm::json::Object parse(const std::string &Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  EXPECT_TRUE(static_cast<bool>(V)) << llvm::toString(V.takeError());
  return std::move(*V->getAsObject());
}

HFImportResult import(const std::string &Json,
                      const SentenceTransformersModules *Modules = nullptr) {
  return importConfig(parse(Json), "config.json", "m", Modules);
}

/// Sema's errors on the imported text (empty: it resolves).
std::string resolveErrors(const std::string &Enc) {
  SourceFile Source("imported.enc", Enc);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  DiagnosticEngine Diags(Source, OS, false);
  ast::File F = parseFile(Source, Diags);
  std::vector<ModelSpec> Specs = resolveFile(F, Diags);
  if (Diags.errorCount() == 0 && Specs.size() != 1)
    OS << "expected one encoder, got " << Specs.size();
  return OS.str();
}

/// The line of `Enc` that sets `Key`, without its comment, or "".
std::string line(const std::string &Enc, const std::string &Key) {
  size_t At = Enc.find("\n  " + Key + " ");
  if (At != std::string::npos) {
    size_t End = Enc.find(';', At);
    std::string L = Enc.substr(At + 3, End - At - 3);
    std::string Squeezed;
    for (char C : L)
      if (C != ' ' || (!Squeezed.empty() && Squeezed.back() != ' '))
        Squeezed += C;
    return Squeezed;
  }
  return "";
}

const char *BertBase = R"({
  "model_type": "bert", "hidden_size": 768, "num_attention_heads": 12,
  "intermediate_size": 3072, "num_hidden_layers": 12, "vocab_size": 30522,
  "max_position_embeddings": 512, "type_vocab_size": 2,
  "hidden_act": "gelu", "layer_norm_eps": 1e-12, "hidden_dropout_prob": 0.1,
  "pad_token_id": 0, "architectures": ["BertModel"]})";

TEST(HFImportTest, BertMapsItsKeysAndWritesItsFamilysSettings) {
  HFImportResult R = import(BertBase);
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_TRUE(R.Warnings.empty()) << R.Warnings[0];
  EXPECT_EQ(line(R.Enc, "checkpoint"), "checkpoint = bert");
  EXPECT_EQ(line(R.Enc, "d_model"), "d_model = 768");
  EXPECT_EQ(line(R.Enc, "heads"), "heads = 12");
  EXPECT_EQ(line(R.Enc, "d_ff"), "d_ff = 3072");
  EXPECT_EQ(line(R.Enc, "blocks"), "blocks = 12");
  EXPECT_EQ(line(R.Enc, "vocab"), "vocab = 30522");
  EXPECT_EQ(line(R.Enc, "type_vocab"), "type_vocab = 2");
  EXPECT_EQ(line(R.Enc, "max_len"), "max_len = 512");
  EXPECT_EQ(line(R.Enc, "activation"), "activation = gelu");
  EXPECT_EQ(line(R.Enc, "eps"), "eps = 1e-12");
  EXPECT_EQ(line(R.Enc, "position_offset"), "");
  // Every choice and bool the family table says BERT's tensors need.
  int Rows = 0;
  for (const FamilyNeed &N : familyNeeds()) {
    if (N.Layout != CheckpointLayout::Bert)
      continue;
    const SettingInfo &Info = settingInfo(N.Key);
    std::string Want;
    if (N.What == FamilyNeed::Choice)
      Want = std::string(Info.Name) + " = " + Info.Choices->Spellings[N.Value];
    else if (N.What == FamilyNeed::Bool)
      Want = std::string(Info.Name) + " = " + (N.Value ? "true" : "false");
    else
      continue;
    EXPECT_EQ(line(R.Enc, Info.Name), Want);
    ++Rows;
  }
  EXPECT_GE(Rows, 8);
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, RobertaPositionsStartAfterThePaddingId) {
  HFImportResult R = import(R"({
    "model_type": "xlm-roberta", "hidden_size": 768, "num_attention_heads": 12,
    "intermediate_size": 3072, "num_hidden_layers": 12, "vocab_size": 250002,
    "max_position_embeddings": 514, "type_vocab_size": 1, "pad_token_id": 1})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_EQ(line(R.Enc, "checkpoint"), "checkpoint = roberta");
  EXPECT_EQ(line(R.Enc, "position_offset"), "position_offset = 2");
  EXPECT_EQ(line(R.Enc, "max_len"), "max_len = 512");
  EXPECT_EQ(line(R.Enc, "type_vocab"), "type_vocab = 1");
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, RobertaWithoutRoomForAPositionIsRefused) {
  HFImportResult R = import(R"({
    "model_type": "roberta", "hidden_size": 64, "num_attention_heads": 4,
    "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100,
    "max_position_embeddings": 2, "pad_token_id": 1})");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_NE(R.Errors[0].find("'max_position_embeddings' (2) and 'pad_token_id' "
                             "(1) leave no position"),
            std::string::npos)
      << R.Errors[0];
}

TEST(HFImportTest, T5GatedGeluIsTheTanhFormAndItsBucketsAreArguments) {
  HFImportResult R = import(R"({
    "model_type": "t5", "d_model": 512, "num_heads": 6, "d_kv": 64,
    "d_ff": 1024, "num_layers": 8, "vocab_size": 32128,
    "feed_forward_proj": "gated-gelu", "relative_attention_num_buckets": 32,
    "relative_attention_max_distance": 128, "layer_norm_epsilon": 1e-6,
    "is_encoder_decoder": true, "num_decoder_layers": 8})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_TRUE(R.Warnings.empty()) << R.Warnings[0];
  EXPECT_EQ(line(R.Enc, "ffn"), "ffn = gated");
  EXPECT_EQ(line(R.Enc, "activation"), "activation = gelu_tanh");
  EXPECT_EQ(line(R.Enc, "head_dim"), "head_dim = 64");
  // The quirk wrote positional with its arguments; the table's row did not
  // write it a second time.
  EXPECT_EQ(line(R.Enc, "positional"),
            "positional = relative(buckets = 32, max_distance = 128)");
  EXPECT_EQ(R.Enc.find("positional", R.Enc.find("positional") + 1),
            std::string::npos);
  EXPECT_EQ(line(R.Enc, "norm_type"), "norm_type = rmsnorm");
  EXPECT_EQ(line(R.Enc, "bias"), "bias = false");
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, T5DisagreeingActivationKeysAreRefused) {
  HFImportResult R = import(R"({
    "model_type": "t5", "d_model": 64, "num_heads": 4, "d_kv": 16,
    "d_ff": 128, "num_layers": 2, "vocab_size": 100,
    "feed_forward_proj": "gated-gelu", "dense_act_fn": "relu"})");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_NE(R.Errors[0].find("'dense_act_fn' (\"relu\") disagree"),
            std::string::npos)
      << R.Errors[0];
}

TEST(HFImportTest, ModernBertRopeBasesAndBiases) {
  HFImportResult R = import(R"({
    "model_type": "modernbert", "hidden_size": 768, "num_attention_heads": 12,
    "intermediate_size": 1152, "num_hidden_layers": 22, "vocab_size": 50368,
    "max_position_embeddings": 8192, "global_rope_theta": 160000.0,
    "local_rope_theta": 10000.0, "local_attention": 128,
    "global_attn_every_n_layers": 3, "hidden_activation": "gelu",
    "norm_eps": 1e-05, "norm_bias": false, "attention_bias": false,
    "mlp_bias": false})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_EQ(line(R.Enc, "positional"),
            "positional = rope(base = 160000.0, local_base = 10000.0)");
  EXPECT_EQ(line(R.Enc, "window"), "window = 128");
  EXPECT_EQ(line(R.Enc, "global_every"), "global_every = 3");
  EXPECT_EQ(line(R.Enc, "ffn"), "ffn = gated");
  EXPECT_EQ(line(R.Enc, "first_attn_norm"), "first_attn_norm = false");
  EXPECT_EQ(line(R.Enc, "bias"), "bias = false");
  EXPECT_EQ(resolveErrors(R.Enc), "");

  HFImportResult Mixed = import(R"({
    "model_type": "modernbert", "hidden_size": 64, "num_attention_heads": 4,
    "intermediate_size": 96, "num_hidden_layers": 3, "vocab_size": 100,
    "max_position_embeddings": 128, "attention_bias": true,
    "mlp_bias": false})");
  ASSERT_EQ(Mixed.Errors.size(), 1u);
  EXPECT_NE(Mixed.Errors[0].find("'attention_bias' (true) and 'mlp_bias' "
                                 "(false) differ"),
            std::string::npos)
      << Mixed.Errors[0];
}

TEST(HFImportTest, ElectraIsBertsNamesUnderItsPrefixWithoutAProjection) {
  std::string Config = BertBase;
  Config.replace(Config.find("\"bert\""), 6, "\"electra\"");
  Config.insert(Config.size() - 1, ", \"embedding_size\": 768");
  HFImportResult R = import(Config);
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_EQ(line(R.Enc, "checkpoint"), "checkpoint = electra");
  EXPECT_EQ(line(R.Enc, "norm"), "norm = post");
  EXPECT_EQ(resolveErrors(R.Enc), "");

  std::string Small =
      BertBase; // ELECTRA-small: 128-wide embeddings, 256 blocks
  Small.replace(Small.find("\"bert\""), 6, "\"electra\"");
  Small.replace(Small.find("768"), 3, "256");
  HFImportResult P = import(Small);
  ASSERT_EQ(P.Errors.size(), 1u);
  EXPECT_NE(P.Errors[0].find("'embedding_size' (128) and 'hidden_size' (256) "
                             "differ"),
            std::string::npos)
      << P.Errors[0];
}

TEST(HFImportTest, MpNetLearnsPositionsBesideItsRelativeBias) {
  // MPNet's padding row is fixed at 1, so its positions start at row 2 even
  // where pad_token_id says otherwise.
  HFImportResult R = import(R"({
    "model_type": "mpnet", "hidden_size": 768, "num_attention_heads": 12,
    "intermediate_size": 3072, "num_hidden_layers": 12, "vocab_size": 30527,
    "max_position_embeddings": 514, "relative_attention_num_buckets": 32,
    "layer_norm_eps": 1e-05, "pad_token_id": 0})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_EQ(line(R.Enc, "checkpoint"), "checkpoint = mpnet");
  EXPECT_EQ(line(R.Enc, "positional"),
            "positional = relative(buckets = 32, max_distance = 128, absolute "
            "= true)");
  EXPECT_EQ(line(R.Enc, "position_offset"), "position_offset = 2");
  EXPECT_EQ(line(R.Enc, "max_len"), "max_len = 512");
  EXPECT_EQ(line(R.Enc, "type_vocab"), "");
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, MpNetBucketsOtherThan32AreRefused) {
  HFImportResult R = import(R"({
    "model_type": "mpnet", "hidden_size": 64, "num_attention_heads": 4,
    "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100,
    "relative_attention_num_buckets": 64})");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_NE(R.Errors[0].find("key 'relative_attention_num_buckets' is 64: "
                             "MPNet's code buckets offsets into 32"),
            std::string::npos)
      << R.Errors[0];
}

TEST(HFImportTest, NomicBertRoundsItsWidthsAndRotatesEveryDimension) {
  // nomic-embed-text-v1.5's keys: GPT-2's names, a gated feed-forward layer
  // whose width rounds up to a multiple of 256, a vocabulary padded to 64.
  HFImportResult R = import(R"({
    "model_type": "nomic_bert", "n_embd": 768, "n_head": 12, "n_layer": 12,
    "n_inner": 3000, "n_positions": 8192, "vocab_size": 30522,
    "pad_vocab_size_multiple": 64, "activation_function": "swiglu",
    "rotary_emb_fraction": 1.0, "rotary_emb_base": 1000,
    "qkv_proj_bias": false, "mlp_fc1_bias": false, "mlp_fc2_bias": false,
    "layer_norm_epsilon": 1e-12, "type_vocab_size": 2,
    "rotary_scaling_factor": null, "max_trained_positions": 2048})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_TRUE(R.Warnings.empty()) << R.Warnings[0];
  EXPECT_EQ(line(R.Enc, "checkpoint"), "checkpoint = nomic_bert");
  EXPECT_EQ(line(R.Enc, "d_ff"), "d_ff = 3072");
  EXPECT_EQ(line(R.Enc, "vocab"), "vocab = 30528");
  EXPECT_EQ(line(R.Enc, "ffn"), "ffn = gated");
  EXPECT_EQ(line(R.Enc, "activation"), "activation = silu");
  EXPECT_EQ(line(R.Enc, "positional"), "positional = rope(base = 1000.0)");
  EXPECT_EQ(line(R.Enc, "max_len"), "max_len = 8192");
  EXPECT_EQ(line(R.Enc, "type_vocab"), "type_vocab = 2");
  EXPECT_EQ(line(R.Enc, "bias"), "bias = false");
  EXPECT_EQ(line(R.Enc, "norm"), "norm = post");
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, NomicBertRefusesWhatItDoesNotCompute) {
  auto ErrorOf = [](const std::string &Extra) {
    HFImportResult R = import(R"({
      "model_type": "nomic_bert", "n_embd": 64, "n_head": 4, "n_layer": 2,
      "n_inner": 256, "n_positions": 512, "vocab_size": 100,
      "rotary_emb_base": 1000)" +
                              Extra + "}");
    return R.Errors.empty() ? std::string("no error") : R.Errors[0];
  };
  // Without rotary_emb_fraction, NomicBertConfig's default (0.0) learns
  // positions, which this layout has no name for.
  EXPECT_NE(ErrorOf("").find("key 'rotary_emb_fraction' is 0.0"),
            std::string::npos);
  const std::string Rotary = R"(, "rotary_emb_fraction": 1.0)";
  EXPECT_NE(ErrorOf(Rotary + R"(, "rotary_scaling_factor": 2.0)")
                .find("key 'rotary_scaling_factor' is set"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(Rotary + R"(, "prenorm": true)").find("key 'prenorm' is true"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf(Rotary + R"(, "num_experts": 8)").find("key 'num_experts' is 8"),
      std::string::npos);
  EXPECT_NE(ErrorOf(Rotary + R"(, "qkv_proj_bias": false)")
                .find("keys 'qkv_proj_bias' (false), 'mlp_fc1_bias' (true)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Rotary + R"(, "activation_function": "glu")")
                .find("key 'activation_function' is \"glu\""),
            std::string::npos);
  EXPECT_EQ(ErrorOf(Rotary), "no error"); // NomicBertMLP, gelu_new
}

TEST(HFImportTest, DistilBertHasNoTokenTypesAndAFixedEps) {
  HFImportResult R = import(R"({
    "model_type": "distilbert", "dim": 768, "n_heads": 12, "hidden_dim": 3072,
    "n_layers": 6, "vocab_size": 30522, "activation": "gelu",
    "sinusoidal_pos_embds": false})");
  ASSERT_TRUE(R.Errors.empty()) << R.Errors[0];
  EXPECT_EQ(line(R.Enc, "type_vocab"), "");
  EXPECT_EQ(line(R.Enc, "max_len"), "max_len = 512");
  EXPECT_EQ(line(R.Enc, "eps"), "eps = 1e-12");
  EXPECT_EQ(resolveErrors(R.Enc), "");

  HFImportResult Sin = import(R"({
    "model_type": "distilbert", "dim": 64, "n_heads": 4, "hidden_dim": 128,
    "n_layers": 2, "vocab_size": 100, "sinusoidal_pos_embds": true})");
  ASSERT_EQ(Sin.Errors.size(), 1u);
  EXPECT_NE(Sin.Errors[0].find("key 'sinusoidal_pos_embds' is true"),
            std::string::npos);
}

TEST(HFImportTest, EveryModelTypeOfTheTableImportsAndResolves) {
  // A config with each required key of the family's rows; the values are
  // chosen to fit every family (d_model = heads * head_dim, ELECTRA's
  // default embedding_size).
  auto ValueOf = [](SettingId Id) -> int64_t {
    switch (Id) {
    case SettingId::d_model:
      return 128; // ELECTRA's default embedding_size: no projection
    case SettingId::heads:
      return 4;
    case SettingId::head_dim:
      return 32;
    case SettingId::blocks:
      return 3;
    case SettingId::vocab:
      return 100;
    case SettingId::max_len:
      return 256;
    default:
      return 128;
    }
  };
  int Types = 0;
  for (const FamilyModelType &M : familyModelTypes()) {
    llvm::json::Object Config;
    Config["model_type"] = M.ModelType;
    for (const FamilyConfigKey &K : familyConfigKeys())
      if (K.Layout == M.Layout && K.Required)
        Config[K.ConfigKey] = ValueOf(K.Key);
    // NomicBertConfig's default rotary_emb_fraction (0.0) learns positions,
    // which its layout has no names for: its configs all set 1.0.
    if (M.Layout == CheckpointLayout::NomicBert)
      Config["rotary_emb_fraction"] = 1.0;
    HFImportResult R = importConfig(Config, "config.json", "m");
    ASSERT_TRUE(R.Errors.empty()) << M.ModelType << ": " << R.Errors[0];
    EXPECT_EQ(line(R.Enc, "checkpoint"),
              std::string("checkpoint = ") + toString(M.Layout).str())
        << M.ModelType;
    EXPECT_EQ(resolveErrors(R.Enc), "") << M.ModelType << ":\n" << R.Enc;
    ++Types;
  }
  EXPECT_GE(Types, 6);
}

TEST(HFImportTest, MissingAndMistypedKeysAreNamed) {
  HFImportResult R = import(R"({"model_type": "bert", "num_attention_heads": 12,
    "intermediate_size": "3072", "num_hidden_layers": 12, "vocab_size": 30522})");
  ASSERT_EQ(R.Errors.size(), 2u);
  EXPECT_EQ(R.Errors[0], "config.json: key 'hidden_size' is missing");
  EXPECT_EQ(R.Errors[1],
            "config.json: key 'intermediate_size' must be an integer");
  EXPECT_EQ(R.Enc, "");
}

TEST(HFImportTest, UnknownModelTypeListsTheTablesTypes) {
  HFImportResult R = import(R"({"model_type": "gpt2"})");
  ASSERT_EQ(R.Errors.size(), 1u);
  std::string Want = "model_type \"gpt2\" is not one encc imports (";
  for (const FamilyModelType &M : familyModelTypes())
    Want += std::string(M.ModelType) + ", ";
  Want.resize(Want.size() - 2);
  EXPECT_EQ(R.Errors[0], "config.json: " + Want + ")");
}

TEST(HFImportTest, ActivationsEnccCannotComputeAreRefused) {
  std::string Config = BertBase;
  Config.replace(Config.find("\"gelu\""), 6, "\"mish\"");
  HFImportResult R = import(Config);
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_NE(R.Errors[0].find("key 'hidden_act' is \"mish\""),
            std::string::npos);
}

TEST(HFImportTest, ActivationsComeFromTheActivationTable) {
  for (auto [HF, Enc] : {std::pair<const char *, const char *>{"gelu", "gelu"},
                         {"gelu_new", "gelu_tanh"},
                         {"gelu_pytorch_tanh", "gelu_tanh"},
                         {"swish", "silu"},
                         {"quick_gelu", "quick_gelu"}}) {
    std::string Config = BertBase;
    Config.replace(Config.find("\"gelu\""), 6, std::string("\"") + HF + "\"");
    HFImportResult R = import(Config);
    ASSERT_TRUE(R.Errors.empty()) << HF;
    EXPECT_EQ(line(R.Enc, "activation"), std::string("activation = ") + Enc);
  }
}

TEST(HFImportTest, UnknownKeysWarnAndHarmlessOnesDoNot) {
  std::string Config = BertBase;
  Config.insert(Config.size() - 1,
                ", \"rotary_dim\": 32, \"classifier_dropout\": 0.1");
  HFImportResult R = import(Config);
  ASSERT_TRUE(R.Errors.empty());
  ASSERT_EQ(R.Warnings.size(), 1u);
  EXPECT_NE(R.Warnings[0].find("key 'rotary_dim' is not one encc knows"),
            std::string::npos);
}

TEST(HFImportTest, DecodersAndPrunedHeadsAreRefused) {
  std::string Config = BertBase;
  Config.insert(Config.size() - 1,
                ", \"is_decoder\": true, \"pruned_heads\": {\"0\": [1]}");
  HFImportResult R = import(Config);
  ASSERT_EQ(R.Errors.size(), 2u);
  EXPECT_NE(R.Errors[0].find("key 'is_decoder' is true"), std::string::npos);
  EXPECT_NE(R.Errors[1].find("key 'pruned_heads' is not empty"),
            std::string::npos);
}

TEST(HFImportTest, SentenceTransformersModulesAddPoolingAndNormalize) {
  SentenceTransformersModules Modules;
  Modules.Pooling = "mean";
  Modules.PoolingSource = "1_Pooling/config.json: pooling_mode_mean_tokens";
  Modules.Normalize = true;
  HFImportResult R = import(BertBase, &Modules);
  ASSERT_TRUE(R.Errors.empty());
  EXPECT_EQ(line(R.Enc, "pooling"), "pooling = mean");
  EXPECT_EQ(line(R.Enc, "normalize"), "normalize = true");
  EXPECT_EQ(resolveErrors(R.Enc), "");
}

TEST(HFImportTest, EncoderNames) {
  EXPECT_EQ(encoderNameFor("all-MiniLM-L6-v2"), "all_minilm_l6_v2");
  EXPECT_EQ(encoderNameFor("bge-small-en-v1.5"), "bge_small_en_v1_5");
  EXPECT_EQ(encoderNameFor("1model"), "model_1model");
  EXPECT_EQ(encoderNameFor("--"), "model_");
}

} // namespace
