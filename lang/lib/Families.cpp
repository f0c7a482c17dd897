//===- Families.cpp - The family table, as the front end reads it ---------===//
//
// The rows are built by constexpr functions in constexpr arrays: a row whose
// setting has the wrong kind reaches a `throw` during constant evaluation,
// which is a compile error, and a choice value that the setting's choice set
// lacks is a name that does not exist.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Families.h"

namespace enc {
namespace {

/// The choice set of each setting as a type (NoChoices for the others).
template <SettingId Id> struct ChoicesOf;
#define ENC_SETTING(Key, Field, Kind, Choices, ...)                            \
  template <> struct ChoicesOf<SettingId::Key> {                               \
    using type = Choices;                                                      \
  };
#include "enc/lang/Settings.def"

constexpr SettingKind KindOf[] = {
#define ENC_SETTING(Key, Field, Kind, ...) SettingKind::Kind,
#include "enc/lang/Settings.def"
};

constexpr SettingKind kindOf(SettingId Id) {
  return KindOf[static_cast<unsigned>(Id)];
}

constexpr CheckpointLayout layoutOf(enc_checkpoint L) {
  return static_cast<CheckpointLayout>(L);
}

constexpr FamilyNeed need(enc_checkpoint L, SettingId Key, SettingKind Kind,
                          FamilyNeed::Kind What, unsigned Value,
                          const char *Why) {
  return kindOf(Key) == Kind
             ? FamilyNeed{layoutOf(L), Key, What, Value, Why}
             : throw "families.def: the setting is not of the row's kind";
}

constexpr FamilyNeed Needs[] = {
#define ENC_FAMILY_NEEDS_CHOICE(L, Key, Value, Why)                            \
  need(L, SettingId::Key, SettingKind::Choice, FamilyNeed::Choice,             \
       static_cast<unsigned>(ChoicesOf<SettingId::Key>::type::Value), Why),
#define ENC_FAMILY_NEEDS_BOOL(L, Key, Value, Why)                              \
  need(L, SettingId::Key, SettingKind::Bool, FamilyNeed::Bool,                 \
       (Value) ? 1 : 0, Why),
#define ENC_FAMILY_NEEDS_COUNT(L, Key, ZeroOrPositive)                         \
  need(L, SettingId::Key, SettingKind::Int, FamilyNeed::ZeroOrPositive, 0,     \
       nullptr),
#include "enc/families.def"
};

/// ENC_CONFIG_REQUIRED: a config key without a default.
struct Required {};
#define ENC_CONFIG_REQUIRED                                                    \
  Required {}

constexpr FamilyConfigKey configKey(enc_checkpoint L, SettingId Key,
                                    SettingKind Kind,
                                    FamilyConfigKey::Kind What,
                                    const char *ConfigKey, Required) {
  return kindOf(Key) == Kind
             ? FamilyConfigKey{layoutOf(L), Key, What,   ConfigKey,
                               true,        0,   nullptr}
             : throw "families.def: the setting is not of the row's kind";
}
constexpr FamilyConfigKey configKey(enc_checkpoint L, SettingId Key,
                                    SettingKind Kind,
                                    FamilyConfigKey::Kind What,
                                    const char *ConfigKey, double Default) {
  return kindOf(Key) == Kind
             ? FamilyConfigKey{layoutOf(L), Key,     What,   ConfigKey,
                               false,       Default, nullptr}
             : throw "families.def: the setting is not of the row's kind";
}

constexpr FamilyConfigKey ConfigKeys[] = {
#define ENC_FAMILY_CONFIG_INT(L, Key, ConfigKey, Default)                      \
  configKey(L, SettingId::Key, SettingKind::Int, FamilyConfigKey::Int,         \
            ConfigKey, Default),
#define ENC_FAMILY_CONFIG_FLOAT(L, Key, ConfigKey, Default)                    \
  configKey(L, SettingId::Key, SettingKind::Float, FamilyConfigKey::Float,     \
            ConfigKey, Default),
#define ENC_FAMILY_CONFIG_ACTIVATION(L, ConfigKey, Default)                    \
  FamilyConfigKey{layoutOf(L),                                                 \
                  SettingId::activation,                                       \
                  FamilyConfigKey::Activation,                                 \
                  ConfigKey,                                                   \
                  false,                                                       \
                  0,                                                           \
                  Default},
#include "enc/families.def"
};
#undef ENC_CONFIG_REQUIRED

constexpr FamilyModelType ModelTypes[] = {
#define ENC_FAMILY_MODEL_TYPE(L, ModelType) {ModelType, layoutOf(L)},
#include "enc/families.def"
};

constexpr const char *Names[] = {
#define ENC_FAMILY(Enumerator, LangName, Spelling, Prefix, Family) Family,
#include "enc/families.def"
};

} // namespace

llvm::ArrayRef<FamilyNeed> familyNeeds() { return Needs; }
llvm::ArrayRef<FamilyConfigKey> familyConfigKeys() { return ConfigKeys; }
llvm::ArrayRef<FamilyModelType> familyModelTypes() { return ModelTypes; }

const char *familyName(CheckpointLayout L) {
  return Names[static_cast<unsigned>(L)];
}

} // namespace enc
