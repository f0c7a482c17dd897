//===- ASTDump.cpp - clang -ast-dump style printing of the AST ------------===//

#include "enc/lang/Printers.h"

#include "llvm/Support/raw_ostream.h"

using namespace enc;
namespace x3 = boost::spirit::x3;

namespace {
class Dumper {
public:
  Dumper(const SourceFile &Source, llvm::raw_ostream &OS)
      : Source(Source), OS(OS) {}

  void file(const ast::File &F) {
    OS << "File '" << Source.name() << "'\n";
    for (size_t I = 0; I < F.Encoders.size(); ++I)
      child(I + 1 == F.Encoders.size(), [&] { encoder(F.Encoders[I]); });
  }

private:
  /// Prints `|-` or `` `- `` and runs Body with the prefix for its children.
  template <typename Fn> void child(bool Last, Fn Body) {
    OS << Prefix << (Last ? "`-" : "|-");
    size_t Saved = Prefix.size();
    Prefix += Last ? "  " : "| ";
    Body();
    Prefix.resize(Saved);
  }
  void loc(const ast::Located &N) {
    LineCol LC = Source.lineCol(N.Begin);
    OS << " <" << LC.Line << ':' << LC.Col << '>';
  }
  /// One node on a line of its own: Head Text <line:col>.
  void line(llvm::StringRef Head, llvm::StringRef Text, const ast::Located &N) {
    OS << Head << Text;
    loc(N);
    OS << '\n';
  }

  void encoder(const ast::Encoder &E) {
    OS << "Encoder " << E.Name.Name;
    if (E.Base)
      OS << " : " << E.Base->Name;
    loc(E.Name);
    OS << '\n';
    for (size_t I = 0; I < E.Settings.size(); ++I)
      child(I + 1 == E.Settings.size(), [&] { setting(E.Settings[I]); });
  }
  void setting(const ast::Setting &S) {
    OS << "Setting " << S.Key.Name;
    loc(S.Key);
    OS << '\n';
    child(true, [&] { expr(S.Value); });
  }
  void expr(const ast::Expr &E) {
    if (E.Rest.empty()) // a single operand: no node for the chain
      return operand(E.First);
    // Left-associative: ((a op b) op c) printed as nested binary nodes.
    binary(E, E.Rest.size());
  }
  void binary(const ast::Expr &E, size_t Count) {
    const ast::Operation &Op = E.Rest[Count - 1];
    OS << "Binary '" << Op.Op << "'";
    loc(E);
    OS << '\n';
    child(false, [&] {
      if (Count == 1)
        operand(E.First);
      else
        binary(E, Count - 1);
    });
    child(true, [&] { operand(Op.Rhs); });
  }
  void operand(const ast::Operand &O) {
    struct Visitor {
      using result_type = void;
      Dumper &D;
      void operator()(const ast::Nil &) const { D.OS << "Nil\n"; }
      void operator()(const ast::NumberLit &N) const {
        bool IsInt = N.Text.find_first_of(".eE") == std::string::npos;
        D.line(IsInt ? "Integer " : "Float ", N.Text, N);
      }
      void operator()(const ast::BoolLit &B) const {
        D.line("Bool ", B.Text, B);
      }
      void operator()(const ast::StringLit &S) const {
        D.line("String ", '"' + S.Text + '"', S);
      }
      void operator()(const ast::Identifier &Id) const {
        D.line("Name ", Id.Name, Id);
      }
      void operator()(const x3::forward_ast<ast::Negate> &N) const {
        D.line("Negate", "", N.get());
        D.child(true, [&] { D.operand(N.get().Inner); });
      }
      void operator()(const x3::forward_ast<ast::Call> &C) const {
        const ast::Call &Call = C.get();
        D.line("Call ", Call.Callee.Name, Call);
        for (size_t I = 0; I < Call.Args.size(); ++I)
          D.child(I + 1 == Call.Args.size(), [&] {
            const ast::Arg &A = Call.Args[I];
            D.OS << "Arg";
            if (A.Name)
              D.OS << ' ' << A.Name->Name;
            D.loc(A);
            D.OS << '\n';
            D.child(true, [&] { D.expr(A.Value); });
          });
      }
      void operator()(const x3::forward_ast<ast::Expr> &E) const {
        D.expr(E.get());
      }
    };
    boost::apply_visitor(Visitor{*this}, O);
  }

  const SourceFile &Source;
  llvm::raw_ostream &OS;
  std::string Prefix;
};
} // namespace

void enc::dumpAST(const ast::File &File, const SourceFile &Source,
                  llvm::raw_ostream &OS) {
  Dumper(Source, OS).file(File);
}
