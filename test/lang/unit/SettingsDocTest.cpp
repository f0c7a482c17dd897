// docs/language.md's settings table is Settings.def's: the table between its
// markers must be what printSettingsTable renders. On a mismatch, the
// failure prints the table to paste.
#include "enc/lang/Settings.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace enc;

namespace {
constexpr const char *Begin = "<!-- settings table: generated from "
                              "lang/include/enc/lang/Settings.def -->\n";
constexpr const char *End = "<!-- end of the settings table -->";

TEST(SettingsDoc, LanguageDocShowsTheSettingsTable) {
  std::ifstream File(ENC_SOURCE_DIR "/docs/language.md");
  ASSERT_TRUE(File) << "cannot read docs/language.md";
  std::stringstream Text;
  Text << File.rdbuf();
  const std::string Doc = Text.str();
  size_t From = Doc.find(Begin), To = Doc.find(End);
  ASSERT_NE(From, std::string::npos) << "docs/language.md lacks: " << Begin;
  ASSERT_NE(To, std::string::npos) << "docs/language.md lacks: " << End;
  From += std::string(Begin).size();
  std::string Expected;
  llvm::raw_string_ostream OS(Expected);
  printSettingsTable(OS);
  OS.flush();
  EXPECT_EQ(Doc.substr(From, To - From), Expected)
      << "docs/language.md's settings table differs from Settings.def; it "
         "should read:\n"
      << Expected;
}

// Every row says what it means, and a conditional default names a setting.
TEST(SettingsDoc, EveryRowHasADocAndAKnownDefault) {
  for (const SettingInfo &S : allSettings()) {
    EXPECT_NE(std::string(S.Doc), "") << S.Name;
    if (S.Default.How == DefaultSpec::TrueWhen) {
      EXPECT_NE(findSetting(S.Default.WhenKey), nullptr) << S.Name;
    }
  }
}
} // namespace
