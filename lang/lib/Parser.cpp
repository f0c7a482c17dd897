//===- Parser.cpp - Drive the X3 grammar over a whole file ----------------===//
//
// The one translation unit that instantiates the grammar. Before parsing, a
// linear scan checks what a recursive-descent parser must not meet unprepared:
// bytes that are not UTF-8 text, unterminated comments and nesting deep
// enough to exhaust the stack. The parse itself goes encoder head by encoder
// head and setting by setting, so that after a syntax error it can resume and
// report the next one, as clang does.
//
//===----------------------------------------------------------------------===//

#include "enc/lang/Parser.h"

#include "Grammar_def.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace enc;
namespace x3 = boost::spirit::x3;

namespace {

bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
         (C >= '0' && C <= '9') || C == '_';
}

/// Length of the valid UTF-8 sequence at Text[I], or 0 if it is invalid.
unsigned utf8SequenceLength(llvm::StringRef Text, size_t I) {
  unsigned char C = Text[I];
  if (C < 0x80)
    return 1;
  unsigned Len = C >= 0xF0 && C <= 0xF4 ? 4 : C >= 0xE0 ? 3 : C >= 0xC2 ? 2 : 0;
  if (Len == 0 || I + Len > Text.size())
    return 0;
  for (unsigned K = 1; K < Len; ++K)
    if ((static_cast<unsigned char>(Text[I + K]) & 0xC0) != 0x80)
      return 0;
  unsigned char C1 = Text[I + 1];
  // Overlong 3- and 4-byte forms, UTF-16 surrogates, code points > U+10FFFF.
  if ((C == 0xE0 && C1 < 0xA0) || (C == 0xED && C1 >= 0xA0) ||
      (C == 0xF0 && C1 < 0x90) || (C == 0xF4 && C1 >= 0x90))
    return 0;
  return Len;
}

/// What the pre-scan learned about the file.
struct ScanResult {
  bool Fatal = false;       // the parser must not run
  uint32_t ParseEnd = 0;    // parse [0, ParseEnd): an open comment ends it
  bool OpenComment = false; // `/*` at ParseEnd never closed
};

/// Encoding: every byte must belong to UTF-8 text; NUL is not text. False
/// (after reporting, once per line) when some byte does not.
bool checkEncoding(const SourceFile &File, DiagnosticEngine &Diags) {
  llvm::StringRef Text = File.text();
  bool Ok = true;
  unsigned LastBadLine = 0;
  for (size_t I = 0; I < Text.size() && !Diags.limitReached();) {
    unsigned Len = Text[I] == '\0' ? 0 : utf8SequenceLength(Text, I);
    if (Len != 0) {
      I += Len;
      continue;
    }
    unsigned Line = File.lineCol(I).Line;
    if (Line != LastBadLine) { // one report per line is enough
      unsigned char C = Text[I];
      if (C == 0)
        Diags.error({uint32_t(I), uint32_t(I + 1)},
                    "null character in source file; a .enc file is UTF-8 "
                    "text");
      else
        Diags.error({uint32_t(I), uint32_t(I + 1)},
                    llvm::formatv("invalid UTF-8 byte 0x{0:X-2} in source "
                                  "file",
                                  unsigned(C)));
      LastBadLine = Line;
    }
    Ok = false;
    ++I;
  }
  return Ok;
}

ScanResult prescan(const SourceFile &File, DiagnosticEngine &Diags) {
  llvm::StringRef Text = File.text();
  ScanResult Result;
  Result.ParseEnd = Text.size();
  if (!checkEncoding(File, Diags)) {
    Result.Fatal = true;
    return Result;
  }

  // Comments, non-ASCII text and nesting depth. Depth counts open
  // parentheses plus the unary minus signs that lead up to an operand: each
  // is one level of recursion.
  std::vector<unsigned> MinusRunAtParen;
  unsigned Depth = 0, MinusRun = 0;
  unsigned LastBadLine = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (static_cast<unsigned char>(C) >= 0x80) {
      // Valid UTF-8 (checked above), but outside a comment only ASCII has a
      // meaning. One report per line; the parser does not run.
      unsigned Len = utf8SequenceLength(Text, I);
      unsigned Line = File.lineCol(I).Line;
      if (Line != LastBadLine && !Diags.limitReached()) {
        bool InIdentifier =
            (I > 0 && isIdentChar(Text[I - 1])) ||
            (I + Len < Text.size() && isIdentChar(Text[I + Len]));
        llvm::StringRef Char = Text.substr(I, Len);
        if (InIdentifier)
          Diags.error({uint32_t(I), uint32_t(I + Len)},
                      "non-ASCII character '" + Char +
                          "' in identifier; identifiers are ASCII "
                          "[A-Za-z_][A-Za-z0-9_]*");
        else
          Diags.error({uint32_t(I), uint32_t(I + Len)},
                      "non-ASCII character '" + Char +
                          "' outside a comment; identifiers are ASCII "
                          "[A-Za-z_][A-Za-z0-9_]*");
        LastBadLine = Line;
      }
      Result.Fatal = true;
      I += Len - 1;
      continue;
    }
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '/') {
      I = Text.find('\n', I);
      if (I == llvm::StringRef::npos)
        break;
      continue;
    }
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '*') {
      size_t Close = Text.find("*/", I + 2);
      if (Close == llvm::StringRef::npos) {
        Result.ParseEnd = I;
        Result.OpenComment = true;
        break;
      }
      I = Close + 1;
      continue;
    }
    if (C == '(') {
      MinusRunAtParen.push_back(MinusRun);
      Depth += 1;
      MinusRun = 0;
    } else if (C == ')') {
      if (!MinusRunAtParen.empty()) {
        Depth -= 1 + MinusRunAtParen.back();
        MinusRunAtParen.pop_back();
      }
      MinusRun = 0;
    } else if (C == '-') {
      ++MinusRun;
      ++Depth;
    } else if (isIdentChar(C) || C == ';' || C == '{' || C == '}' || C == '.') {
      Depth -= MinusRun;
      MinusRun = 0;
      if (C == ';' || C == '{' || C == '}') { // a new statement resets all
        Depth = 0;
        MinusRunAtParen.clear();
      }
    }
    if (Depth > MaxExpressionDepth) {
      Diags.error({uint32_t(I), uint32_t(I + 1)},
                  llvm::formatv("expression nested too deeply (more than {0} "
                                "levels of parentheses and unary minus)",
                                MaxExpressionDepth));
      Result.Fatal = true;
      return Result;
    }
  }
  return Result;
}

/// Drives the grammar over [0, End) of the file with error recovery.
class FileParser {
public:
  FileParser(const SourceFile &File, DiagnosticEngine &Diags, uint32_t End)
      : Diags(Diags), Begin(File.text().data()), Pos(Begin), End(Begin + End) {}

  ast::File parse();

private:
  enum class RuleResult { Parsed, NoMatch, Reported };
  /// Parses one rule at Pos. NoMatch leaves Pos alone and reports nothing;
  /// Reported means an expectation failed and was diagnosed.
  template <typename Rule, typename Attr>
  RuleResult parseRule(const Rule &R, Attr &Out);
  void skipTrivia();
  bool atKeyword(const char *Word) const;
  bool atEnd() {
    skipTrivia();
    return Pos == End;
  }
  /// The end of the token at P: a whole identifier or number (so that
  /// recovery never restarts inside one), else one character.
  const char *tokenEnd(const char *P) const;
  /// The end of the last token in [From, To), or From if there is none.
  const char *endOfLastToken(const char *From, const char *To);
  /// Skips to just past the next `;`, or to (not past) the next `}` or
  /// `encoder`, whichever comes first (token by token).
  void recoverInEncoder();
  /// Skips to the next `encoder` keyword or past the next `}` (token by
  /// token).
  void recoverAtTopLevel();
  void parseSettings(ast::Encoder *Into, uint32_t OpenBrace);
  SourceRange rangeAt(const char *P) const {
    uint32_t Off = P - Begin;
    return {Off, Off + (P < End ? 1u : 0u)};
  }

  DiagnosticEngine &Diags;
  const char *Begin;
  const char *Pos;
  const char *End;
};

void FileParser::skipTrivia() {
  x3::phrase_parse(Pos, End, x3::eps, grammar::Skipper);
}

bool FileParser::atKeyword(const char *Word) const {
  size_t Len = std::strlen(Word);
  return size_t(End - Pos) >= Len && std::memcmp(Pos, Word, Len) == 0 &&
         (Pos + Len == End || !isIdentChar(Pos[Len]));
}

template <typename Rule, typename Attr>
FileParser::RuleResult FileParser::parseRule(const Rule &R, Attr &Out) {
  const char *Start = Pos;
  try {
    auto Parser = x3::with<grammar::SourceBeginTag>(Begin)[R];
    if (x3::phrase_parse(Pos, End, Parser, grammar::Skipper, Out))
      return RuleResult::Parsed;
    Pos = Start;
    return RuleResult::NoMatch;
  } catch (const x3::expectation_failure<const char *> &Failure) {
    // X3 has skipped whitespace and comments before it failed, or not
    // (when the failing parser is a lexeme): skip them to find the token
    // that was found instead.
    Pos = Failure.where();
    std::string Expected = Failure.which();
    // A string that a line break or the end of the file cuts off: reported
    // where it stops, and parsing resumes on the next line.
    if (Expected == "'\"'") {
      Diags.error(rangeAt(Pos), "missing '\"' at the end of this string "
                                "(a string ends on its line)");
      return RuleResult::Reported;
    }
    skipTrivia();
    const char *Where = Pos;
    bool AtEOF = Where == End;
    // A missing `;` is reported right after the previous token, as clang
    // does; anything else at the token that was found instead.
    if (Expected == "';'")
      Where = endOfLastToken(Start, Where);
    if (AtEOF)
      Diags.error(rangeAt(Where),
                  llvm::Twine("expected ") + Expected + " at end of file");
    else
      Diags.error(rangeAt(Where), llvm::Twine("expected ") + Expected);
    Pos = Where;
    return RuleResult::Reported;
  }
}

const char *FileParser::tokenEnd(const char *P) const {
  if (P == End)
    return P;
  if (!isIdentChar(*P))
    return P + 1;
  while (P != End && isIdentChar(*P))
    ++P;
  return P;
}

const char *FileParser::endOfLastToken(const char *From, const char *To) {
  const char *Saved = Pos, *Last = From;
  Pos = From;
  while (true) {
    skipTrivia();
    if (Pos >= To)
      break;
    // X3's tokens are finer than tokenEnd's (`1e` is the number 1, then
    // `e`): never go past To.
    Pos = Last = std::min(tokenEnd(Pos), To);
  }
  Pos = Saved;
  return Last;
}

void FileParser::recoverInEncoder() {
  while (true) {
    skipTrivia();
    if (Pos == End || *Pos == '}' || atKeyword("encoder"))
      return;
    if (*Pos == ';') {
      ++Pos;
      return;
    }
    Pos = tokenEnd(Pos);
  }
}

void FileParser::recoverAtTopLevel() {
  while (true) {
    skipTrivia();
    if (Pos == End || atKeyword("encoder"))
      return;
    if (*Pos == '}') {
      ++Pos;
      return;
    }
    Pos = tokenEnd(Pos);
  }
}

void FileParser::parseSettings(ast::Encoder *Into, uint32_t OpenBrace) {
  while (!Diags.limitReached()) {
    if (atEnd()) {
      if (Into)
        Into->Incomplete = true;
      Diags.error(rangeAt(Pos), "expected '}' at end of file");
      Diags.note({OpenBrace, OpenBrace + 1}, "to match this '{'");
      return;
    }
    if (*Pos == '}') {
      ++Pos;
      if (Into)
        Into->End = Pos - Begin;
      return;
    }
    if (atKeyword("encoder")) {
      if (Into)
        Into->Incomplete = true;
      Diags.error(rangeAt(Pos), "expected '}' before the next encoder");
      Diags.note({OpenBrace, OpenBrace + 1}, "to match this '{'");
      return;
    }
    ast::Setting S;
    RuleResult R = parseRule(grammar::Setting, S);
    if (R == RuleResult::Parsed) {
      if (Into)
        Into->Settings.push_back(std::move(S));
      continue;
    }
    if (R == RuleResult::NoMatch)
      Diags.error(rangeAt(Pos), "expected a setting 'name = value;' or '}'");
    if (Into)
      Into->Incomplete = true;
    // Stop short of a `}` so that the body still closes where it should.
    recoverInEncoder();
  }
}

ast::File FileParser::parse() {
  ast::File Result;
  if (atEnd()) {
    Diags.error(rangeAt(Pos), "expected 'encoder': a .enc file declares at "
                              "least one encoder");
    return Result;
  }
  while (!atEnd() && !Diags.limitReached()) {
    if (!atKeyword("encoder")) {
      Diags.error(rangeAt(Pos), "expected 'encoder'");
      recoverAtTopLevel();
      continue;
    }
    ast::EncoderHead Head;
    if (parseRule(grammar::EncoderHead, Head) != RuleResult::Parsed) {
      // Resume inside the body if there is one, so that its settings are
      // still checked for syntax; they are not added to the AST.
      while (!atEnd() && *Pos != '{' && *Pos != '}' && !atKeyword("encoder"))
        Pos = tokenEnd(Pos);
      if (Pos != End && *Pos == '{') {
        uint32_t Brace = Pos - Begin;
        ++Pos;
        parseSettings(nullptr, Brace);
      } else if (Pos != End && *Pos == '}') {
        ++Pos;
      }
      continue;
    }
    ast::Encoder E;
    E.Begin = Head.Begin;
    E.End = Head.End;
    E.Name = std::move(Head.Name);
    E.Base = std::move(Head.Base);
    parseSettings(&E, Head.End - 1);
    Result.Encoders.push_back(std::move(E));
  }
  return Result;
}

} // namespace

ast::File enc::parseFile(const SourceFile &File, DiagnosticEngine &Diags) {
  ScanResult Scan = prescan(File, Diags);
  if (Scan.Fatal)
    return {};
  FileParser Parser(File, Diags, Scan.ParseEnd);
  ast::File Result = Parser.parse();
  if (Scan.OpenComment)
    Diags.error({Scan.ParseEnd, Scan.ParseEnd + 2}, "unterminated /* comment");
  return Result;
}
