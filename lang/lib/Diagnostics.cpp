//===- Diagnostics.cpp - clang-style diagnostics --------------------------===//

#include "enc/lang/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace enc;

SourceFile::SourceFile(std::string Name, std::string Text)
    : Name(std::move(Name)), Text(std::move(Text)) {
  LineStarts.push_back(0);
  for (uint32_t I = 0, E = this->Text.size(); I != E; ++I)
    if (this->Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

LineCol SourceFile::lineCol(uint32_t Offset) const {
  Offset = std::min<uint32_t>(Offset, Text.size());
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset);
  unsigned Line = It - LineStarts.begin();
  return {Line, Offset - LineStarts[Line - 1] + 1};
}

llvm::StringRef SourceFile::lineAt(uint32_t Offset) const {
  Offset = std::min<uint32_t>(Offset, Text.size());
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset);
  uint32_t Start = *(It - 1);
  uint32_t End = It == LineStarts.end() ? Text.size() : *It - 1;
  return llvm::StringRef(Text).slice(Start, End);
}

DiagnosticEngine::DiagnosticEngine(const SourceFile &File,
                                   llvm::raw_ostream &OS, bool UseColor)
    : File(File), OS(OS), UseColor(UseColor) {}

void DiagnosticEngine::error(SourceRange Range, const llvm::Twine &Message) {
  emit(Severity::Error, Range, Message);
}
void DiagnosticEngine::warning(SourceRange Range, const llvm::Twine &Message) {
  emit(Severity::Warning, Range, Message);
}
void DiagnosticEngine::note(SourceRange Range, const llvm::Twine &Message) {
  emit(Severity::Note, Range, Message);
}

void DiagnosticEngine::fileError(const llvm::Twine &Message) {
  if (Stopped)
    return;
  ++Errors;
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << File.name() << ": ";
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::RED, true);
  OS << "error: ";
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  OS << Message << '\n';
  if (UseColor)
    OS.resetColor();
}

void DiagnosticEngine::emit(Severity Kind, SourceRange Range,
                            const llvm::Twine &Message) {
  if (Stopped)
    return;
  if (Kind == Severity::Note) {
    if (SuppressNotes)
      return;
  } else {
    SuppressNotes = false;
  }
  if (Kind == Severity::Error) {
    if (ErrorLimit != 0 && Errors >= ErrorLimit) {
      Stopped = true;
      if (UseColor)
        OS.changeColor(llvm::raw_ostream::RED, true);
      OS << File.name() << ": fatal error: ";
      if (UseColor)
        OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
      OS << "too many errors emitted, stopping now [--error-limit="
         << ErrorLimit << "]\n";
      if (UseColor)
        OS.resetColor();
      return;
    }
    ++Errors;
  } else if (Kind == Severity::Warning) {
    ++Warnings;
  }

  LineCol LC = File.lineCol(Range.Begin);
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  OS << File.name() << ':' << LC.Line << ':' << LC.Col << ": ";
  switch (Kind) {
  case Severity::Error:
    if (UseColor)
      OS.changeColor(llvm::raw_ostream::RED, true);
    OS << "error: ";
    break;
  case Severity::Warning:
    if (UseColor)
      OS.changeColor(llvm::raw_ostream::MAGENTA, true);
    OS << "warning: ";
    break;
  case Severity::Note:
    if (UseColor)
      OS.changeColor(llvm::raw_ostream::BLACK, true);
    OS << "note: ";
    break;
  }
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  OS << Message << '\n';
  if (UseColor)
    OS.resetColor();
  printSnippet(Range);
}

namespace {
/// One source byte (or UTF-8 sequence) as it is shown on the terminal.
struct Glyph {
  uint32_t Offset; // byte offset in the line
  std::string Text;
};

/// Length of the valid UTF-8 sequence starting at `S[I]`, or 0.
unsigned utf8Length(llvm::StringRef S, size_t I) {
  unsigned char C = S[I];
  unsigned Len = C >= 0xF0 && C <= 0xF4 ? 4 : C >= 0xE0 ? 3 : C >= 0xC2 ? 2 : 0;
  if (C >= 0xF5 || Len == 0 || I + Len > S.size())
    return 0;
  for (unsigned K = 1; K < Len; ++K)
    if ((static_cast<unsigned char>(S[I + K]) & 0xC0) != 0x80)
      return 0;
  return Len;
}

/// Splits a line into glyphs: printable text as is, tabs as spaces, other
/// bytes (control characters, NUL, invalid UTF-8) as `<XX>`, so that a binary
/// file never sends raw control codes to the terminal.
std::vector<Glyph> toGlyphs(llvm::StringRef Line) {
  std::vector<Glyph> Glyphs;
  unsigned Col = 0;
  for (size_t I = 0; I < Line.size();) {
    unsigned char C = Line[I];
    Glyph G{static_cast<uint32_t>(I), {}};
    size_t Len = 1;
    if (C == '\t') {
      G.Text.assign(8 - Col % 8, ' ');
    } else if (C >= 0x20 && C < 0x7F) {
      G.Text.assign(1, C);
    } else if (C >= 0x80 && (Len = utf8Length(Line, I)) != 0) {
      G.Text = Line.substr(I, Len).str();
    } else {
      Len = 1;
      static const char Hex[] = "0123456789ABCDEF";
      G.Text = {'<', Hex[C >> 4], Hex[C & 15], '>'};
    }
    Col += C >= 0x80 && Len > 1 ? 1 : G.Text.size();
    Glyphs.push_back(std::move(G));
    I += Len;
  }
  return Glyphs;
}

unsigned displayWidth(const Glyph &G) {
  return static_cast<unsigned char>(G.Text[0]) >= 0x80 ? 1 : G.Text.size();
}
} // namespace

void DiagnosticEngine::printSnippet(SourceRange Range) {
  llvm::StringRef Line = File.lineAt(Range.Begin);
  uint32_t LineStart = Line.data() - File.text().data();
  uint32_t CaretAt = Range.Begin - LineStart;
  uint32_t UnderlineEnd =
      std::min<uint32_t>(std::max(Range.End, Range.Begin + 1) - LineStart,
                         std::max<size_t>(Line.size(), CaretAt + 1));

  // Only a window of a very long line (a 10 MB generated one) can be shown:
  // split just the bytes around the caret into glyphs, not the whole line
  // for every diagnostic. The window holds far more than MaxWidth glyphs on
  // each side, so the "..." below still appear where the line goes on.
  const uint32_t Reach = 2048;
  if (Line.size() > 2 * Reach) {
    uint32_t From = CaretAt > Reach ? CaretAt - Reach : 0;
    uint32_t To = std::min<uint32_t>(Line.size(), CaretAt + Reach);
    // Start and end on character boundaries, not inside a UTF-8 sequence.
    auto IsContinuation = [&](uint32_t I) {
      return I < Line.size() &&
             (static_cast<unsigned char>(Line[I]) & 0xC0) == 0x80;
    };
    while (From < CaretAt && IsContinuation(From))
      ++From;
    while (To < Line.size() && IsContinuation(To))
      ++To;
    Line = Line.slice(From, To);
    CaretAt -= From;
    UnderlineEnd = std::min<uint32_t>(
        UnderlineEnd - From, std::max<size_t>(Line.size(), CaretAt + 1));
  }

  std::vector<Glyph> Glyphs = toGlyphs(Line);
  // A caret past the end of the line (end of file, a missing ';') points at
  // one column after the last glyph.
  Glyphs.push_back({static_cast<uint32_t>(Line.size()), " "});

  // Keep long lines (a minified or generated file) to a window around the
  // caret, as clang does on a narrow terminal.
  const unsigned MaxWidth = 120;
  size_t CaretGlyph = 0;
  while (CaretGlyph + 1 < Glyphs.size() &&
         Glyphs[CaretGlyph + 1].Offset <= CaretAt)
    ++CaretGlyph;
  size_t First = 0, Last = Glyphs.size();
  unsigned Width = 0;
  for (const Glyph &G : Glyphs)
    Width += displayWidth(G);
  if (Width > MaxWidth) {
    First = CaretGlyph > MaxWidth / 3 ? CaretGlyph - MaxWidth / 3 : 0;
    Last = First;
    for (unsigned W = 0; Last < Glyphs.size() && W < MaxWidth; ++Last)
      W += displayWidth(Glyphs[Last]);
  }

  std::string Source, Caret;
  if (First > 0) {
    Source += "...";
    Caret += "   ";
  }
  for (size_t I = First; I < Last; ++I) {
    const Glyph &G = Glyphs[I];
    if (I + 1 != Glyphs.size()) // not the end-of-line sentinel
      Source += G.Text;
    char Mark = G.Offset == CaretAt                             ? '^'
                : G.Offset > CaretAt && G.Offset < UnderlineEnd ? '~'
                                                                : ' ';
    // A wide glyph (<FF>, an expanded tab) under the caret: ^ then ~.
    Caret += Mark;
    Caret.append(displayWidth(G) - 1, Mark == ' ' ? ' ' : '~');
  }
  if (Last < Glyphs.size() - 1)
    Source += "...";
  while (!Caret.empty() && Caret.back() == ' ')
    Caret.pop_back();

  OS << Source << '\n';
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::GREEN, true);
  OS << Caret << '\n';
  if (UseColor)
    OS.resetColor();
}
