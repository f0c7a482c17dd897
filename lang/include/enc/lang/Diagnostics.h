//===- Diagnostics.h - clang-style diagnostics for .enc files ---*- C++ -*-===//
//
// `file:line:col: error: message`, the source line, a caret under the
// location and a `~` underline for the rest of the range, colour on a
// terminal only. Notes attach to the preceding error or warning. After
// `ErrorLimit` errors a fatal error stops the run, as clang's -ferror-limit.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_DIAGNOSTICS_H
#define ENC_LANG_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace enc {

/// A byte range [Begin, End) in a SourceFile.
struct SourceRange {
  uint32_t Begin = 0;
  uint32_t End = 0;
};

/// 1-based line and column (in bytes, as clang counts them).
struct LineCol {
  unsigned Line = 1;
  unsigned Col = 1;
};

/// The text of one input file and its line table.
class SourceFile {
public:
  SourceFile(std::string Name, std::string Text);

  llvm::StringRef name() const { return Name; }
  llvm::StringRef text() const { return Text; }
  LineCol lineCol(uint32_t Offset) const;
  /// The line holding `Offset`, without its newline.
  llvm::StringRef lineAt(uint32_t Offset) const;

private:
  std::string Name;
  std::string Text;
  std::vector<uint32_t> LineStarts;
};

enum class Severity { Error, Warning, Note };

class DiagnosticEngine {
public:
  DiagnosticEngine(const SourceFile &File, llvm::raw_ostream &OS,
                   bool UseColor);

  void error(SourceRange Range, const llvm::Twine &Message);
  void warning(SourceRange Range, const llvm::Twine &Message);
  void note(SourceRange Range, const llvm::Twine &Message);
  /// An error that belongs to no location (printed as `file: error: ...`).
  void fileError(const llvm::Twine &Message);

  unsigned errorCount() const { return Errors; }
  unsigned warningCount() const { return Warnings; }
  bool hasErrors() const { return Errors != 0; }
  /// True once the error limit was reached; callers stop early.
  bool limitReached() const { return Stopped; }
  /// 0 means no limit. The default is clang's 20.
  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }

  const SourceFile &file() const { return File; }

private:
  void emit(Severity Kind, SourceRange Range, const llvm::Twine &Message);
  void printSnippet(SourceRange Range);

  const SourceFile &File;
  llvm::raw_ostream &OS;
  bool UseColor;
  unsigned Errors = 0;
  unsigned Warnings = 0;
  unsigned ErrorLimit = 20;
  bool Stopped = false;
  bool SuppressNotes = false; // notes of a diagnostic dropped by the limit
};

} // namespace enc

#endif // ENC_LANG_DIAGNOSTICS_H
