//===- Families.h - The family table, as the front end reads it -*- C++ -*-===//
//
// runtime/include/enc/families.def seen as data: the settings each checkpoint
// layout's tensors need (Sema checks them, `encc import` writes them), the
// Hugging Face model_types imported as each layout and the config keys each
// setting is read from (docs/weights.md#hugging-face-layouts,
// docs/import.md). The rows name settings and choice values as C++ names:
// one that Settings.def lacks, or of the wrong kind, fails to compile.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_FAMILIES_H
#define ENC_LANG_FAMILIES_H

#include "enc/lang/ModelSpec.h"
#include "enc/lang/Settings.h"

#include "enc/kernels/model.h"

#include "llvm/ADT/ArrayRef.h"

namespace enc {

// CheckpointLayout (Settings.def) and the runtime's enc_checkpoint are both
// the ENC_FAMILY rows in order.
#define ENC_FAMILY(Enumerator, LangName, Spelling, Prefix, Family)             \
  static_assert(static_cast<int>(CheckpointLayout::LangName) == Enumerator,    \
                "CheckpointLayout and enc_checkpoint disagree");
#include "enc/families.def"
static_assert(std::size(ChoiceSet<CheckpointLayout>::Spellings) ==
                  ENC_CHECKPOINT_COUNT,
              "CheckpointLayout and enc_checkpoint disagree");

/// The runtime's value of a layout (the same number).
constexpr enc_checkpoint runtimeLayout(CheckpointLayout L) {
  return static_cast<enc_checkpoint>(L);
}

/// A setting a layout's tensors need: ENC_FAMILY_NEEDS_* of families.def.
struct FamilyNeed {
  enum Kind {
    Choice,  ///< Key = the choice with index Value
    Bool,    ///< Key = (Value != 0)
    Zero,    ///< the integer Key is 0
    Positive ///< the integer Key is > 0
  };
  CheckpointLayout Layout;
  SettingId Key;
  Kind What;
  unsigned Value;
  const char *Why; ///< the comment `encc import` writes; null for counts
};

/// A setting `encc import` reads from a config key: ENC_FAMILY_CONFIG_*.
struct FamilyConfigKey {
  enum Kind {
    Int,       ///< an integer key
    Float,     ///< a number key
    Activation ///< a Hugging Face activation name (ACT2FN)
  };
  CheckpointLayout Layout;
  SettingId Key; ///< SettingId::activation for an Activation row
  Kind What;
  const char *ConfigKey;
  bool Required;           ///< no default: the key's absence is an error
  double Default;          ///< Int, Float
  const char *DefaultName; ///< Activation
};

/// A config.json `model_type` and the layout it is imported as.
struct FamilyModelType {
  const char *ModelType;
  CheckpointLayout Layout;
};

/// Every row of each kind, in the table's order.
llvm::ArrayRef<FamilyNeed> familyNeeds();
llvm::ArrayRef<FamilyConfigKey> familyConfigKeys();
llvm::ArrayRef<FamilyModelType> familyModelTypes();

/// The family's name as messages give it ("RoBERTa").
const char *familyName(CheckpointLayout L);

} // namespace enc

#endif // ENC_LANG_FAMILIES_H
