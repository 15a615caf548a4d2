#include "runner/nnef/check.h"

#include <algorithm>
#include <set>

#include "runner/nnef/check_types.h"

namespace nnref::nnef {

namespace {

class Checker {
 public:
  Checker(Document& doc, const FragmentTable& standard, FragmentTable* table,
          std::vector<std::string>* warnings)
      : doc_(doc), table_(*table), warnings_(warnings) {
    table_ = standard;
  }

  void Run() {
    // Declarations first (all names visible to all bodies: fragments may call later ones and
    // themselves).
    for (const auto& f : doc_.fragments) {
      file_ = &f->file;
      if (table_.count(f->name)) {
        const Fragment* prev = table_.at(f->name);
        Fail(f->loc,
             "fragment '" + f->name + "' is already declared" +
                 (prev->standard ? " (a standard operation)" : ""),
             "3.3.2 Declarations: each fragment declaration must have a unique name");
      }
      CheckDeclaration(*f);
      table_[f->name] = f.get();
    }
    for (const auto& f : doc_.fragments) {
      if (!f->has_body) continue;
      file_ = &f->file;
      CheckFragmentBody(*f);
    }
    if (doc_.graph) {
      file_ = &doc_.file;
      CheckGraph(*doc_.graph);
    }
  }

 private:
  [[noreturn]] void Fail(Loc l, const std::string& msg, const std::string& rule) const {
    throw NnefError(Stage::kValidate, SourcePos{*file_, l.line, l.column}, msg, rule);
  }
  void Warn(Loc l, const std::string& msg) {
    if (warnings_) {
      warnings_->push_back(*file_ + ":" + std::to_string(l.line) + ":" + std::to_string(l.column) +
                           ": warning: " + msg);
    }
  }

  // ---- types of literal values (default values) ----
  Type TypeOfValue(const ArgValue& v, Loc l) {
    switch (v.kind) {
      case ArgValue::Kind::kInteger:
        return Type::Primitive(Prim::kInteger);
      case ArgValue::Kind::kScalar:
        return Type::Primitive(Prim::kScalar);
      case ArgValue::Kind::kLogical:
        return Type::Primitive(Prim::kLogical);
      case ArgValue::Kind::kString:
        return Type::Primitive(Prim::kString);
      case ArgValue::Kind::kTuple: {
        std::vector<Type> items;
        for (const ArgValue& i : v.items) items.push_back(TypeOfValue(i, l));
        return Type::Tuple(std::move(items));
      }
      case ArgValue::Kind::kArray: {
        if (v.items.empty()) return Type::Empty();
        Type common = TypeOfValue(v.items[0], l);
        for (size_t i = 1; i < v.items.size(); ++i) {
          Type t = TypeOfValue(v.items[i], l);
          auto c = CommonType(common, t);
          if (!c) {
            Fail(l,
                 "array items of types " + common.ToString() + " and " + t.ToString() +
                     " have no common type",
                 "3.3.3 Arrays: items must have a common type");
          }
          common = *c;
        }
        return common.kind == Type::Kind::kEmpty ? Type::Array(Type::Empty()) : Type::Array(common);
      }
      default:
        return Type::Primitive(Prim::kNone);
    }
  }

  // ---- declarations (3.3.2 Declarations) ----
  void CheckDeclaration(Fragment& f) {
    std::set<std::string> names;
    bool seen_attribute = false;
    bool uses_generic = false;
    for (Param& p : f.params) {
      if (!names.insert(p.name).second) {
        Fail(p.loc, "parameter name '" + p.name + "' is used twice in fragment '" + f.name + "'",
             "3.3.2 Declarations: formal parameter and result names must be unique");
      }
      CheckTypeSpec(p.type, p.loc);
      bool is_tensor = p.type.ContainsTensor();
      if (is_tensor && seen_attribute) {
        Fail(p.loc,
             "tensor parameter '" + p.name + "' follows an attribute parameter in fragment '" +
                 f.name + "'",
             "3.3.2 Declarations: parameters of tensor type must precede attributes");
      }
      if (!is_tensor) seen_attribute = true;
      uses_generic = uses_generic || p.type.ContainsGeneric();
      if (p.default_value) {
        p.default_type = TypeOfValue(*p.default_value, p.loc);
        if (!CastableDecl(p.default_type, p.type)) {
          Fail(p.loc,
               "default value " + p.default_value->ToString() + " of type " +
                   p.default_type.ToString() + " does not match parameter '" + p.name +
                   "' of type " + p.type.ToString(),
               "3.3.2 Declarations: the default value type must match the parameter type");
        }
      }
    }
    for (Param& r : f.results) {
      if (!names.insert(r.name).second) {
        Fail(r.loc, "result name '" + r.name + "' is used twice in fragment '" + f.name + "'",
             "3.3.2 Declarations: formal parameter and result names must be unique");
      }
      CheckTypeSpec(r.type, r.loc);
      if (!IsTensorOnly(r.type)) {
        Fail(r.loc,
             "result '" + r.name + "' of fragment '" + f.name + "' has non-tensor type " +
                 r.type.ToString(),
             "3.3.2 Declarations: fragment results must be all tensors");
      }
      if (ContainsUnbound(r.type)) {
        Fail(r.loc, "result '" + r.name + "' has the unbound type tensor<>",
             "3.3.1: unbound tensors cannot be the result of an operation");
      }
      uses_generic = uses_generic || r.type.ContainsGeneric();
    }
    if (f.generic && !uses_generic) {
      Fail(f.loc,
           "fragment '" + f.name +
               "' is declared generic but has no generic parameter or "
               "result type",
           "3.3.2 Declarations: a generic fragment must have a generic parameter or result");
    }
    if (!f.generic && uses_generic) {
      Fail(f.loc,
           "fragment '" + f.name +
               "' uses the generic type '?' but is not declared "
               "generic ('fragment " +
               f.name + "<?>(...)')",
           "3.3.2 Declarations: a fragment with a generic parameter or result must be declared "
           "generic");
    }
  }

  static bool ContainsUnbound(const Type& t) {
    if (t.kind == Type::Kind::kTensor) return t.prim == Prim::kNone;
    return std::any_of(t.items.begin(), t.items.end(), ContainsUnbound);
  }

  void CheckTypeSpec(const Type& t, Loc l) {
    if (const Type* m = MixedTuple(t)) {
      Fail(l, "tuple type " + m->ToString() + " mixes tensor and non-tensor items",
           "3.3.1: tuples must not contain both tensor and non-tensor item types");
    }
  }

  // ---- scopes ----
  struct Scope {
    const Fragment* fragment = nullptr;             // null: the graph body
    std::map<std::string, Type, std::less<>> vars;  // parameters, assigned locals and results
    std::set<std::string, std::less<>> params;
    std::map<std::string, const Param*, std::less<>> results;
    std::set<std::string, std::less<>> assigned;
    std::vector<std::map<std::string, Type, std::less<>>> loops;  // comprehension variables
  };

  void CheckFragmentBody(Fragment& f) {
    Scope s;
    s.fragment = &f;
    for (const Param& p : f.params) {
      s.vars[p.name] = p.type;
      s.params.insert(p.name);
    }
    for (const Param& r : f.results) s.results[r.name] = &r;
    scope_ = &s;
    for (Assignment& a : f.body) CheckAssignment(a);
    for (const Param& r : f.results) {
      if (!s.assigned.count(r.name)) {
        Fail(f.loc, "result '" + r.name + "' of fragment '" + f.name + "' is never assigned",
             "3.3.2 Identifier usage: results of a fragment must be assigned exactly once");
      }
    }
    scope_ = nullptr;
  }

  void CheckGraph(GraphDef& g) {
    Scope s;
    scope_ = &s;
    std::set<std::string> params;
    for (const auto& [name, loc] : g.params) {
      if (!params.insert(name).second) {
        Fail(loc, "graph parameter '" + name + "' is listed twice",
             "3.3.2 Identifier usage: one-to-one mapping between graph parameters and "
             "external tensors");
      }
    }
    std::set<std::string> externals;
    for (Assignment& a : g.body) {
      // 3.3.2: graph parameters are defined by 'external' (directly, one identifier), and every
      // external result is a graph parameter.
      bool direct_external =
          a.rhs->kind == Expr::Kind::kInvocation && ParseNnefOp(a.rhs->name) == NnefOp::kExternal;
      if (direct_external) {
        if (a.lhs.kind != LValue::Kind::kIdentifier || !params.count(a.lhs.name)) {
          Fail(a.lhs.loc,
               "the result of 'external' must be a graph parameter (listed in 'graph " + g.name +
                   "(...)')",
               "3.3.2 Identifier usage: all tensors that are results of external operations "
               "must be defined as graph parameters");
        }
        externals.insert(a.lhs.name);
      } else {
        if (const Expr* e = FindInvocation(*a.rhs, NnefOp::kExternal)) {
          Fail(e->loc,
               "'external' must be the whole right-hand side of a graph parameter's "
               "assignment",
               "3.3.2 Identifier usage: all tensors that are results of external operations "
               "must be defined as graph parameters");
        }
        ForEachLhsName(a.lhs, [&](const LValue& v) {
          if (params.count(v.name)) {
            Fail(v.loc, "graph parameter '" + v.name + "' must be defined by 'external'",
                 "3.3.2 Identifier usage: parameters of a graph must be defined as the result "
                 "of an external operation");
          }
        });
      }
      CheckAssignment(a);
    }
    for (const auto& [name, loc] : g.params) {
      if (!externals.count(name)) {
        Fail(loc, "graph parameter '" + name + "' is not defined by an 'external' operation",
             "3.3.2 Identifier usage: parameters of a graph must be defined as the result of "
             "an external operation");
      }
    }
    for (const auto& [name, loc] : g.results) {
      if (!s.vars.count(name)) {
        Fail(loc, "graph result '" + name + "' is never assigned in the graph body",
             "3.3.2 Identifier usage: identifiers must be assigned before they are used");
      }
    }
    scope_ = nullptr;
  }

  // The first invocation of `op` in `e` (names not yet resolved: the standard operations cannot
  // be redefined, so the name decides).
  static const Expr* FindInvocation(const Expr& e, NnefOp op) {
    if (e.kind == Expr::Kind::kInvocation && ParseNnefOp(e.name) == op) return &e;
    for (const ExprPtr& i : e.items) {
      if (i) {
        if (const Expr* r = FindInvocation(*i, op)) return r;
      }
    }
    for (const LoopIter& it : e.iters) {
      if (const Expr* r = FindInvocation(*it.range, op)) return r;
    }
    for (const Argument& a : e.args) {
      if (const Expr* r = FindInvocation(*a.value, op)) return r;
    }
    return nullptr;
  }

  template <typename F>
  static void ForEachLhsName(const LValue& v, const F& f) {
    if (v.kind == LValue::Kind::kIdentifier) {
      f(v);
      return;
    }
    for (const LValue& i : v.items) ForEachLhsName(i, f);
  }

  // ---- assignments ----
  void CheckAssignment(Assignment& a) {
    bool invocation = a.rhs->kind == Expr::Kind::kInvocation && !a.rhs->paren;
    Type t = CheckExpr(*a.rhs, /*top=*/true);
    if (invocation) CheckStructure(a.lhs, t, *a.rhs);
    Bind(a.lhs, t);
  }

  // 3.3.2 Assignments: with an invocation on the right, the left-hand side must be structurally
  // equivalent to the result type.
  void CheckStructure(const LValue& v, const Type& t, const Expr& call) {
    bool ok = true;
    switch (v.kind) {
      case LValue::Kind::kIdentifier:
        ok = t.kind != Type::Kind::kArray && t.kind != Type::Kind::kTuple;
        break;
      case LValue::Kind::kArray:
        ok = t.kind == Type::Kind::kArray;
        if (ok) {
          for (const LValue& i : v.items) CheckStructure(i, t.items[0], call);
        }
        break;
      case LValue::Kind::kTuple:
        ok = t.kind == Type::Kind::kTuple && t.items.size() == v.items.size();
        if (ok) {
          for (size_t i = 0; i < v.items.size(); ++i) CheckStructure(v.items[i], t.items[i], call);
        }
        break;
    }
    if (!ok) {
      Fail(v.loc,
           "the left-hand side is not structurally equivalent to the result type " + t.ToString() +
               " of '" + call.name + "'" +
               (t.kind == Type::Kind::kArray ? " (use an array of identifiers, [a, b, ...])" : ""),
           "3.3.2 Assignments: the left-hand side must be structurally equivalent to the result "
           "type of the invoked operation");
    }
  }

  void Bind(const LValue& v, const Type& t) {
    Scope& s = *scope_;
    switch (v.kind) {
      case LValue::Kind::kIdentifier: {
        if (s.params.count(v.name)) {
          Fail(v.loc,
               "parameter '" + v.name + "' is assigned in the body of fragment '" +
                   s.fragment->name + "'",
               "3.3.2 Identifier usage: parameters of a fragment must not appear on the "
               "left-hand side of an assignment");
        }
        if (s.assigned.count(v.name)) {
          Fail(v.loc, "identifier '" + v.name + "' is assigned more than once",
               "3.3.2 Identifier usage: the same identifier must not be used on the left-hand "
               "side of assignments more than once");
        }
        if (!s.fragment && t.kind != Type::Kind::kTensor) {
          Fail(v.loc,
               "graph identifier '" + v.name + "' would have type " + t.ToString() +
                   "; identifiers in the graph body must be tensors",
               "3.3.2 Identifier usage: all individual identifiers in the graph body must be of "
               "type tensor");
        }
        auto r = s.results.find(v.name);
        if (r != s.results.end()) {
          if (!Castable(t, r->second->type)) {
            Fail(v.loc,
                 "result '" + v.name + "' of type " + r->second->type.ToString() +
                     " is assigned a value of type " + t.ToString(),
                 "3.3.1: an expression assigned to a result must be castable to its type");
          }
          s.vars[v.name] = r->second->type;
        } else {
          s.vars[v.name] = t;
        }
        s.assigned.insert(v.name);
        return;
      }
      case LValue::Kind::kArray:
        if (t.kind == Type::Kind::kEmpty && v.items.empty()) return;
        if (t.kind != Type::Kind::kArray) {
          Fail(v.loc, "an array left-hand side needs an array value, not " + t.ToString(),
               "3.3.2 Assignments");
        }
        for (const LValue& i : v.items) Bind(i, t.items[0]);
        return;
      case LValue::Kind::kTuple:
        if (t.kind != Type::Kind::kTuple || t.items.size() != v.items.size()) {
          Fail(v.loc,
               "a tuple left-hand side of " + std::to_string(v.items.size()) +
                   " items needs a tuple value of as many items, not " + t.ToString(),
               "3.3.3 Tuples: the tuple on the left must have the same number of items");
        }
        for (size_t i = 0; i < v.items.size(); ++i) Bind(v.items[i], t.items[i]);
        return;
    }
  }

  // ---- expressions ----
  const Type* Lookup(std::string_view name) const {
    const Scope& s = *scope_;
    for (auto it = s.loops.rbegin(); it != s.loops.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    auto f = s.vars.find(name);
    return f == s.vars.end() ? nullptr : &f->second;
  }

  Type CheckExpr(Expr& e, bool top = false) {
    e.type = CheckExprInner(e, top);
    return e.type;
  }

  Type CheckExprInner(Expr& e, bool top) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return TypeOfValue(e.literal, e.loc);
      case Expr::Kind::kIdentifier: {
        const Type* t = Lookup(e.name);
        if (!t) {
          bool is_result = scope_->results.count(e.name) > 0;
          Fail(e.loc,
               is_result ? "result '" + e.name + "' is used before it is assigned"
                         : "undefined identifier '" + e.name + "'",
               "3.3.2 Identifier usage: identifiers must first appear on the left-hand side of "
               "an assignment before they are used");
        }
        return *t;
      }
      case Expr::Kind::kArray: {
        if (e.items.empty()) return Type::Empty();
        Type common = CheckExpr(*e.items[0]);
        for (size_t i = 1; i < e.items.size(); ++i) {
          Type t = CheckExpr(*e.items[i]);
          auto c = CommonType(common, t);
          if (!c) {
            Fail(e.items[i]->loc,
                 "array item of type " + t.ToString() + " has no common type with " +
                     common.ToString(),
                 "3.3.3 Arrays: items must be of the same type or castable to a common type");
          }
          common = *c;
        }
        return Type::Array(common);
      }
      case Expr::Kind::kTuple: {
        std::vector<Type> items;
        for (ExprPtr& i : e.items) items.push_back(CheckExpr(*i));
        Type t = Type::Tuple(std::move(items));
        CheckTypeSpec(t, e.loc);
        return t;
      }
      case Expr::Kind::kUnary:
        return CheckUnary(e);
      case Expr::Kind::kBinary:
        return CheckBinary(e);
      case Expr::Kind::kIfElse: {
        Type c = CheckExpr(*e.items[1]);
        if (!c.is_prim(Prim::kLogical)) {
          Fail(e.items[1]->loc, "the if-else condition has type " + c.ToString() + ", not logical",
               "3.3.3 Compile-time branching: the condition must be of type logical");
        }
        Type a = CheckExpr(*e.items[0]);
        Type b = CheckExpr(*e.items[2]);
        auto common = CommonType(a, b);
        if (!common) {
          Fail(e.loc,
               "the if-else branches have types " + a.ToString() + " and " + b.ToString() +
                   " with no common type",
               "3.3.1 Type casting: the branches need a common type");
        }
        return *common;
      }
      case Expr::Kind::kComprehension:
        return CheckComprehension(e);
      case Expr::Kind::kIndex:
        return CheckIndex(e);
      case Expr::Kind::kRange: {
        Type obj = CheckExpr(*e.items[0]);
        for (int i = 1; i <= 2; ++i) {
          if (!e.items[static_cast<size_t>(i)]) continue;
          Type t = CheckExpr(*e.items[static_cast<size_t>(i)]);
          if (!t.is_prim(Prim::kInteger)) {
            Fail(e.items[static_cast<size_t>(i)]->loc,
                 "a range bound must be an integer, not " + t.ToString(),
                 "3.3.3 Arrays: ranges are two expressions of type integer");
          }
        }
        if (obj.kind == Type::Kind::kTuple) {
          Fail(e.loc, "a tuple cannot be subscripted with a range",
               "3.3.3 Tuples: subscripts must be integer literals; ranges are forbidden");
        }
        if (!IsArrayLike(obj) && !obj.is_prim(Prim::kString)) {
          Fail(e.loc, "a value of type " + obj.ToString() + " cannot be subscripted",
               "3.3.3: only arrays, tuples and strings can be subscripted");
        }
        return obj;
      }
      case Expr::Kind::kBuiltin:
        return CheckBuiltin(e);
      case Expr::Kind::kInvocation: {
        Type t = CheckInvocation(e);
        if (!top && t.kind != Type::Kind::kTensor) {
          Fail(e.loc,
               "'" + e.name + "' returns " + t.ToString() +
                   "; only operations returning a single tensor can be chained inside an "
                   "expression",
               "3.3.3 Invocation chaining: chaining is only allowed if the operation returns a "
               "single tensor");
        }
        return t;
      }
    }
    return Type::Primitive(Prim::kNone);
  }

  Type CheckUnary(Expr& e) {
    Type t = CheckExpr(*e.items[0]);
    if (t.kind == Type::Kind::kTensor) {
      return CheckOperatorCall(e, OperatorFragment(e.name, true), {t}, {e.items[0]->loc});
    }
    if ((e.name == "-" || e.name == "+") && IsNumeric(t)) return t;
    if (e.name == "!" && t.is_prim(Prim::kLogical)) return t;
    Fail(e.loc, "operator '" + e.name + "' is not applicable to " + t.ToString(),
         "3.3.3 Built-in operators (table 1)");
  }

  Type CheckBinary(Expr& e) {
    Type a = CheckExpr(*e.items[0]);
    Type b = CheckExpr(*e.items[1]);
    const std::string& op = e.name;
    if (a.kind == Type::Kind::kTensor || b.kind == Type::Kind::kTensor) {
      const char* frag = OperatorFragment(op, false);
      if (!frag) {
        Fail(e.loc, "operator '" + op + "' is not applicable to tensors",
             "3.3.3 Built-in operators (table 1)");
      }
      return CheckOperatorCall(e, frag, {a, b}, {e.items[0]->loc, e.items[1]->loc});
    }
    auto bad = [&]() -> Type {
      Fail(e.loc,
           "operator '" + op + "' is not applicable to " + a.ToString() + " and " + b.ToString(),
           "3.3.3 Built-in operators (table 1): arithmetic on scalar or integer (not mixed), "
           "comparison of equal types, logical on logical");
    };
    if (op == "+" || op == "-" || op == "*" || op == "/" || op == "^") {
      if (IsNumeric(a) && a == b) return a;
      if (op == "+" && a.is_prim(Prim::kString) && b.is_prim(Prim::kString)) return a;
      if (op == "+" && IsArrayLike(a) && IsArrayLike(b)) {
        auto c = CommonType(a, b);
        if (!c) {
          Fail(e.loc, "cannot concatenate arrays of types " + a.ToString() + " and " + b.ToString(),
               "3.3.3 Arrays: items must have a common type");
        }
        return *c;
      }
      if (op == "*" && (IsArrayLike(a) || a.is_prim(Prim::kString)) && b.is_prim(Prim::kInteger)) {
        return a;
      }
      return bad();
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      if (IsNumeric(a) && a == b) return Type::Primitive(Prim::kLogical);
      return bad();
    }
    if (op == "==" || op == "!=") {
      if (a == b || (CommonType(a, b) && a.kind != Type::Kind::kPrim)) {
        return Type::Primitive(Prim::kLogical);
      }
      return bad();
    }
    if (op == "&&" || op == "||") {
      if (a.is_prim(Prim::kLogical) && b.is_prim(Prim::kLogical)) return a;
      return bad();
    }
    // in
    if (b.kind == Type::Kind::kEmpty) return Type::Primitive(Prim::kLogical);
    if (b.kind == Type::Kind::kArray && CommonType(a, b.items[0])) {
      return Type::Primitive(Prim::kLogical);
    }
    Fail(e.loc,
         "operator 'in' needs an item and an array of its type, not " + a.ToString() + " and " +
             b.ToString(),
         "3.3.3 Arrays: the in operator tests whether an item is contained in an array");
  }

  Type CheckComprehension(Expr& e) {
    std::map<std::string, Type, std::less<>> vars;
    for (LoopIter& it : e.iters) {
      Type t = CheckExpr(*it.range);
      if (!IsArrayLike(t)) {
        Fail(it.range->loc,
             "loop iterator '" + it.name + "' iterates " + t.ToString() + ", not an array",
             "3.3.3 Compile-time looping: iterated expressions must be arrays");
      }
      if (vars.count(it.name)) {
        Fail(it.loc, "loop variable '" + it.name + "' is declared twice",
             "3.3.3 Compile-time looping");
      }
      vars[it.name] = t.kind == Type::Kind::kEmpty ? Type::Empty() : t.items[0];
    }
    scope_->loops.push_back(std::move(vars));
    if (e.items[0]) {
      Type c = CheckExpr(*e.items[0]);
      if (!c.is_prim(Prim::kLogical)) {
        Fail(e.items[0]->loc,
             "the comprehension condition has type " + c.ToString() + ", not logical",
             "3.3.3 Compile-time looping: the condition must be logical");
      }
    }
    Type y = CheckExpr(*e.items[1]);
    scope_->loops.pop_back();
    return Type::Array(y);
  }

  Type CheckIndex(Expr& e) {
    Type obj = CheckExpr(*e.items[0]);
    Expr& idx = *e.items[1];
    Type it = CheckExpr(idx);
    if (!it.is_prim(Prim::kInteger)) {
      Fail(idx.loc, "a subscript must be an integer, not " + it.ToString(),
           "3.3.3 Arrays: a single subscript is an expression of type integer");
    }
    if (obj.kind == Type::Kind::kTuple) {
      if (idx.kind != Expr::Kind::kLiteral) {
        Fail(idx.loc, "a tuple subscript must be an integer literal",
             "3.3.3 Tuples: subscripts must be integer literals");
      }
      int64_t i = idx.literal.i;
      if (i < 0 || i >= static_cast<int64_t>(obj.items.size())) {
        Fail(idx.loc,
             "tuple subscript " + std::to_string(i) + " is out of range for " + obj.ToString(),
             "3.3.3 Tuples");
      }
      return obj.items[static_cast<size_t>(i)];
    }
    if (obj.kind == Type::Kind::kArray) return obj.items[0];
    if (obj.is_prim(Prim::kString)) return obj;
    if (obj.kind == Type::Kind::kEmpty) {
      Fail(e.loc, "subscript of the empty array []", "3.3.3 Arrays: index out of range");
    }
    Fail(e.loc, "a value of type " + obj.ToString() + " cannot be subscripted",
         "3.3.3: only arrays, tuples and strings can be subscripted");
  }

  Type CheckBuiltin(Expr& e) {
    Type t = CheckExpr(*e.items[0]);
    const std::string& f = e.name;
    const char* rule = "3.3.3 Built-in functions";
    if (f == "shape_of") {
      Warn(e.loc, "shape_of is deprecated (3.3.3)");
      if (t.kind != Type::Kind::kTensor && t.kind != Type::Kind::kPrim) {
        Fail(e.loc, "shape_of needs a tensor, not " + t.ToString(), rule);
      }
      return Type::Array(Type::Primitive(Prim::kInteger));
    }
    if (f == "length_of" || f == "range_of") {
      if (!IsArrayLike(t) && !t.is_prim(Prim::kString)) {
        Fail(e.loc, f + " needs an array or a string, not " + t.ToString(), rule);
      }
      return f == "length_of" ? Type::Primitive(Prim::kInteger)
                              : Type::Array(Type::Primitive(Prim::kInteger));
    }
    // Type casts between primitive types.
    if (t.kind != Type::Kind::kPrim || t.prim == Prim::kNone ||
        (t.prim == Prim::kGeneric && f != "string")) {
      Fail(e.loc, "'" + f + "(...)' cannot convert a value of type " + t.ToString(), rule);
    }
    if (f == "integer") return Type::Primitive(Prim::kInteger);
    if (f == "scalar") return Type::Primitive(Prim::kScalar);
    if (f == "logical") return Type::Primitive(Prim::kLogical);
    return Type::Primitive(Prim::kString);
  }

  // ---- invocations (3.3.2 Invocations) ----
  const Fragment* Resolve(const std::string& name, Loc l) {
    auto it = table_.find(name);
    if (it == table_.end()) {
      Fail(l, "undefined operation '" + name + "'",
           "3.3.2 Invocations: the operation name must correspond to a declared operation");
    }
    const Fragment* f = it->second;
    if (scope_->fragment && f->standard &&
        (f->id == NnefOp::kExternal || f->id == NnefOp::kVariable || f->id == NnefOp::kUpdate)) {
      Fail(l, "'" + name + "' is used inside fragment '" + scope_->fragment->name + "'",
           f->id == NnefOp::kExternal
               ? "3.3.2 Identifier usage: the external operation must not be used in a fragment"
               : "3.3.2 Identifier usage: the variable and update operations must not be used "
                 "inside a fragment");
    }
    return f;
  }

  // An operator applied to tensors maps to its fragment (table 1), type checked as an invocation
  // with positional arguments.
  Type CheckOperatorCall(Expr& e, const char* frag, std::vector<Type> args, std::vector<Loc> locs) {
    const Fragment* f = Resolve(frag, e.loc);
    std::vector<int> param(args.size());
    for (size_t i = 0; i < args.size(); ++i) param[i] = static_cast<int>(i);
    e.callee = f;
    return CallType(e, *f, std::nullopt, args, param, locs, &e.binding);
  }

  Type CheckInvocation(Expr& e) {
    const Fragment* f = Resolve(e.name, e.loc);
    const char* rule_struct = "3.3.2 Invocations";
    if (e.type_arg) {
      if (!f->generic) {
        Fail(e.loc, "'" + e.name + "' is not generic; it takes no <type> argument",
             "3.3.2 Invocations: generic fragments may be called with an explicit type");
      }
      if (*e.type_arg == Prim::kGeneric && (!scope_->fragment || !scope_->fragment->generic)) {
        Fail(e.loc, "'" + e.name + "<?>' is only allowed inside a generic fragment",
             "3.3.2 Invocations: name<?> propagates the generic type inside a generic fragment");
      }
    }
    e.arg_param.assign(e.args.size(), -1);
    std::vector<bool> assigned(f->params.size(), false);
    size_t positional = 0;
    bool seen_named = false;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Argument& a = e.args[i];
      if (a.name.empty()) {
        if (seen_named) {
          Fail(a.loc, "positional argument after a named argument in '" + e.name + "'",
               "3.3.2 Invocations: positional arguments must precede named arguments");
        }
        if (positional >= f->params.size()) {
          Fail(a.loc,
               "too many arguments to '" + e.name + "' (it has " +
                   std::to_string(f->params.size()) +
                   (f->params.size() == 1 ? " parameter)" : " parameters)"),
               "3.3.2 Invocations: an invocation must not have more arguments than formal "
               "parameters");
        }
        const Param& p = f->params[positional];
        if (!p.type.ContainsTensor()) {
          Fail(a.loc,
               "attribute '" + p.name + "' of '" + e.name + "' must be passed by name (" + p.name +
                   " = ...)",
               "3.3.2 Invocations: only tensor arguments may be positional, attribute values "
               "must be named arguments");
        }
        e.arg_param[i] = static_cast<int>(positional);
        assigned[positional] = true;
        ++positional;
      } else {
        seen_named = true;
        int idx = -1;
        for (size_t k = 0; k < f->params.size(); ++k) {
          if (f->params[k].name == a.name) idx = static_cast<int>(k);
        }
        if (idx < 0) {
          Fail(a.loc, "'" + e.name + "' has no parameter named '" + a.name + "'",
               "3.3.2 Invocations: each named argument must correspond to a formal parameter");
        }
        if (assigned[static_cast<size_t>(idx)]) {
          bool by_position = static_cast<size_t>(idx) < positional;
          Fail(a.loc,
               by_position ? "parameter '" + a.name + "' of '" + e.name +
                                 "' is already assigned by a positional argument"
                           : "parameter '" + a.name + "' is named twice",
               by_position ? "3.3.2 Invocations: a named argument must not refer to a formal "
                             "parameter that is also assigned by a positional argument"
                           : "3.3.2 Invocations: named arguments must be unique");
        }
        if (f->params[static_cast<size_t>(idx)].type.ContainsTensor()) {
          Warn(a.loc, "tensor argument '" + a.name + "' of '" + e.name +
                          "' is passed by name (deprecated, 3.3.2)");
        }
        e.arg_param[i] = idx;
        assigned[static_cast<size_t>(idx)] = true;
      }
    }
    for (size_t k = 0; k < f->params.size(); ++k) {
      if (!assigned[k] && !f->params[k].default_value) {
        Fail(e.loc, "'" + e.name + "' needs a value for parameter '" + f->params[k].name + "'",
             "3.3.2 Invocations: each formal parameter without a default value must be "
             "assigned");
      }
    }
    (void)rule_struct;
    std::vector<Type> types;
    std::vector<Loc> locs;
    for (Argument& a : e.args) {
      types.push_back(CheckExpr(*a.value));
      locs.push_back(a.loc);
    }
    e.callee = f;
    return CallType(e, *f, e.type_arg, types, e.arg_param, locs, &e.binding);
  }

  // Resolves the generic binding and checks argument types; returns the result type.
  Type CallType(const Expr& e, const Fragment& f, std::optional<Prim> explicit_type,
                const std::vector<Type>& args, const std::vector<int>& param,
                const std::vector<Loc>& locs, Prim* binding_out) {
    Prim binding = Prim::kNone;
    if (f.generic) {
      if (explicit_type) {
        binding = *explicit_type;
      } else if (f.generic_default) {
        binding = *f.generic_default;
      } else {
        std::set<Prim> cands;
        for (size_t i = 0; i < args.size(); ++i) {
          Deduce(f.params[static_cast<size_t>(param[i])].type, args[i], &cands);
        }
        if (cands.empty()) {
          std::vector<bool> given(f.params.size(), false);
          for (int p : param) given[static_cast<size_t>(p)] = true;
          for (size_t k = 0; k < f.params.size(); ++k) {
            if (!given[k] && f.params[k].default_value) {
              Deduce(f.params[k].type, f.params[k].default_type, &cands);
            }
          }
        }
        if (cands.size() != 1) {
          std::string list;
          for (Prim p : cands) list += (list.empty() ? "" : ", ") + std::string(PrimName(p));
          Fail(
              e.loc,
              cands.empty()
                  ? "cannot deduce the generic type of '" + f.name +
                        "' from its arguments (give it explicitly: " + f.name + "<scalar>(...))"
                  : "the generic type of '" + f.name + "' is ambiguous: the arguments give " + list,
              "3.3.2 Invocations: the deduction of the generic type must result in a unique "
              "value");
        }
        binding = *cands.begin();
      }
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const Param& p = f.params[static_cast<size_t>(param[i])];
      Type want = Substitute(p.type, binding);
      if (!Castable(args[i], want)) {
        std::string hint;
        if (f.generic && !explicit_type && f.generic_default && p.type.ContainsGeneric()) {
          hint = " (the generic type defaults to " + std::string(PrimName(*f.generic_default)) +
                 "; write " + f.name + "<...>(...) for another)";
        }
        Fail(locs[i],
             "argument '" + p.name + "' of '" + f.name + "' has type " + args[i].ToString() +
                 ", which cannot be cast to " + want.ToString() + hint,
             "3.3.1 Type casting: an argument must be equal or castable to the parameter type");
      }
    }
    // Defaults substituted for parameters not given must fit the binding too.
    std::vector<bool> given(f.params.size(), false);
    for (int p : param) given[static_cast<size_t>(p)] = true;
    for (size_t k = 0; k < f.params.size(); ++k) {
      const Param& p = f.params[k];
      if (given[k] || !p.default_value) continue;
      Type want = Substitute(p.type, binding);
      if (!Castable(p.default_type, want)) {
        Fail(e.loc,
             "the default value of parameter '" + p.name + "' of '" + f.name + "' (" +
                 p.default_type.ToString() + ") does not fit its type " + want.ToString() +
                 " here; pass it explicitly",
             "3.3.1 Type casting");
      }
    }
    *binding_out = binding;
    if (f.results.size() == 1) return Substitute(f.results[0].type, binding);
    std::vector<Type> rs;
    for (const Param& r : f.results) rs.push_back(Substitute(r.type, binding));
    return Type::Tuple(std::move(rs));
  }

  Document& doc_;
  FragmentTable& table_;
  std::vector<std::string>* warnings_;
  const std::string* file_ = nullptr;
  Scope* scope_ = nullptr;
};

}  // namespace

void CheckDocument(Document& doc, const FragmentTable& standard, FragmentTable* table,
                   std::vector<std::string>* warnings) {
  Checker(doc, standard, table, warnings).Run();
}

}  // namespace nnref::nnef
