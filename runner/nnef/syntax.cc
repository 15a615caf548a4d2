#include "runner/nnef/syntax.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "runner/nnef/lexer.h"

namespace nnref::nnef {
namespace {

constexpr const char* kRuleFlat = "3.2.1 <rvalue-expr> (flat syntax)";
constexpr const char* kNeedExpressions =
    "is an operator expression; it needs 'extension KHR_enable_operator_expressions;'";

bool IsTypeNameKeyword(const Token& t) {
  return t.IsKeyword("integer") || t.IsKeyword("scalar") || t.IsKeyword("logical") ||
         t.IsKeyword("string");
}

bool IsBuiltinKeyword(const Token& t) {
  return IsTypeNameKeyword(t) || t.IsKeyword("shape_of") || t.IsKeyword("length_of") ||
         t.IsKeyword("range_of");
}

Prim PrimOfKeyword(const std::string& k) {
  if (k == "integer") return Prim::kInteger;
  if (k == "scalar") return Prim::kScalar;
  if (k == "logical") return Prim::kLogical;
  if (k == "string") return Prim::kString;
  return Prim::kGeneric;  // "?"
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, bool strict = false)
      : toks_(Tokenize(text, file)), file_(file), strict_(strict) {}

  Document Document_() {
    Document doc;
    doc.file = file_;
    ParseVersion(doc);
    while (Peek().IsKeyword("extension")) ParseExtension(doc);
    fragments_ = doc.fragments_enabled;
    expressions_ = doc.expressions_enabled;
    while (Peek().IsKeyword("fragment")) {
      if (!fragments_) {
        Fail(Peek(),
             "fragment definitions need 'extension KHR_enable_fragment_definitions;' in the "
             "document",
             "3.2.2");
      }
      doc.fragments.push_back(ParseFragment(doc.file));
    }
    if (!Peek().IsKeyword("graph")) {
      Fail(Peek(), "expected the graph definition ('graph'), found " + Describe(Peek()),
           "3.2.4 <document>");
    }
    doc.graph = ParseGraph();
    if (Peek().kind != Tok::kEnd) {
      Fail(Peek(),
           "expected end of file after the graph definition, found " + Describe(Peek()) +
               " (fragment definitions must precede the graph)",
           "3.2.4 <document>");
    }
    return doc;
  }

  Document Library() {
    Document doc;
    doc.file = file_;
    doc.fragments_enabled = doc.expressions_enabled = fragments_ = expressions_ = true;
    while (Peek().IsKeyword("fragment")) doc.fragments.push_back(ParseFragment(doc.file));
    if (Peek().kind != Tok::kEnd) {
      Fail(Peek(), "expected a fragment definition, found " + Describe(Peek()), "3.2.2");
    }
    return doc;
  }

 private:
  // ---- token helpers ----
  const Token& Peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  static Loc LocOf(const Token& t) { return Loc{t.line, t.column}; }

  [[noreturn]] void Fail(const Token& t, const std::string& msg, const std::string& rule) const {
    throw NnefError(Stage::kParse, SourcePos{file_, t.line, t.column}, msg, rule);
  }
  [[noreturn]] void FailAt(Loc l, const std::string& msg, const std::string& rule) const {
    throw NnefError(Stage::kParse, SourcePos{file_, l.line, l.column}, msg, rule);
  }

  void ExpectPunct(std::string_view p, const char* rule) {
    if (!Peek().IsPunct(p)) {
      Fail(Peek(), "expected '" + std::string(p) + "', found " + Describe(Peek()), rule);
    }
    Next();
  }
  void ExpectKeyword(std::string_view k, const char* rule) {
    if (!Peek().IsKeyword(k)) {
      Fail(Peek(), "expected '" + std::string(k) + "', found " + Describe(Peek()), rule);
    }
    Next();
  }
  std::string ExpectIdentifier(const char* what, const char* rule) {
    const Token& t = Peek();
    if (t.kind != Tok::kIdentifier) {
      std::string extra = t.kind == Tok::kKeyword ? " (keywords are reserved, 3.1)" : "";
      Fail(t, std::string("expected ") + what + ", found " + Describe(t) + extra, rule);
    }
    return Next().text;
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxSyntaxDepth) {
        p_.Fail(p_.Peek(),
                "nesting deeper than " + std::to_string(kMaxSyntaxDepth) +
                    " levels (implementation limit)",
                "3.2 syntax");
      }
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& p_;
  };

  // ---- document level ----
  void ParseVersion(Document& doc) {
    const Token& kw = Peek();
    if (!kw.IsKeyword("version")) {
      Fail(kw, "a document starts with 'version <major>.<minor>;', found " + Describe(kw),
           "3.2.4 <version>");
    }
    Next();
    const Token& v = Peek();
    doc.version_loc = LocOf(v);
    bool shape_ok = v.kind == Tok::kNumber && v.text.find_first_of("eE") == std::string::npos &&
                    v.text.find('.') != std::string::npos;
    if (!shape_ok) {
      Fail(v, "the version must be a real-number literal <major>.<minor>, found " + Describe(v),
           "3.2.4 <version>");
    }
    doc.version = Next().text;
    if (doc.version != "1.0") {
      FailAt(doc.version_loc,
             "unsupported NNEF version " + doc.version + " (this implementation reads 1.0)",
             "3.2.4 <version>");
    }
    ExpectPunct(";", "3.2.4 <version>");
  }

  // 3.2.4: <extension> ::= "extension" <identifier>+ ";" (names separated by white space). The
  // NNEF-Tools parser reads `extension A, B;` instead (and its tests and converters write it), so
  // commas are accepted between names unless `strict_`, with a warning naming the form. A comma
  // must be followed by a name; an empty list is an error in both forms.
  void ParseExtension(Document& doc) {
    Next();  // extension
    constexpr const char* kRule = "3.2.4 <extension> ::= \"extension\" <identifier>+ \";\"";
    if (Peek().kind != Tok::kIdentifier) {
      Fail(Peek(), "expected an extension name, found " + Describe(Peek()), kRule);
    }
    bool warned = false;
    for (;;) {
      const Token& t = Next();
      if (t.text == "KHR_enable_fragment_definitions") doc.fragments_enabled = true;
      if (t.text == "KHR_enable_operator_expressions") doc.expressions_enabled = true;
      doc.extensions.emplace_back(t.text, LocOf(t));
      if (Peek().kind == Tok::kIdentifier) continue;
      if (!Peek().IsPunct(",")) break;
      const Token& comma = Next();
      if (strict_) {
        Fail(comma,
             "extension names are separated by white space, not commas (the NNEF-Tools form "
             "'extension A, B;' is accepted without --strict)",
             kRule);
      }
      if (Peek().kind != Tok::kIdentifier) {
        Fail(Peek(), "expected an extension name after ',', found " + Describe(Peek()), kRule);
      }
      if (!warned) {
        warned = true;
        const Loc l = LocOf(comma);
        doc.warnings.push_back(file_ + ":" + std::to_string(l.line) + ":" +
                               std::to_string(l.column) +
                               ": warning: comma-separated extension list (the NNEF-Tools form) "
                               "accepted; the 1.0.2 grammar (3.2.4) separates extension names by "
                               "white space, and --strict rejects the commas");
      }
    }
    ExpectPunct(";", kRule);
  }

  // ---- types ----
  Type ParseTypeSpec() {
    DepthGuard g(*this);
    Type t;
    const Token& tk = Peek();
    if (IsTypeNameKeyword(tk)) {
      t = Type::Primitive(PrimOfKeyword(Next().text));
    } else if (tk.IsPunct("?")) {
      Next();
      t = Type::Primitive(Prim::kGeneric);
    } else if (tk.IsKeyword("tensor")) {
      Next();
      ExpectPunct("<", "3.2.2 <tensor-type-spec>");
      Prim p = Prim::kNone;
      if (IsTypeNameKeyword(Peek()) || Peek().IsPunct("?")) {
        p = PrimOfKeyword(Next().text);
      }
      ExpectPunct(">", "3.2.2 <tensor-type-spec>");
      t = Type::Tensor(p);
    } else if (tk.IsPunct("(")) {
      Next();
      std::vector<Type> items;
      items.push_back(ParseTypeSpec());
      while (Peek().IsPunct(",")) {
        Next();
        items.push_back(ParseTypeSpec());
      }
      if (items.size() < 2) {
        Fail(Peek(), "a tuple type needs at least two item types", "3.2.2 <tuple-type-spec>");
      }
      ExpectPunct(")", "3.2.2 <tuple-type-spec>");
      t = Type::Tuple(std::move(items));
    } else {
      Fail(tk, "expected a type, found " + Describe(tk), "3.2.2 <type-spec>");
    }
    int suffixes = 0;
    while (Peek().IsPunct("[") && Peek(1).IsPunct("]")) {
      if (depth_ + ++suffixes > kMaxSyntaxDepth) {
        Fail(Peek(),
             "type nesting deeper than " + std::to_string(kMaxSyntaxDepth) +
                 " levels (implementation limit)",
             "3.2.2 <array-type-spec>");
      }
      Next();
      Next();
      t = Type::Array(std::move(t));
    }
    return t;
  }

  // ---- fragments and graph ----
  std::unique_ptr<Fragment> ParseFragment(const std::string& file) {
    auto f = std::make_unique<Fragment>();
    f->loc = LocOf(Next());  // fragment
    f->file = file;
    f->name = ExpectIdentifier("a fragment name", "3.2.2 <fragment-declaration>");
    if (Peek().IsPunct("<")) {
      Next();
      ExpectPunct("?", "3.2.2 <generic-declaration>");
      f->generic = true;
      if (Peek().IsPunct("=")) {
        Next();
        if (!IsTypeNameKeyword(Peek())) {
          Fail(Peek(),
               "expected a primitive type name as the generic default, found " + Describe(Peek()),
               "3.2.2 <generic-declaration>");
        }
        f->generic_default = PrimOfKeyword(Next().text);
      }
      ExpectPunct(">", "3.2.2 <generic-declaration>");
    }
    ExpectPunct("(", "3.2.2 <fragment-declaration>");
    f->params.push_back(ParseParam(true));
    while (Peek().IsPunct(",")) {
      Next();
      f->params.push_back(ParseParam(true));
    }
    ExpectPunct(")", "3.2.2 <parameter-list>");
    ExpectPunct("->", "3.2.2 <fragment-declaration>");
    ExpectPunct("(", "3.2.2 <fragment-declaration>");
    f->results.push_back(ParseParam(false));
    while (Peek().IsPunct(",")) {
      Next();
      f->results.push_back(ParseParam(false));
    }
    ExpectPunct(")", "3.2.2 <result-list>");
    if (Peek().IsPunct(";")) {
      Next();
      return f;
    }
    if (!Peek().IsPunct("{")) {
      Fail(Peek(), "expected a fragment body '{' or ';', found " + Describe(Peek()),
           "3.2.2 <fragment-definition>");
    }
    f->has_body = true;
    f->body = ParseBody();
    return f;
  }

  Param ParseParam(bool allow_default) {
    Param p;
    p.loc = LocOf(Peek());
    p.name = ExpectIdentifier(allow_default ? "a parameter name" : "a result name",
                              allow_default ? "3.2.2 <parameter>" : "3.2.2 <result>");
    ExpectPunct(":", allow_default ? "3.2.2 <parameter>" : "3.2.2 <result>");
    p.type = ParseTypeSpec();
    if (Peek().IsPunct("=")) {
      if (!allow_default) Fail(Peek(), "results have no default values", "3.2.2 <result>");
      Next();
      p.default_value = ToValue(*ParseLiteralExpr());
    }
    return p;
  }

  // <literal-expr>: literals, arrays and tuples of literals (a '-' before a numeric literal is
  // part of it, as in reshape's axis_count: integer = -1).
  ExprPtr ParseLiteralExpr() {
    DepthGuard g(*this);
    const Token& t = Peek();
    if (t.IsPunct("[")) {
      auto e = NewExpr(Expr::Kind::kArray, t);
      Next();
      if (!Peek().IsPunct("]")) {
        e->items.push_back(ParseLiteralExpr());
        while (Peek().IsPunct(",")) {
          Next();
          e->items.push_back(ParseLiteralExpr());
        }
      }
      ExpectPunct("]", "3.2.2 <array-literal-expr>");
      return e;
    }
    if (t.IsPunct("(")) {
      auto e = NewExpr(Expr::Kind::kTuple, t);
      Next();
      e->items.push_back(ParseLiteralExpr());
      while (Peek().IsPunct(",")) {
        Next();
        e->items.push_back(ParseLiteralExpr());
      }
      if (e->items.size() < 2) {
        Fail(Peek(), "a tuple needs at least two items", "3.2.2 <tuple-literal-expr>");
      }
      ExpectPunct(")", "3.2.2 <tuple-literal-expr>");
      return e;
    }
    if (t.IsPunct("-") && Peek(1).kind == Tok::kNumber) {
      Next();
      return Literal(Next(), true);
    }
    if (t.kind == Tok::kNumber || t.kind == Tok::kString || t.kind == Tok::kLogical) {
      return Literal(Next(), false);
    }
    Fail(t, "a default value must be a literal expression, found " + Describe(t),
         "3.2.2 <literal-expr>");
  }

  // Converts a literal expression to its value.
  static ArgValue ToValue(const Expr& e) {
    if (e.kind == Expr::Kind::kLiteral) return e.literal;
    std::vector<ArgValue> items;
    for (const ExprPtr& i : e.items) items.push_back(ToValue(*i));
    if (e.kind == Expr::Kind::kTuple) return ArgValue::Tuple(std::move(items));
    return ArgValue::Array(std::move(items));
  }

  GraphDef ParseGraph() {
    GraphDef g;
    g.loc = LocOf(Next());  // graph
    g.name = ExpectIdentifier("the graph name", "3.2.1 <graph-declaration>");
    ExpectPunct("(", "3.2.1 <graph-declaration>");
    g.params = ParseIdentifierList();
    ExpectPunct(")", "3.2.1 <graph-declaration>");
    ExpectPunct("->", "3.2.1 <graph-declaration>");
    ExpectPunct("(", "3.2.1 <graph-declaration>");
    g.results = ParseIdentifierList();
    ExpectPunct(")", "3.2.1 <graph-declaration>");
    if (!Peek().IsPunct("{")) {
      Fail(Peek(), "expected the graph body '{', found " + Describe(Peek()), "3.2.1 <body>");
    }
    g.body = ParseBody();
    return g;
  }

  std::vector<std::pair<std::string, Loc>> ParseIdentifierList() {
    std::vector<std::pair<std::string, Loc>> out;
    Loc l = LocOf(Peek());
    out.emplace_back(ExpectIdentifier("an identifier", "3.2.1 <identifier-list>"), l);
    while (Peek().IsPunct(",")) {
      Next();
      l = LocOf(Peek());
      out.emplace_back(ExpectIdentifier("an identifier", "3.2.1 <identifier-list>"), l);
    }
    return out;
  }

  std::vector<Assignment> ParseBody() {
    Next();  // {
    std::vector<Assignment> body;
    if (Peek().IsPunct("}")) {
      Fail(Peek(), "a body needs at least one assignment",
           "3.2.1 <body> ::= \"{\" <assignment>+ \"}\"");
    }
    while (!Peek().IsPunct("}")) {
      if (Peek().kind == Tok::kEnd) Fail(Peek(), "unterminated body: expected '}'", "3.2.1 <body>");
      body.push_back(ParseAssignment());
    }
    Next();  // }
    return body;
  }

  Assignment ParseAssignment() {
    Assignment a;
    a.loc = LocOf(Peek());
    a.lhs = ParseLValueTuple();
    ExpectPunct("=", "3.2.1 <assignment>");
    Loc rl = LocOf(Peek());
    a.rhs = ParseExpr();
    if (!Peek().IsPunct(";")) {
      Fail(Peek(), "expected ';' after the assignment, found " + Describe(Peek()),
           "3.2.1 <assignment>");
    }
    Next();
    if (!expressions_) {
      if (a.rhs->kind != Expr::Kind::kInvocation || a.rhs->paren) {
        FailAt(rl,
               "the right-hand side of an assignment must be an invocation in flat syntax "
               "(other right-hand sides need 'extension KHR_enable_operator_expressions;')",
               "3.2.1 <assignment> ::= <lvalue-expr> \"=\" <invocation> \";\"");
      }
      for (const Argument& arg : a.rhs->args) CheckFlat(*arg.value);
    }
    return a;
  }

  // The flat <rvalue-expr>: identifiers, literals, arrays and tuples.
  void CheckFlat(const Expr& e) const {
    switch (e.kind) {
      case Expr::Kind::kIdentifier:
      case Expr::Kind::kLiteral:
        if (e.paren) break;
        return;
      case Expr::Kind::kArray:
        if (e.paren) break;
        for (const ExprPtr& i : e.items) CheckFlat(*i);
        return;
      case Expr::Kind::kTuple:
        for (const ExprPtr& i : e.items) CheckFlat(*i);
        return;
      default:
        break;
    }
    FailAt(e.loc, WhatIs(e) + " " + kNeedExpressions, kRuleFlat);
  }

  static std::string WhatIs(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kInvocation:
        return "a nested invocation of '" + e.name + "'";
      case Expr::Kind::kUnary:
        return "the unary operator '" + e.name + "'";
      case Expr::Kind::kBinary:
        return "the binary operator '" + e.name + "'";
      case Expr::Kind::kIfElse:
        return "an if-else expression";
      case Expr::Kind::kComprehension:
        return "an array comprehension";
      case Expr::Kind::kIndex:
      case Expr::Kind::kRange:
        return "a subscript expression";
      case Expr::Kind::kBuiltin:
        return "the built-in function '" + e.name + "'";
      default:
        return e.paren ? "a parenthesized expression" : "this expression";
    }
  }

  // <lvalue-expr>, with an unparenthesized tuple at the top level.
  LValue ParseLValueTuple() {
    LValue first = ParseLValueItem();
    if (!Peek().IsPunct(",")) return first;
    LValue t;
    t.kind = LValue::Kind::kTuple;
    t.loc = first.loc;
    t.items.push_back(std::move(first));
    while (Peek().IsPunct(",")) {
      Next();
      t.items.push_back(ParseLValueItem());
    }
    return t;
  }

  LValue ParseLValueItem() {
    DepthGuard g(*this);
    const Token& t = Peek();
    LValue v;
    v.loc = LocOf(t);
    if (t.kind == Tok::kIdentifier) {
      v.name = Next().text;
      return v;
    }
    if (t.IsPunct("[")) {
      Next();
      v.kind = LValue::Kind::kArray;
      if (!Peek().IsPunct("]")) {
        v.items.push_back(ParseLValueItem());
        while (Peek().IsPunct(",")) {
          Next();
          v.items.push_back(ParseLValueItem());
        }
      }
      ExpectPunct("]", "3.2.1 <array-lvalue-expr>");
      return v;
    }
    if (t.IsPunct("(")) {
      Next();
      v.kind = LValue::Kind::kTuple;
      v.items.push_back(ParseLValueItem());
      while (Peek().IsPunct(",")) {
        Next();
        v.items.push_back(ParseLValueItem());
      }
      if (v.items.size() < 2) {
        FailAt(v.loc, "a parenthesized left-hand side must be a tuple of at least two items",
               "3.2.1 <tuple-lvalue-expr>");
      }
      ExpectPunct(")", "3.2.1 <tuple-lvalue-expr>");
      return v;
    }
    std::string extra = t.kind == Tok::kKeyword ? " (keywords are reserved, 3.1)" : "";
    Fail(t,
         "the left-hand side of an assignment must be an identifier, array or tuple of "
         "identifiers; found " +
             Describe(t) + extra,
         "3.2.1 <lvalue-expr>");
  }

  // ---- expressions ----
  ExprPtr NewExpr(Expr::Kind k, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = LocOf(at);
    return e;
  }
  ExprPtr NewExprAt(Expr::Kind k, Loc at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = at;
    return e;
  }

  ExprPtr Literal(const Token& t, bool negative) {
    auto e = NewExpr(Expr::Kind::kLiteral, t);
    if (negative) e->loc.column -= 1;
    if (t.kind == Tok::kString) {
      e->literal = ArgValue::String(t.text);
    } else if (t.kind == Tok::kLogical) {
      e->literal = ArgValue::Logical(t.text == "true");
    } else if (!t.is_real) {
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(t.text.c_str(), &end, 10);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) {
        Fail(t, "integer literal " + t.text + " is out of range (64-bit signed)",
             "3.1 <numeric-literal>");
      }
      auto i = static_cast<int64_t>(v);
      e->literal = ArgValue::Integer(negative ? -i : i);
    } else {
      double d = std::strtod(t.text.c_str(), nullptr);
      if (!std::isfinite(d)) {
        Fail(t, "numeric literal " + t.text + " is out of range", "3.1 <numeric-literal>");
      }
      e->literal = ArgValue::Scalar(negative ? -d : d, negative ? "-" + t.text : t.text);
    }
    return e;
  }

  ExprPtr ParseExpr() {
    DepthGuard g(*this);
    ExprPtr e = ParseIn();
    if (Peek().IsKeyword("if")) {
      auto n = NewExprAt(Expr::Kind::kIfElse, e->loc);
      Next();
      ExprPtr cond = ParseIn();
      ExpectKeyword("else", "3.2.3 <if-else-expr>");
      ExprPtr other = ParseExpr();
      n->items.push_back(std::move(e));
      n->items.push_back(std::move(cond));
      n->items.push_back(std::move(other));
      return n;
    }
    return e;
  }

  ExprPtr Binary(std::string op, ExprPtr l, ExprPtr r, Loc at) {
    auto n = NewExprAt(Expr::Kind::kBinary, at);
    n->name = std::move(op);
    n->items.push_back(std::move(l));
    n->items.push_back(std::move(r));
    return n;
  }

  // Precedence, lowest to highest (3.3.3): { in }, { &&, || }, { <, <=, >, >=, ==, != },
  // { +, - }, { *, / }, { ^ }; all left-associative except ^ (right-associative).
  ExprPtr ParseIn() {
    ExprPtr l = ParseLogic();
    while (Peek().IsKeyword("in")) {
      Loc at = LocOf(Next());
      l = Binary("in", std::move(l), ParseLogic(), at);
    }
    return l;
  }
  ExprPtr ParseLogic() {
    ExprPtr l = ParseCompare();
    while (Peek().IsPunct("&&") || Peek().IsPunct("||")) {
      const Token& op = Next();
      l = Binary(op.text, std::move(l), ParseCompare(), LocOf(op));
    }
    return l;
  }
  ExprPtr ParseCompare() {
    ExprPtr l = ParseAdditive();
    for (;;) {
      const Token& t = Peek();
      if (t.IsPunct("<") || t.IsPunct("<=") || t.IsPunct(">") || t.IsPunct(">=") ||
          t.IsPunct("==") || t.IsPunct("!=")) {
        const Token& op = Next();
        l = Binary(op.text, std::move(l), ParseAdditive(), LocOf(op));
      } else {
        return l;
      }
    }
  }
  ExprPtr ParseAdditive() {
    ExprPtr l = ParseMultiplicative();
    while (Peek().IsPunct("+") || Peek().IsPunct("-")) {
      const Token& op = Next();
      l = Binary(op.text, std::move(l), ParseMultiplicative(), LocOf(op));
    }
    return l;
  }
  ExprPtr ParseMultiplicative() {
    ExprPtr l = ParseUnary();
    while (Peek().IsPunct("*") || Peek().IsPunct("/")) {
      const Token& op = Next();
      l = Binary(op.text, std::move(l), ParseUnary(), LocOf(op));
    }
    return l;
  }
  // Unary operators bind looser than '^' on their right ('-x ^ 2' is '-(x ^ 2)'); the exponent
  // may itself carry a unary operator ('x ^ -2').
  ExprPtr ParseUnary() {
    DepthGuard g(*this);
    const Token& t = Peek();
    if (t.IsPunct("-") || t.IsPunct("+") || t.IsPunct("!")) {
      const Token& op = Next();
      ExprPtr operand = ParseUnary();
      if (op.text == "-" && operand->kind == Expr::Kind::kLiteral && !operand->paren &&
          (operand->literal.kind == ArgValue::Kind::kInteger ||
           operand->literal.kind == ArgValue::Kind::kScalar) &&
          operand->loc.line == op.line && operand->loc.column == op.column + 1) {
        // '-' immediately before a numeric literal: the literal's sign (flat syntax, 3.1).
        ArgValue& v = operand->literal;
        if (v.kind == ArgValue::Kind::kInteger) {
          v.i = -v.i;
        } else {
          v.s = -v.s;
          v.text = v.text.starts_with("-") ? v.text.substr(1) : "-" + v.text;
        }
        operand->loc = LocOf(op);
        return operand;
      }
      auto n = NewExpr(Expr::Kind::kUnary, op);
      n->name = op.text;
      n->items.push_back(std::move(operand));
      return n;
    }
    ExprPtr base = ParsePostfix();
    if (Peek().IsPunct("^")) {
      Loc at = LocOf(Next());
      return Binary("^", std::move(base), ParseUnary(), at);
    }
    return base;
  }

  ExprPtr ParsePostfix() {
    ExprPtr e = ParsePrimary();
    while (Peek().IsPunct("[")) {
      Loc at = LocOf(Next());
      if (Peek().IsPunct(":")) {
        Next();
        auto r = NewExprAt(Expr::Kind::kRange, at);
        r->items.push_back(std::move(e));
        r->items.push_back(nullptr);
        r->items.push_back(Peek().IsPunct("]") ? nullptr : ParseExpr());
        e = std::move(r);
      } else {
        ExprPtr first = ParseExpr();
        if (Peek().IsPunct(":")) {
          Next();
          auto r = NewExprAt(Expr::Kind::kRange, at);
          r->items.push_back(std::move(e));
          r->items.push_back(std::move(first));
          r->items.push_back(Peek().IsPunct("]") ? nullptr : ParseExpr());
          e = std::move(r);
        } else {
          auto x = NewExprAt(Expr::Kind::kIndex, at);
          x->items.push_back(std::move(e));
          x->items.push_back(std::move(first));
          e = std::move(x);
        }
      }
      ExpectPunct("]", "3.2.3 <subscript-expr>");
    }
    return e;
  }

  bool AtGenericInvocation() const {
    return Peek(1).IsPunct("<") && (IsTypeNameKeyword(Peek(2)) || Peek(2).IsPunct("?")) &&
           Peek(3).IsPunct(">") && Peek(4).IsPunct("(");
  }

  ExprPtr ParsePrimary() {
    DepthGuard g(*this);
    const Token& t = Peek();
    if (t.kind == Tok::kNumber || t.kind == Tok::kString || t.kind == Tok::kLogical) {
      return Literal(Next(), false);
    }
    if (t.kind == Tok::kIdentifier) {
      if (Peek(1).IsPunct("(") || AtGenericInvocation()) return ParseInvocation();
      auto e = NewExpr(Expr::Kind::kIdentifier, t);
      e->name = Next().text;
      return e;
    }
    if (IsBuiltinKeyword(t) && Peek(1).IsPunct("(")) {
      auto e = NewExpr(Expr::Kind::kBuiltin, t);
      e->name = Next().text;
      Next();  // (
      e->items.push_back(ParseExpr());
      if (Peek().IsPunct(",")) {
        Fail(Peek(), "built-in function '" + e->name + "' takes a single argument",
             "3.2.3 <builtin-expr>");
      }
      ExpectPunct(")", "3.2.3 <builtin-expr>");
      return e;
    }
    if (t.IsPunct("(")) {
      Token open = Next();
      ExprPtr first = ParseExpr();
      if (Peek().IsPunct(",")) {
        auto tup = NewExpr(Expr::Kind::kTuple, open);
        tup->items.push_back(std::move(first));
        while (Peek().IsPunct(",")) {
          Next();
          tup->items.push_back(ParseExpr());
        }
        ExpectPunct(")", "3.2.1 <tuple-rvalue-expr>");
        tup->paren = true;
        return tup;
      }
      ExpectPunct(")", "3.2.3 <paren-expr>");
      first->paren = true;
      return first;
    }
    if (t.IsPunct("[")) {
      Token open = Next();
      if (Peek().IsKeyword("for")) return ParseComprehension(open);
      auto arr = NewExpr(Expr::Kind::kArray, open);
      if (!Peek().IsPunct("]")) {
        arr->items.push_back(ParseExpr());
        while (Peek().IsPunct(",")) {
          Next();
          arr->items.push_back(ParseExpr());
        }
      }
      ExpectPunct("]", "3.2.1 <array-rvalue-expr>");
      return arr;
    }
    std::string extra =
        t.kind == Tok::kKeyword && !IsBuiltinKeyword(t) ? " (keywords are reserved, 3.1)" : "";
    Fail(t, "expected an expression, found " + Describe(t) + extra, "3.2.3 <rvalue-expr>");
  }

  ExprPtr ParseComprehension(const Token& open) {
    auto e = NewExpr(Expr::Kind::kComprehension, open);
    Next();  // for
    for (;;) {
      LoopIter it;
      it.loc = LocOf(Peek());
      it.name = ExpectIdentifier("a loop variable", "3.2.3 <loop-iter>");
      ExpectKeyword("in", "3.2.3 <loop-iter>");
      // The iterated expression stops before 'if' (the comprehension's condition) and ','.
      it.range = ParseLogic();
      e->iters.push_back(std::move(it));
      if (!Peek().IsPunct(",")) break;
      Next();
    }
    if (Peek().IsKeyword("if")) {
      Next();
      e->items.push_back(ParseExpr());
    } else {
      e->items.push_back(nullptr);
    }
    ExpectKeyword("yield", "3.2.3 <comprehension-expr>");
    e->items.push_back(ParseExpr());
    ExpectPunct("]", "3.2.3 <comprehension-expr>");
    return e;
  }

  ExprPtr ParseInvocation() {
    auto e = NewExpr(Expr::Kind::kInvocation, Peek());
    e->name = Next().text;
    if (Peek().IsPunct("<")) {
      Next();
      e->type_arg = PrimOfKeyword(Next().text);
      Next();  // >
    }
    ExpectPunct("(", "3.2.1 <invocation>");
    if (Peek().IsPunct(")")) {
      Fail(Peek(), "an invocation needs at least one argument",
           "3.2.1 <argument-list> ::= <argument> (\",\" <argument>)*");
    }
    for (;;) {
      Argument a;
      a.loc = LocOf(Peek());
      if (Peek().kind == Tok::kIdentifier && Peek(1).IsPunct("=")) {
        a.name = Next().text;
        Next();  // =
      }
      a.value = ParseExpr();
      e->args.push_back(std::move(a));
      if (!Peek().IsPunct(",")) break;
      Next();
    }
    ExpectPunct(")", "3.2.1 <invocation>");
    return e;
  }

  std::vector<Token> toks_;
  std::string file_;
  bool strict_ = false;  // the pure 1.0.2 grammar (no commas between extension names)
  size_t pos_ = 0;
  int depth_ = 0;
  bool fragments_ = false;
  bool expressions_ = false;
};

}  // namespace

Document ParseSyntax(std::string_view text, const std::string& file, bool strict) {
  return Parser(text, file, strict).Document_();
}

Document ParseLibrary(std::string_view text, const std::string& file) {
  return Parser(text, file).Library();
}

}  // namespace nnref::nnef
