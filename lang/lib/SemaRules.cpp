//===- SemaRules.cpp - What a setting's value must satisfy
//------------------===//
//
// Ranges from Settings.def; what the table cannot say (d_model divisible by
// heads, the fp32 limits, a scheme's own rules) in `checkRules` and
// `checkChoiceRules`, one exhaustive switch each; the settings a
// checkpoint layout needs from the family table (enc/lang/Families.h).
//
//===----------------------------------------------------------------------===//

#include "EncoderResolver.h"

#include "enc/lang/Families.h"
#include "enc/lang/NumberFormat.h"

#include <cmath>

using namespace enc;
using namespace enc::sema;
namespace x3 = boost::spirit::x3;

void EncoderResolver::ruleError(SettingId Id, const llvm::Twine &Message) {
  EntryStack.push_back(entry(Id));
  error(rangeOfKey(Id), Message);
  EntryStack.pop_back();
}

bool EncoderResolver::checkRange(const SettingInfo &Info) {
  SettingId Id = idOf(Info);
  const RangeSpec &Range = Info.Range;
  switch (Range.How) {
  case RangeSpec::Any:
    return true;
  case RangeSpec::Positive:
    if (std::optional<double> V = floatOf(Id); V && !(*V > 0)) {
      ruleError(Id, llvm::Twine(Info.Name) + " (" + formatFloat(*V) +
                        ") must be greater than 0");
      return false;
    }
    return true;
  case RangeSpec::IntRange:
    break;
  }
  std::optional<int64_t> V = intOf(Id);
  if (!V || Range.contains(*V))
    return true;
  const int64_t Lo = Range.Lo, Hi = Range.Hi;
  const bool NoUpperBound = Hi == MaxInt32Setting || Hi == INT64_MAX;
  if (*V < Lo && Lo == 1 && NoUpperBound)
    ruleError(Id,
              llvm::Twine(Info.Name) + " (" + str(*V) + ") must be at least 1");
  else if (*V < Lo && Lo == 0)
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") must not be negative");
  else if (*V > Hi && Hi == MaxInt32Setting)
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") is too large: the runtime takes at most " +
                      str(MaxInt32Setting));
  else
    ruleError(Id, llvm::Twine(Info.Name) + " (" + str(*V) +
                      ") must be between " + str(Lo) + " and " + str(Hi));
  return false;
}

std::optional<unsigned> EncoderResolver::choiceValue(SettingId Id) const {
  const std::optional<Choice> &C = Choices[indexOf(Id)];
  if (!ChoiceDone[indexOf(Id)] || !C)
    return std::nullopt;
  return C->Value;
}

std::optional<int64_t> EncoderResolver::localBlocks() const {
  auto Window = intOf(SettingId::window),
       Every = intOf(SettingId::global_every),
       Blocks = intOf(SettingId::blocks);
  if (!Window || !Every || !Blocks || *Window < 0 || *Every < 0 ||
      *Blocks < 1 || *Blocks > 1024)
    return std::nullopt;
  if (*Window == 0)
    return 0;
  int64_t Global = *Every > 0 ? (*Blocks + *Every - 1) / *Every : 0;
  return *Blocks - Global;
}

void EncoderResolver::noteSetting(SettingId Id) {
  if (entry(Id))
    note(rangeOfKey(Id), llvm::Twine(settingInfo(Id).Name) + " is set here");
}

// position_offset's error when no table learns positions (Why: what the
// encoder has instead).
static std::string unusedOffset(int64_t Offset, const llvm::Twine &Why) {
  return ("position_offset (" + str(Offset) +
          ") has no effect: positions are not learned (" + Why + ")")
      .str();
}

// A float setting the model multiplies or divides by in fp32: positive and
// finite once rounded to fp32.
void EncoderResolver::checkPositiveFp32(SettingId Id) {
  std::optional<double> V = floatOf(Id);
  if (!V)
    return;
  const float F = static_cast<float>(*V);
  if (!(F > 0) || std::isinf(F))
    ruleError(Id, llvm::Twine(settingInfo(Id).Name) + " (" + formatFloat(*V) +
                      ") is not a positive finite fp32 number, the precision "
                      "the model runs in");
}

void EncoderResolver::checkRules(SettingId Id, bool InRange) {
  switch (Id) {
  case SettingId::heads:
    // With head_dim written, each head has its own width and heads need not
    // divide d_model (T5's d_kv).
    if (auto H = intOf(Id), D = intOf(SettingId::d_model);
        InRange && H && D && RangeOk[indexOf(SettingId::d_model)] &&
        !entry(SettingId::head_dim) && *D % *H != 0) {
      ruleError(Id, "d_model (" + str(*D) + ") is not divisible by heads (" +
                        str(*H) + ")");
      noteSetting(SettingId::d_model);
      note(rangeOfKey(Id), "heads of another width need head_dim (T5's "
                           "d_kv), which then need not divide d_model");
    }
    return;
  case SettingId::head_dim:
    if (auto HD = intOf(Id), H = intOf(SettingId::heads);
        InRange && HD && H && RangeOk[indexOf(SettingId::heads)] &&
        *H > MaxAttentionWidth / *HD) {
      ruleError(Id, "heads (" + str(*H) + ") * head_dim (" + str(*HD) +
                        ") is too wide: the attention takes at most " +
                        str(MaxAttentionWidth) + " columns");
      noteSetting(SettingId::heads);
    }
    return;
  case SettingId::position_offset:
    if (auto O = intOf(Id); InRange && O && *O > 0) {
      std::optional<unsigned> P = choiceValue(SettingId::positional);
      // relative(absolute = true) learns them too: checkChoiceRules.
      if (P && static_cast<PositionalKind>(*P) != PositionalKind::Learned &&
          static_cast<PositionalKind>(*P) != PositionalKind::Relative) {
        ruleError(Id, unusedOffset(
                          *O, "positional is " +
                                  toString(static_cast<PositionalKind>(*P))));
        noteSetting(SettingId::positional);
      } else if (auto M = intOf(SettingId::max_len);
                 P && M && RangeOk[indexOf(SettingId::max_len)] &&
                 *M > MaxInt32Setting - *O) {
        ruleError(Id, "max_len (" + str(*M) + ") + position_offset (" +
                          str(*O) +
                          ") rows of embed.positions is more than "
                          "the runtime takes (" +
                          str(MaxInt32Setting) + ")");
      }
    }
    return;
  case SettingId::window:
    if (auto W = intOf(Id); InRange && W && *W > 0) {
      std::optional<int64_t> Local = localBlocks();
      auto Every = intOf(SettingId::global_every);
      if (Local && *Local == 0 && Every) {
        ruleError(Id, "window (" + str(*W) +
                          ") has no effect: every block is global (with "
                          "global_every " +
                          str(*Every) +
                          ", block n is "
                          "global when n % " +
                          str(*Every) +
                          " == 0, and "
                          "blocks is " +
                          str(*intOf(SettingId::blocks)) + ")");
        noteSetting(SettingId::global_every);
      } else if (auto M = intOf(SettingId::max_len);
                 M && RangeOk[indexOf(SettingId::max_len)] && entry(Id) &&
                 *W / 2 >= *M - 1) {
        Diags.warning(rangeOfKey(Id),
                      "window (" + str(*W) + ") has no effect at max_len " +
                          str(*M) + ": every key is within window / 2 (" +
                          str(*W / 2) + ") of every query");
      }
    }
    return;
  case SettingId::global_every:
    if (auto E = intOf(Id), W = intOf(SettingId::window);
        InRange && E && W && *E > 0 && *W == 0) {
      ruleError(Id, "global_every (" + str(*E) +
                        ") has no effect without a window: with window 0 "
                        "every block is global");
    }
    return;
  case SettingId::norm_bias:
    if (auto NB = Values[indexOf(Id)]; NB.St == State::Done && !NB.Value.B)
      if (std::optional<unsigned> K = choiceValue(SettingId::norm_type);
          K && static_cast<NormType>(*K) == NormType::RMSNorm) {
        ruleError(Id, "norm_bias = false has no effect: rmsnorm has no bias");
        noteSetting(SettingId::norm_type);
      }
    return;
  case SettingId::first_attn_norm:
    if (auto F = Values[indexOf(Id)]; F.St == State::Done && !F.Value.B)
      if (std::optional<unsigned> N = choiceValue(SettingId::norm);
          N && static_cast<NormLayout>(*N) == NormLayout::Post) {
        ruleError(Id, "first_attn_norm = false needs norm = pre: with norm "
                      "= post, block 0's first norm follows its attention");
        noteSetting(SettingId::norm);
      }
    return;
  case SettingId::type_vocab:
    if (auto TV = intOf(Id), V = intOf(SettingId::vocab);
        TV && V && *TV > 0 && *V == 0)
      ruleError(Id, "type_vocab (" + str(*TV) +
                        ") needs token ids, but vocab is 0 (the input is "
                        "float embeddings)");
    return;
  case SettingId::attention_scale:
  case SettingId::eps:
    if (InRange)
      checkPositiveFp32(Id);
    return;
  case SettingId::embed_scale:
    if (auto Scale = floatOf(Id)) {
      if (std::isinf(static_cast<float>(*Scale)))
        ruleError(Id, "embed_scale (" + formatFloat(*Scale) +
                          ") overflows fp32, the precision the model runs in");
      else if (*Scale != 1.0 &&
               intOf(SettingId::vocab) == std::optional<int64_t>(0) &&
               entry(Id))
        Diags.warning(rangeOfKey(Id),
                      "embed_scale has no effect when vocab is 0: the input "
                      "is embeddings, which are not scaled");
    }
    return;
  case SettingId::output_dim:
    if (auto O = intOf(Id), D = intOf(SettingId::d_model);
        InRange && O && D && RangeOk[indexOf(SettingId::d_model)]) {
      std::optional<unsigned> P = choiceValue(SettingId::pooling);
      if (*O > *D) {
        ruleError(Id, "output_dim (" + str(*O) + ") is wider than d_model (" +
                          str(*D) + "): the cut keeps the first values");
        noteSetting(SettingId::d_model);
      } else if (*O < *D && P && static_cast<Pooling>(*P) == Pooling::None) {
        ruleError(Id, "output_dim (" + str(*O) +
                          ") cuts the pooled vector, but pooling is none "
                          "(the output is every token's d_model values)");
        noteSetting(SettingId::pooling);
      }
    }
    return;
  case SettingId::head: // checkHead, with its arguments
  case SettingId::d_model:
  case SettingId::d_ff:
  case SettingId::blocks:
  case SettingId::max_len:
  case SettingId::vocab:
  case SettingId::positional:
  case SettingId::norm:
  case SettingId::norm_type:
  case SettingId::activation:
  case SettingId::bias:
  case SettingId::embed_norm:
  case SettingId::final_norm:
  case SettingId::pooling:
  case SettingId::ffn:
  case SettingId::normalize:
  case SettingId::checkpoint:
  case SettingId::precision:
    return;
  case SettingId::tokenizer:
    // The file's contents against the other settings: encc checks them
    // when it reads it (compiler/lib/Tokenizer).
    return;
  case SettingId::truncation:
    if (auto T = intOf(Id); InRange && T && *T > 0) {
      std::optional<EvalValue> Tok = valueOf(SettingId::tokenizer);
      if (Tok && Tok->K == EvalValue::String && Tok->S.empty()) {
        ruleError(Id, "truncation (" + str(*T) +
                          ") has no effect: the encoder has no tokenizer");
      } else if (auto M = intOf(SettingId::max_len);
                 M && RangeOk[indexOf(SettingId::max_len)] && *T > *M) {
        ruleError(Id, "truncation (" + str(*T) +
                          ") is more tokens than max_len (" + str(*M) + ")");
        noteSetting(SettingId::max_len);
      }
    }
    return;
  }
}

void EncoderResolver::layoutNeeds(CheckpointLayout Layout, SettingId Other,
                                  const std::string &Needs,
                                  const std::string &Is) {
  error(rangeOfKey(SettingId::checkpoint),
        "checkpoint = " + toString(Layout).str() + " needs " + Needs +
            " (its family's tensors), but " + Is);
  noteSetting(Other);
}

void EncoderResolver::checkCheckpoint(CheckpointLayout Layout) {
  // The family table's rows (families.def), in its order.
  for (const FamilyNeed &N : familyNeeds()) {
    if (N.Layout != Layout)
      continue;
    const SettingInfo &Info = settingInfo(N.Key);
    std::string Key = Info.Name;
    switch (N.What) {
    case FamilyNeed::Choice: {
      std::optional<unsigned> V = choiceValue(N.Key);
      if (V && *V != N.Value)
        layoutNeeds(Layout, N.Key,
                    Key + " = " + Info.Choices->Spellings[N.Value],
                    Key + " is " + Info.Choices->Spellings[*V]);
      break;
    }
    case FamilyNeed::Bool: {
      const KeyState &V = Values[indexOf(N.Key)];
      const char *Spelled[] = {"false", "true"};
      if (V.St == State::Done && V.Value.B != (N.Value != 0))
        layoutNeeds(Layout, N.Key, Key + " = " + Spelled[N.Value != 0],
                    Key + " is " + Spelled[N.Value == 0]);
      break;
    }
    case FamilyNeed::Zero:
      if (auto V = intOf(N.Key); V && *V != 0)
        layoutNeeds(Layout, N.Key, Key + " = 0", Key + " is " + str(*V));
      break;
    case FamilyNeed::Positive:
      if (auto V = intOf(N.Key); V && *V <= 0)
        layoutNeeds(Layout, N.Key, Key + " > 0", Key + " is " + str(*V));
      break;
    }
  }
}

void EncoderResolver::checkChoiceRules(SettingId Id, const Choice &C,
                                       const ModelSpec &Spec) {
  if (Id == SettingId::checkpoint) {
    checkCheckpoint(static_cast<CheckpointLayout>(C.Value));
    return;
  }
  if (Id == SettingId::head) {
    checkHead(static_cast<HeadKind>(C.Value), Spec);
    return;
  }
  if (Id != SettingId::positional)
    return;
  SourceRange R = rangeOfKey(Id);
  switch (static_cast<PositionalKind>(C.Value)) {
  case PositionalKind::Rope:
    if (std::optional<unsigned> L = choiceValue(SettingId::checkpoint);
        L &&
        static_cast<CheckpointLayout>(*L) == CheckpointLayout::ModernBert &&
        Spec.Rope == RopeStyle::Interleaved)
      error(R, "checkpoint = modernbert needs rope style = halves (its "
               "family's rotation), but style is interleaved");
    if (auto HD = intOf(SettingId::head_dim); HD && *HD % 2 != 0) {
      if (entry(SettingId::head_dim))
        error(R, "rope needs an even d_k, but head_dim is " + str(*HD));
      else
        error(R, "rope needs an even d_k, but d_model (" +
                     str(*intOf(SettingId::d_model)) + ") / heads (" +
                     str(*intOf(SettingId::heads)) + ") = " + str(*HD));
    } else if (Spec.RopeLocalBase != Spec.RopeBase &&
               localBlocks() == std::optional<int64_t>(0)) {
      error(R, "rope local_base (" + formatFloat(Spec.RopeLocalBase) +
                   ") has no effect without local blocks (window is " +
                   str(*intOf(SettingId::window)) + ")");
    }
    return;
  case PositionalKind::Relative:
    if (std::optional<unsigned> L = choiceValue(SettingId::checkpoint);
        L && static_cast<CheckpointLayout>(*L) == CheckpointLayout::MpNet &&
        (!Spec.RelAbsolute || Spec.RelBuckets != 32 ||
         Spec.RelMaxDistance != 128))
      error(R, "checkpoint = mpnet needs relative(buckets = 32, max_distance "
               "= 128, absolute = true) (its family's positions), but it is "
               "relative(buckets = " +
                   str(Spec.RelBuckets) +
                   ", max_distance = " + str(Spec.RelMaxDistance) +
                   ", absolute = " + (Spec.RelAbsolute ? "true" : "false") +
                   ")");
    if (Spec.RelBuckets < 2 || Spec.RelBuckets % 2 != 0)
      error(R, "relative buckets (" + str(Spec.RelBuckets) +
                   ") must be even and at least 2");
    else if (Spec.RelBuckets > MaxInt32Setting)
      error(R, "relative buckets (" + str(Spec.RelBuckets) + ") is too large");
    else if (Spec.RelMaxDistance > MaxInt32Setting)
      error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                   ") is too large");
    else if (Spec.RelMaxDistance <= Spec.RelBuckets / 2)
      error(R, "relative max_distance (" + str(Spec.RelMaxDistance) +
                   ") must be greater than buckets / 2 (" +
                   str(Spec.RelBuckets / 2) + ")");
    else if (auto O = intOf(SettingId::position_offset);
             O && *O > 0 && !Spec.RelAbsolute)
      error(R, unusedOffset(*O, "relative without absolute = true"));
    return;
  case PositionalKind::None:
  case PositionalKind::Sinusoidal:
  case PositionalKind::Learned:
  case PositionalKind::Alibi:
    return;
  }
}

bool EncoderResolver::checkHeadDim(SourceRange R, llvm::StringRef Head,
                                   int64_t Dim) {
  if (Dim >= 1 && Dim <= 65536)
    return true;
  error(R, Head + " dim (" + str(Dim) + ") must be between 1 and 65536");
  return false;
}

void EncoderResolver::checkWholePooled(SourceRange R, llvm::StringRef Who) {
  if (auto O = intOf(SettingId::output_dim), D = intOf(SettingId::d_model);
      O && D && *O != *D) {
    error(R, Who + " reads the whole pooled vector, but output_dim (" +
                 str(*O) + ") cuts it");
    noteSetting(SettingId::output_dim);
  }
}

void EncoderResolver::checkHead(HeadKind Head, const ModelSpec &Spec) {
  SourceRange R = rangeOfKey(SettingId::head);
  switch (Head) {
  case HeadKind::None:
    return;
  case HeadKind::Classifier:
    if (Spec.HeadLabels < 1 || Spec.HeadLabels > MaxHeadLabels) {
      error(R, "classifier labels (" + str(Spec.HeadLabels) +
                   ") must be between 1 and " + str(MaxHeadLabels));
      return;
    }
    if (Spec.HeadNorm && !Spec.HeadDense) {
      error(R, "a classifier's norm follows its dense layer, but dense is "
               "false");
      return;
    }
    if (std::optional<unsigned> P = choiceValue(SettingId::pooling);
        P && static_cast<Pooling>(*P) == Pooling::None) {
      error(R, "a classifier reads the pooled vector, but pooling is none "
               "(BERT, RoBERTa, DistilBERT and ELECTRA classify the first "
               "token: pooling = cls)");
      noteSetting(SettingId::pooling);
    } else if (auto N = Values[indexOf(SettingId::normalize)];
               N.St == State::Done && N.Value.B) {
      error(R, "a classifier's output is logits, which normalize would "
               "rescale: drop normalize");
      noteSetting(SettingId::normalize);
    } else {
      checkWholePooled(R, "a classifier");
    }
    return;
  case HeadKind::Colbert:
    if (!checkHeadDim(R, "colbert", Spec.HeadColbertDim))
      return;
    if (std::optional<unsigned> P = choiceValue(SettingId::pooling);
        P && static_cast<Pooling>(*P) != Pooling::None) {
      error(R, "colbert gives a vector per token, but pooling is " +
                   toString(static_cast<Pooling>(*P)).str() +
                   " (write pooling = none)");
      noteSetting(SettingId::pooling);
    }
    return;
  case HeadKind::Mlm:
  case HeadKind::Splade: {
    // mlm gives every token's logits; splade pools them (its max).
    const bool Splade = Head == HeadKind::Splade;
    const Pooling Want = Splade ? Pooling::Max : Pooling::None;
    if (std::optional<unsigned> P = choiceValue(SettingId::pooling);
        P && static_cast<Pooling>(*P) != Want) {
      error(R, std::string(Splade ? "splade takes the maximum over the tokens"
                                  : "mlm gives logits per token") +
                   ", but pooling is " +
                   toString(static_cast<Pooling>(*P)).str() +
                   " (write pooling = " + toString(Want).str() + ")");
      noteSetting(SettingId::pooling);
    } else if (auto N = Values[indexOf(SettingId::normalize)];
               N.St == State::Done && N.Value.B) {
      error(R, std::string(Splade ? "splade" : "mlm") +
                   " gives term weights over the vocabulary, which normalize "
                   "would rescale: drop normalize");
      noteSetting(SettingId::normalize);
    } else if (auto V = intOf(SettingId::vocab); V && *V < 1) {
      error(R, std::string(Splade ? "splade" : "mlm") +
                   " scores every token of the vocabulary, but vocab is 0");
      noteSetting(SettingId::vocab);
    }
    return;
  }
  case HeadKind::Dense:
    if (!checkHeadDim(R, "dense", Spec.HeadDenseDim))
      return;
    if (std::optional<unsigned> P = choiceValue(SettingId::pooling);
        P && static_cast<Pooling>(*P) == Pooling::None) {
      error(R, "a dense head projects the pooled vector, but pooling is none");
      noteSetting(SettingId::pooling);
    } else {
      checkWholePooled(R, "a dense head");
    }
    return;
  }
}
