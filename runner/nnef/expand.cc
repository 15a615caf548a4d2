#include "runner/nnef/expand.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "runner/nnef/shapes.h"

namespace nnref::nnef {
namespace {

TensorType ToTensorType(Prim p) {
  switch (p) {
    case Prim::kInteger:
      return TensorType::kInteger;
    case Prim::kLogical:
      return TensorType::kLogical;
    case Prim::kString:
      return TensorType::kString;
    default:
      return TensorType::kScalar;
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ShapeText(const Extents& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// <numeric-literal> with an optional leading '-' (for the string -> integer/scalar casts).
bool IsNumericLiteral(const std::string& s, bool integer_only) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  auto digits = [&]() {
    size_t b = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > b;
  };
  if (!digits()) return false;
  if (!integer_only && i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (!integer_only && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// The standard compounds (chapter 4.9) whose expansion is tagged for atomic execution (see
// CompoundInstance in ir.h): the kCompound rows of nnef_ops.inc; the executor decides which of
// them it runs on one kernel.
bool IsAtomicCompound(const std::optional<NnefOp>& id) {
  return id && NnefOpFamily(*id) == NnefFamily::kCompound;
}

class Expander {
 public:
  Expander(const Document& doc, const ParseOptions& opt) : doc_(doc), opt_(opt) {}

  FlatGraph Run() {
    const GraphDef& graph = *doc_.graph;
    g_.file = doc_.file;
    g_.version = doc_.version;
    for (const auto& [e, loc] : doc_.extensions) g_.extensions.push_back(e);
    g_.name = graph.name;
    for (const auto& [n, loc] : graph.params) g_.inputs.push_back(n);
    for (const auto& [n, loc] : graph.results) g_.outputs.push_back(n);
    for (const Assignment& a : graph.body) CollectNames(a.lhs);
    Frame gf;
    for (const Assignment& a : graph.body) {
      stmt_start_ = g_.ops.size();
      renamed_.clear();
      base_name_ = FirstName(a.lhs);
      stack_.push_back(Site{"", &doc_.file, a.loc});
      bool invocation = a.rhs->kind == Expr::Kind::kInvocation && !a.rhs->paren;
      ArgValue v = Eval(*a.rhs, gf, invocation ? &a.lhs : nullptr);
      AssignGraph(a.lhs, v, gf);
      stack_.pop_back();
    }
    return std::move(g_);
  }

 private:
  struct Frame {
    const Fragment* fragment = nullptr;  // null: the graph body
    Prim binding = Prim::kNone;
    std::map<std::string, ArgValue, std::less<>> env;
    std::vector<std::map<std::string, ArgValue, std::less<>>> loops;
  };
  struct Site {
    std::string callee;  // "" for a graph statement
    const std::string* file;
    Loc loc;
  };

  const std::string& FileOf(const Frame& f) const {
    return f.fragment ? f.fragment->file : doc_.file;
  }

  // The expansion chain "softmax -> max_reduce" of the current position ("" when the error is
  // in a direct invocation from the graph).
  std::string Chain() const {
    std::vector<const std::string*> names;
    for (const Site& s : stack_) {
      if (!s.callee.empty()) names.push_back(&s.callee);
    }
    if (names.size() < 2) return "";
    std::string c;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names.size() > 12 && i == 6) {
        c += " -> ... (" + std::to_string(names.size() - 10) + " more)";
        i = names.size() - 4;
        continue;
      }
      c += (c.empty() ? "" : " -> ") + *names[i];
    }
    return c;
  }

  // Reports at `here` in the current frame when that frame is document text, else at the
  // innermost call site in document text (the standard library has no useful positions).
  [[noreturn]] void Fail(const Frame* f, Loc here, const std::string& msg,
                         const std::string& rule) const {
    SourcePos pos;
    if (f && FileOf(*f) != kStandardLibraryFile) {
      pos = SourcePos{FileOf(*f), here.line, here.column};
    } else {
      for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        if (*it->file != kStandardLibraryFile) {
          pos = SourcePos{*it->file, it->loc.line, it->loc.column};
          break;
        }
      }
    }
    std::string chain = Chain();
    throw NnefError(Stage::kValidate, pos,
                    chain.empty() ? msg : msg + " (while expanding " + chain + ")", rule);
  }

  // ---- names ----
  void CollectNames(const LValue& v) {
    if (v.kind == LValue::Kind::kIdentifier) {
      used_names_.insert(v.name);
      return;
    }
    for (const LValue& i : v.items) CollectNames(i);
  }
  static std::string FirstName(const LValue& v) {
    if (v.kind == LValue::Kind::kIdentifier) return v.name;
    for (const LValue& i : v.items) {
      std::string n = FirstName(i);
      if (!n.empty()) return n;
    }
    return "";
  }
  std::string NewName() {
    std::string base = base_name_.empty() ? "t" : base_name_;
    for (;;) {
      std::string n = base + "_" + std::to_string(++counter_[base]);
      if (used_names_.insert(n).second) {
        generated_.insert(n);
        return n;
      }
    }
  }

  // ---- graph assignments ----
  void AssignGraph(const LValue& lhs, const ArgValue& v, Frame& gf) {
    switch (lhs.kind) {
      case LValue::Kind::kIdentifier:
        gf.env[lhs.name] = ArgValue::Tensor(NameTensor(v, lhs.name));
        return;
      case LValue::Kind::kArray:
      case LValue::Kind::kTuple:
        CheckUnpack(lhs, v, nullptr);
        for (size_t i = 0; i < lhs.items.size(); ++i) AssignGraph(lhs.items[i], v.items[i], gf);
        return;
    }
  }

  void CheckUnpack(const LValue& lhs, const ArgValue& v, const Frame* f) const {
    if (lhs.kind == LValue::Kind::kArray && v.kind != ArgValue::Kind::kArray) {
      Fail(f, lhs.loc, "an array left-hand side needs an array value", "3.3.2 Assignments");
    }
    if (lhs.kind == LValue::Kind::kTuple && v.kind != ArgValue::Kind::kTuple) {
      Fail(f, lhs.loc, "a tuple left-hand side needs a tuple value", "3.3.2 Assignments");
    }
    if (lhs.items.size() != v.items.size()) {
      Fail(f, lhs.loc,
           "the left-hand side has " + std::to_string(lhs.items.size()) +
               " items but the value has " + std::to_string(v.items.size()),
           lhs.kind == LValue::Kind::kArray
               ? "3.3.2 Assignments: the left-hand side determines the length of the resulting "
                 "array and must match it"
               : "3.3.3 Tuples: the tuple on the left must have the same number of items");
    }
  }

  // Gives the graph identifier `name` to the tensor value `v`: the fresh result tensor of this
  // statement is renamed, anything else (an existing tensor, a literal) is copied.
  std::string NameTensor(const ArgValue& v0, const std::string& name) {
    ArgValue v = v0;
    if (v.kind == ArgValue::Kind::kTensor) {
      auto r = renamed_.find(v.str);
      if (r != renamed_.end()) v.str = r->second;
    }
    if (v.kind == ArgValue::Kind::kTensor && generated_.count(v.str)) {
      const TensorInfo& t = g_.tensors.at(v.str);
      if (t.producer >= 0 && static_cast<size_t>(t.producer) >= stmt_start_) {
        Rename(v.str, name);
        return name;
      }
    }
    Invocation inv;
    inv.id = NnefOp::kCopy;
    inv.op = NnefOpName(NnefOp::kCopy);
    inv.generic = true;
    inv.dtype = DTypeOf(v);
    inv.pos = SourcePos{doc_.file, stack_.back().loc.line, stack_.back().loc.column};
    inv.args.push_back(NamedValue{"x", v, true});
    inv.results.push_back(NamedValue{"y", ArgValue::Tensor(name), true});
    TensorInfo info;
    info.name = name;
    info.dtype = inv.dtype;
    if (v.kind == ArgValue::Kind::kTensor) {
      const TensorInfo& src = g_.tensors.at(v.str);
      info.shape = src.shape;
      info.shape_known = src.shape_known;
    }
    info.producer = static_cast<int>(g_.ops.size());
    g_.tensors[name] = info;
    Push(std::move(inv));
    return name;
  }

  void Rename(const std::string& from, const std::string& to) {
    for (size_t i = stmt_start_; i < g_.ops.size(); ++i) {
      for (NamedValue& a : g_.ops[i].args) RenameIn(a.value, from, to);
      for (NamedValue& r : g_.ops[i].results) RenameIn(r.value, from, to);
    }
    for (CompoundInstance& c : g_.compounds) {
      if (c.end_op <= stmt_start_) continue;
      for (NamedValue& a : c.args) RenameIn(a.value, from, to);
      for (NamedValue& r : c.results) RenameIn(r.value, from, to);
    }
    auto node = g_.tensors.extract(from);
    node.key() = to;
    node.mapped().name = to;
    g_.tensors.insert(std::move(node));
    generated_.erase(from);
    renamed_[from] = to;
  }
  static void RenameIn(ArgValue& v, const std::string& from, const std::string& to) {
    if (v.kind == ArgValue::Kind::kTensor && v.str == from) v.str = to;
    for (ArgValue& i : v.items) RenameIn(i, from, to);
  }

  TensorType DTypeOf(const ArgValue& v) const {
    switch (v.kind) {
      case ArgValue::Kind::kTensor:
        return g_.tensors.at(v.str).dtype;
      case ArgValue::Kind::kInteger:
        return TensorType::kInteger;
      case ArgValue::Kind::kLogical:
        return TensorType::kLogical;
      case ArgValue::Kind::kString:
        return TensorType::kString;
      default:
        return TensorType::kScalar;
    }
  }

  void Push(Invocation inv) {
    if (static_cast<int64_t>(g_.ops.size()) >= opt_.max_operations) {
      Fail(nullptr, {},
           "the flattened graph exceeds " + std::to_string(opt_.max_operations) + " operations",
           "implementation limit");
    }
    g_.ops.push_back(std::move(inv));
  }

  // ---- fragment assignments ----
  void Destructure(const LValue& lhs, const ArgValue& v, Frame& f) {
    if (lhs.kind == LValue::Kind::kIdentifier) {
      f.env[lhs.name] = v;
      return;
    }
    CheckUnpack(lhs, v, &f);
    for (size_t i = 0; i < lhs.items.size(); ++i) Destructure(lhs.items[i], v.items[i], f);
  }

  // ---- expressions ----
  void CheckLength(size_t n, const Frame& f, Loc l) const {
    if (static_cast<int64_t>(n) > opt_.max_array_length) {
      Fail(&f, l,
           "a compile-time array or string of " + std::to_string(n) + " items exceeds the limit " +
               std::to_string(opt_.max_array_length),
           "implementation limit");
    }
  }

  // Bounds the evaluation recursion as a whole (nested expressions inside nested fragments), so
  // hostile documents end in an error rather than a stack overflow.
  struct EvalDepth {
    EvalDepth(Expander& x, const Frame& f, Loc l) : x_(x) {
      if (++x_.eval_depth_ > kMaxEvalDepth) {
        x_.Fail(&f, l,
                "expression evaluation nested deeper than " + std::to_string(kMaxEvalDepth) +
                    " levels (implementation limit)",
                "implementation limit");
      }
    }
    ~EvalDepth() { --x_.eval_depth_; }
    EvalDepth(const EvalDepth&) = delete;
    EvalDepth& operator=(const EvalDepth&) = delete;
    Expander& x_;
  };
  static constexpr int kMaxEvalDepth = 2500;

  // Eval only dispatches; each kind is evaluated in its own non-inlined function so that the
  // recursion carries small frames (their locals are not all in one frame).
  ArgValue Eval(const Expr& e, Frame& f, const LValue* hint = nullptr) {
    EvalDepth guard(*this, f, e.loc);
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdentifier:
        return EvalIdentifier(e, f);
      case Expr::Kind::kArray:
      case Expr::Kind::kTuple:
        return EvalList(e, f);
      case Expr::Kind::kUnary:
        return EvalUnary(e, f);
      case Expr::Kind::kBinary:
        return EvalBinary(e, f);
      case Expr::Kind::kIfElse:
        // Lazy: only the selected branch is evaluated (3.3.3 Compile-time branching).
        return Eval(*e.items[EvalCondition(*e.items[1], f) ? 0 : 2], f);
      case Expr::Kind::kComprehension:
        return Comprehension(e, f);
      case Expr::Kind::kIndex:
        return Index(e, f);
      case Expr::Kind::kRange:
        return Range(e, f);
      case Expr::Kind::kBuiltin:
        return Builtin(e, f);
      case Expr::Kind::kInvocation:
        return EvalInvocation(e, f, hint);
    }
    return {};
  }

  [[gnu::noinline]] bool EvalCondition(const Expr& e, Frame& f) { return Eval(e, f).b; }

  [[gnu::noinline]] ArgValue EvalIdentifier(const Expr& e, const Frame& f) const {
    for (auto it = f.loops.rbegin(); it != f.loops.rend(); ++it) {
      auto v = it->find(e.name);
      if (v != it->end()) return v->second;
    }
    auto v = f.env.find(e.name);
    if (v == f.env.end()) {
      Fail(&f, e.loc, "identifier '" + e.name + "' has no value", "3.3.2 Identifier usage");
    }
    return v->second;
  }

  [[gnu::noinline]] ArgValue EvalList(const Expr& e, Frame& f) {
    std::vector<ArgValue> items;
    for (const ExprPtr& i : e.items) items.push_back(Eval(*i, f));
    return e.kind == Expr::Kind::kArray ? ArgValue::Array(std::move(items))
                                        : ArgValue::Tuple(std::move(items));
  }

  [[gnu::noinline]] ArgValue EvalUnary(const Expr& e, Frame& f) {
    ArgValue v = Eval(*e.items[0], f);
    if (e.callee) return Call(*e.callee, {v}, e.binding, f, e.loc, nullptr);
    return Unary(e, v, f);
  }

  [[gnu::noinline]] ArgValue EvalBinary(const Expr& e, Frame& f) {
    if (!e.callee && (e.name == "&&" || e.name == "||")) {
      bool l = EvalCondition(*e.items[0], f);
      if (e.name == "&&" ? !l : l) return ArgValue::Logical(l);
      return ArgValue::Logical(EvalCondition(*e.items[1], f));
    }
    ArgValue l = Eval(*e.items[0], f);
    ArgValue r = Eval(*e.items[1], f);
    if (e.callee) return Call(*e.callee, {l, r}, e.binding, f, e.loc, nullptr);
    return Binary(e, l, r, f);
  }

  [[gnu::noinline]] ArgValue EvalInvocation(const Expr& e, Frame& f, const LValue* hint) {
    const Fragment& callee = *e.callee;
    std::vector<std::optional<ArgValue>> given(callee.params.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      given[static_cast<size_t>(e.arg_param[i])] = Eval(*e.args[i].value, f);
    }
    std::vector<ArgValue> values;
    for (size_t k = 0; k < callee.params.size(); ++k) {
      values.push_back(given[k] ? *given[k] : *callee.params[k].default_value);
    }
    return CallFull(callee, std::move(values), e.binding, f, e.loc, hint);
  }

  [[gnu::noinline]] ArgValue Unary(const Expr& e, const ArgValue& v, const Frame& f) {
    if (e.name == "!") return ArgValue::Logical(!v.b);
    if (e.name == "+") return v;
    if (v.kind == ArgValue::Kind::kInteger) {
      if (v.i == INT64_MIN) Fail(&f, e.loc, "integer negation overflows", "3.3.3");
      return ArgValue::Integer(-v.i);
    }
    std::string text;
    if (!v.text.empty()) text = v.text[0] == '-' ? v.text.substr(1) : "-" + v.text;
    return ArgValue::Scalar(-v.s, text);
  }

  [[gnu::noinline]] ArgValue Binary(const Expr& e, const ArgValue& l, const ArgValue& r,
                                    const Frame& f) {
    const std::string& op = e.name;
    using K = ArgValue::Kind;
    if (op == "==" || op == "!=") return ArgValue::Logical((l == r) == (op == "=="));
    if (op == "in") {
      for (const ArgValue& i : r.items) {
        if (i == l) return ArgValue::Logical(true);
      }
      return ArgValue::Logical(false);
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      double a = l.kind == K::kInteger ? 0 : l.s;
      double b = r.kind == K::kInteger ? 0 : r.s;
      int c = 0;
      if (l.kind == K::kInteger) {
        c = l.i < r.i ? -1 : (l.i > r.i ? 1 : 0);
      } else {
        c = a < b ? -1 : (a > b ? 1 : 0);
      }
      bool res = op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0;
      return ArgValue::Logical(res);
    }
    // Concatenation and duplication of arrays and strings.
    if (l.kind == K::kArray || l.kind == K::kString) {
      if (op == "+") {
        if (l.kind == K::kString) {
          CheckLength(l.str.size() + r.str.size(), f, e.loc);
          return ArgValue::String(l.str + r.str);
        }
        CheckLength(l.items.size() + r.items.size(), f, e.loc);
        std::vector<ArgValue> items = l.items;
        items.insert(items.end(), r.items.begin(), r.items.end());
        return ArgValue::Array(std::move(items));
      }
      // '*' by an integer
      if (r.i < 0) {
        Fail(&f, e.loc,
             "cannot duplicate " + std::string(l.kind == K::kString ? "a string" : "an array") +
                 " a negative number of times (" + std::to_string(r.i) + ")",
             "3.3.3 Arrays: the * operator duplicates an array");
      }
      size_t n = l.kind == K::kString ? l.str.size() : l.items.size();
      if (n > 0 && r.i > opt_.max_array_length / static_cast<int64_t>(n)) {
        CheckLength(static_cast<size_t>(opt_.max_array_length) + 1, f, e.loc);
      }
      if (l.kind == K::kString) {
        std::string s;
        for (int64_t k = 0; k < r.i; ++k) s += l.str;
        return ArgValue::String(std::move(s));
      }
      std::vector<ArgValue> items;
      items.reserve(n * static_cast<size_t>(r.i));
      for (int64_t k = 0; k < r.i; ++k) items.insert(items.end(), l.items.begin(), l.items.end());
      return ArgValue::Array(std::move(items));
    }
    if (l.kind == K::kInteger) {
      int64_t a = l.i;
      int64_t b = r.i;
      int64_t out = 0;
      bool overflow = false;
      if (op == "+") {
        overflow = __builtin_add_overflow(a, b, &out);
      } else if (op == "-") {
        overflow = __builtin_sub_overflow(a, b, &out);
      } else if (op == "*") {
        overflow = __builtin_mul_overflow(a, b, &out);
      } else if (op == "/") {
        if (b == 0) Fail(&f, e.loc, "integer division by zero", "3.3.3 Built-in operators");
        if (a == INT64_MIN && b == -1) {
          overflow = true;
        } else {
          // Integer division rounds toward negative infinity (floor), like integer(scalar).
          out = a / b;
          if ((a % b != 0) && ((a < 0) != (b < 0))) --out;
        }
      } else {  // ^
        if (b < 0) {
          Fail(&f, e.loc,
               "integer power with a negative exponent (" + std::to_string(b) +
                   ") has no integer value; use scalars",
               "3.3.3 Built-in operators");
        }
        out = 1;
        int64_t base = a;
        for (int64_t k = b; k > 0 && !overflow; k >>= 1) {
          if (k & 1) overflow = __builtin_mul_overflow(out, base, &out);
          if (k > 1 && !overflow) overflow = __builtin_mul_overflow(base, base, &base);
        }
      }
      if (overflow) {
        Fail(&f, e.loc,
             "integer arithmetic " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                 " overflows 64 bits",
             "3.3.3 Built-in operators");
      }
      return ArgValue::Integer(out);
    }
    double a = l.s;
    double b = r.s;
    double out = op == "+"   ? a + b
                 : op == "-" ? a - b
                 : op == "*" ? a * b
                 : op == "/" ? a / b
                             : std::pow(a, b);
    if (!std::isfinite(out)) {
      Fail(&f, e.loc,
           "compile-time arithmetic " + ScalarLiteral(a) + " " + op + " " + ScalarLiteral(b) +
               " has no finite value",
           "3.3.3 Built-in operators");
    }
    return ArgValue::Scalar(out);
  }

  [[gnu::noinline]] ArgValue Comprehension(const Expr& e, Frame& f) {
    std::vector<ArgValue> ranges;
    for (const LoopIter& it : e.iters) ranges.push_back(Eval(*it.range, f));
    size_t n = ranges[0].items.size();
    for (size_t k = 1; k < ranges.size(); ++k) {
      if (ranges[k].items.size() != n) {
        Fail(&f, e.iters[k].loc,
             "loop iterators run over arrays of lengths " + std::to_string(n) + " and " +
                 std::to_string(ranges[k].items.size()),
             "3.3.3 Compile-time looping: the iterated arrays must have the same length");
      }
    }
    std::vector<ArgValue> out;
    f.loops.emplace_back();
    for (size_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < ranges.size(); ++k)
        f.loops.back()[e.iters[k].name] = ranges[k].items[i];
      if (e.items[0] && !Eval(*e.items[0], f).b) continue;
      out.push_back(Eval(*e.items[1], f));
    }
    f.loops.pop_back();
    return ArgValue::Array(std::move(out));
  }

  [[gnu::noinline]] ArgValue Index(const Expr& e, Frame& f) {
    ArgValue obj = Eval(*e.items[0], f);
    int64_t i = Eval(*e.items[1], f).i;
    if (obj.kind == ArgValue::Kind::kString) {
      if (i < 0 || i >= static_cast<int64_t>(obj.str.size())) {
        Fail(&f, e.loc,
             "string index " + std::to_string(i) + " is out of range [0, " +
                 std::to_string(obj.str.size()) + ")",
             "3.3.3 Strings");
      }
      return ArgValue::String(obj.str.substr(static_cast<size_t>(i), 1));
    }
    if (i < 0 || i >= static_cast<int64_t>(obj.items.size())) {
      Fail(&f, e.loc,
           "index " + std::to_string(i) + " is out of range [0, " +
               std::to_string(obj.items.size()) + ")",
           "3.3.3 Arrays: indexing starts from 0 and goes until the length of the array minus 1");
    }
    return obj.items[static_cast<size_t>(i)];
  }

  [[gnu::noinline]] ArgValue Range(const Expr& e, Frame& f) {
    ArgValue obj = Eval(*e.items[0], f);
    bool str = obj.kind == ArgValue::Kind::kString;
    auto len = static_cast<int64_t>(str ? obj.str.size() : obj.items.size());
    int64_t b = e.items[1] ? Eval(*e.items[1], f).i : 0;
    int64_t en = e.items[2] ? Eval(*e.items[2], f).i : len;
    if (b >= en) return str ? ArgValue::String("") : ArgValue::Array({});
    if (b < 0 || en > len) {
      Fail(&f, e.loc,
           "range [" + std::to_string(b) + ":" + std::to_string(en) + "] is out of bounds for " +
               std::to_string(len) + " items",
           "3.3.3 Arrays: range subscripts");
    }
    if (str) {
      return ArgValue::String(obj.str.substr(static_cast<size_t>(b), static_cast<size_t>(en - b)));
    }
    return ArgValue::Array(std::vector<ArgValue>(obj.items.begin() + b, obj.items.begin() + en));
  }

  [[gnu::noinline]] ArgValue Builtin(const Expr& e, Frame& f) {
    ArgValue v = Eval(*e.items[0], f);
    const std::string& fn = e.name;
    using K = ArgValue::Kind;
    const char* rule = "3.3.3 Built-in functions";
    if (fn == "shape_of") {
      if (v.kind != K::kTensor) return ArgValue::Array({});
      const TensorInfo& t = g_.tensors.at(v.str);
      if (!t.shape_known) {
        Fail(&f, e.loc,
             "the shape of '" + v.str + "' is not known (it depends on a custom operation)",
             "6: shape propagation is only possible without custom operations");
      }
      std::vector<ArgValue> items;
      for (int64_t x : t.shape) items.push_back(ArgValue::Integer(x));
      return ArgValue::Array(std::move(items));
    }
    if (fn == "length_of" || fn == "range_of") {
      size_t n = v.kind == K::kString ? v.str.size() : v.items.size();
      if (fn == "length_of") return ArgValue::Integer(static_cast<int64_t>(n));
      std::vector<ArgValue> items;
      for (size_t i = 0; i < n; ++i) items.push_back(ArgValue::Integer(static_cast<int64_t>(i)));
      return ArgValue::Array(std::move(items));
    }
    if (fn == "string") {
      if (v.kind == K::kString) return v;
      if (v.kind == K::kScalar) return ArgValue::String(ScalarLiteral(v.s));
      return ArgValue::String(v.ToString());
    }
    if (fn == "logical") {
      switch (v.kind) {
        case K::kInteger:
          return ArgValue::Logical(v.i != 0);
        case K::kScalar:
          return ArgValue::Logical(v.s != 0.0);
        case K::kString:
          return ArgValue::Logical(!v.str.empty());
        default:
          return v;
      }
    }
    if (fn == "integer") {
      switch (v.kind) {
        case K::kLogical:
          return ArgValue::Integer(v.b ? 1 : 0);
        case K::kScalar: {
          double fl = std::floor(v.s);
          if (!(fl >= -9223372036854775808.0 && fl < 9223372036854775808.0)) {
            Fail(&f, e.loc, "integer(" + ScalarLiteral(v.s) + ") is out of range", rule);
          }
          return ArgValue::Integer(static_cast<int64_t>(fl));
        }
        case K::kString: {
          errno = 0;
          long long x =
              IsNumericLiteral(v.str, true) ? std::strtoll(v.str.c_str(), nullptr, 10) : 0;
          if (!IsNumericLiteral(v.str, true) || errno == ERANGE) {
            Fail(&f, e.loc, "integer('" + v.str + "'): not a valid integer literal", rule);
          }
          return ArgValue::Integer(x);
        }
        default:
          return v;
      }
    }
    // scalar
    switch (v.kind) {
      case K::kLogical:
        return ArgValue::Scalar(v.b ? 1.0 : 0.0, v.b ? "1.0" : "0.0");
      case K::kInteger:
        return ArgValue::Scalar(static_cast<double>(v.i), std::to_string(v.i) + ".0");
      case K::kString: {
        double d = IsNumericLiteral(v.str, false) ? std::strtod(v.str.c_str(), nullptr) : 0;
        if (!IsNumericLiteral(v.str, false) || !std::isfinite(d)) {
          Fail(&f, e.loc, "scalar('" + v.str + "'): not a valid scalar literal", rule);
        }
        return ArgValue::Scalar(d, v.str);
      }
      default:
        return v;
    }
  }

  // ---- invocations ----
  ArgValue Call(const Fragment& callee, std::vector<ArgValue> positional, Prim binding, Frame& f,
                Loc loc, const LValue* hint) {
    for (size_t k = positional.size(); k < callee.params.size(); ++k) {
      positional.push_back(*callee.params[k].default_value);
    }
    return CallFull(callee, std::move(positional), binding, f, loc, hint);
  }

  [[gnu::noinline]] ArgValue CallFull(const Fragment& callee, std::vector<ArgValue> values,
                                      Prim binding, Frame& f, Loc loc, const LValue* hint) {
    Prim b = binding == Prim::kGeneric ? f.binding : binding;
    if (static_cast<int>(stack_.size()) > opt_.max_expansion_depth) {
      Fail(&f, loc,
           "fragment expansion deeper than " + std::to_string(opt_.max_expansion_depth) +
               " levels (unbounded recursion of '" + callee.name + "'?)",
           "3.3.3 Compile-time branching: recursion must terminate");
    }
    stack_.push_back(Site{callee.name, &FileOf(f), loc});
    ArgValue out;
    int compound = -1;
    if (callee.has_body && callee.standard && active_compound_ < 0 && IsAtomicCompound(callee.id)) {
      CompoundInstance c;
      c.name = callee.name;
      c.id = *callee.id;
      for (size_t k = 0; k < callee.params.size(); ++k) {
        c.args.push_back(
            NamedValue{callee.params[k].name, values[k], callee.params[k].type.ContainsTensor()});
      }
      c.pos = PositionForOp();
      c.first_op = g_.ops.size();
      compound = active_compound_ = static_cast<int>(g_.compounds.size());
      g_.compounds.push_back(std::move(c));
    }
    if (callee.has_body) {
      Frame nf;
      nf.fragment = &callee;
      nf.binding = b;
      for (size_t k = 0; k < callee.params.size(); ++k) nf.env[callee.params[k].name] = values[k];
      for (const Assignment& a : callee.body) {
        bool invocation = a.rhs->kind == Expr::Kind::kInvocation && !a.rhs->paren;
        ArgValue v = Eval(*a.rhs, nf, invocation ? &a.lhs : nullptr);
        Destructure(a.lhs, v, nf);
      }
      if (callee.results.size() == 1) {
        out = nf.env.at(callee.results[0].name);
      } else {
        std::vector<ArgValue> rs;
        for (const Param& r : callee.results) rs.push_back(nf.env.at(r.name));
        out = ArgValue::Tuple(std::move(rs));
      }
      if (compound >= 0) {
        CompoundInstance& c = g_.compounds[static_cast<size_t>(compound)];
        for (const Param& r : callee.results) {
          c.results.push_back(NamedValue{r.name, nf.env.at(r.name), r.type.ContainsTensor()});
        }
        c.end_op = g_.ops.size();
        for (size_t i = c.first_op; i < c.end_op; ++i) g_.ops[i].compound = compound;
        active_compound_ = -1;
      }
    } else {
      out = Emit(callee, std::move(values), b, f, loc, hint);
    }
    stack_.pop_back();
    return out;
  }

  [[gnu::noinline]] ArgValue Emit(const Fragment& callee, std::vector<ArgValue> values, Prim b,
                                  const Frame& f, Loc loc, const LValue* hint) {
    Invocation inv;
    inv.op = callee.name;
    if (callee.standard) inv.id = callee.id;
    inv.generic = callee.generic;
    inv.dtype = ToTensorType(b);
    inv.custom = !callee.standard;
    inv.pos = PositionForOp();
    for (size_t k = 0; k < callee.params.size(); ++k) {
      inv.args.push_back(NamedValue{callee.params[k].name, std::move(values[k]),
                                    callee.params[k].type.ContainsTensor()});
    }
    ShapeLookup lookup = [this](const ArgValue& v) -> const Extents* {
      const TensorInfo& t = g_.tensors.at(v.str);
      return t.shape_known ? &t.shape : nullptr;
    };
    InferredShapes shapes;
    if (inv.custom) {
      shapes.known = false;
    } else {
      try {
        if (!inv.id) {
          throw ArgumentError{"internal: no shape rule for primitive '" + inv.op + "'", "4"};
        }
        shapes = InferPrimitive(*inv.id, inv.args, lookup, ShapeLimits{opt_.max_tensor_volume});
      } catch (const ArgumentError& err) {
        Fail(&f, loc, inv.op + ": " + err.message, err.rule);
      }
      CheckStateful(inv, shapes, f, loc);
    }
    int producer = static_cast<int>(g_.ops.size());
    std::vector<ArgValue> results;
    for (size_t k = 0; k < callee.results.size(); ++k) {
      const LValue* h = nullptr;
      if (hint) {
        if (callee.results.size() == 1) {
          h = hint;
        } else if (hint->kind == LValue::Kind::kTuple && k < hint->items.size()) {
          h = &hint->items[k];
        }
      }
      const std::vector<Extents>* rs = k < shapes.results.size() ? &shapes.results[k] : nullptr;
      size_t next = 0;
      ArgValue v = MakeResult(Substitute(callee.results[k].type, b), shapes.known, rs, &next, h,
                              producer, callee, f, loc);
      inv.results.push_back(NamedValue{callee.results[k].name, v, true});
      results.push_back(std::move(v));
    }
    Push(std::move(inv));
    if (results.size() == 1) return results[0];
    return ArgValue::Tuple(std::move(results));
  }

  ArgValue MakeResult(const Type& t, bool known, const std::vector<Extents>* shapes, size_t* next,
                      const LValue* hint, int producer, const Fragment& callee, const Frame& f,
                      Loc loc) {
    if (t.kind == Type::Kind::kTensor) {
      TensorInfo info;
      info.name = NewName();
      info.dtype = ToTensorType(t.prim);
      info.shape_known = known;
      if (known && shapes && *next < shapes->size()) info.shape = (*shapes)[(*next)++];
      info.producer = producer;
      g_.tensors[info.name] = info;
      return ArgValue::Tensor(info.name);
    }
    if (t.kind == Type::Kind::kTuple) {
      std::vector<ArgValue> items;
      for (size_t i = 0; i < t.items.size(); ++i) {
        const LValue* h = hint && hint->kind == LValue::Kind::kTuple && i < hint->items.size()
                              ? &hint->items[i]
                              : nullptr;
        items.push_back(MakeResult(t.items[i], known, shapes, next, h, producer, callee, f, loc));
      }
      return ArgValue::Tuple(std::move(items));
    }
    // Array of tensors: as many items as the operation produces, or, when that is unknown, as
    // the left-hand side of the assignment has (3.3.2 Assignments).
    size_t n = 0;
    if (shapes && !shapes->empty() && t.items[0].kind == Type::Kind::kTensor) {
      n = shapes->size();
    } else if (hint && hint->kind == LValue::Kind::kArray) {
      n = hint->items.size();
    } else {
      Fail(&f, loc,
           "the number of results of '" + callee.name +
               "' is unknown; assign them to an array of identifiers",
           "3.3.2 Assignments: the left-hand side determines the length of the resulting array");
    }
    std::vector<ArgValue> items;
    for (size_t i = 0; i < n; ++i) {
      const LValue* h = hint && hint->kind == LValue::Kind::kArray && i < hint->items.size()
                            ? &hint->items[i]
                            : nullptr;
      items.push_back(MakeResult(t.items[0], known, shapes, next, h, producer, callee, f, loc));
    }
    return ArgValue::Array(std::move(items));
  }

  SourcePos PositionForOp() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      if (*it->file != kStandardLibraryFile) {
        return SourcePos{*it->file, it->loc.line, it->loc.column};
      }
    }
    return SourcePos{doc_.file, 0, 0};
  }

  // Variables (4.1.3: a shared label means shared data and the same shape) and updates (4.8: a
  // variable is updated at most once per cycle).
  void CheckStateful(const Invocation& inv, const InferredShapes& shapes, const Frame& f, Loc loc) {
    if (inv.id == NnefOp::kVariable) {
      std::string key = Lower(inv.Arg("label")->str);
      const Extents& shape = shapes.results[0][0];
      auto it = variables_.find(key);
      if (it != variables_.end()) {
        if (it->second.shape != shape || it->second.dtype != inv.dtype) {
          Fail(&f, loc,
               "variable: label '" + inv.Arg("label")->str + "' is shared with a variable of " +
                   std::string(TensorTypeName(it->second.dtype)) + " shape " +
                   ShapeText(it->second.shape) + " but this one is " +
                   std::string(TensorTypeName(inv.dtype)) + " " + ShapeText(shape),
               "4.1.3 variable: variables with the same label (case insensitive) share data and "
               "must have the same shape");
        }
      } else {
        variables_[key] = VariableInfo{shape, inv.dtype};
      }
      variable_ops_[static_cast<int>(g_.ops.size())] = key;
    }
    if (inv.id == NnefOp::kUpdate) {
      const ArgValue& var = *inv.Arg("variable");
      int producer = var.kind == ArgValue::Kind::kTensor ? g_.tensors.at(var.str).producer : -1;
      auto it = variable_ops_.find(producer);
      if (it == variable_ops_.end()) {
        Fail(&f, loc, "update: the updated tensor must be a variable (the result of 'variable')",
             "4.8 update: only variable tensors can be updated");
      }
      if (!updated_.insert(it->second).second) {
        Fail(&f, loc, "update: variable '" + it->second + "' is updated more than once",
             "4.8 update: each variable can only be updated once in a cycle");
      }
    }
  }

  struct VariableInfo {
    Extents shape;
    TensorType dtype;
  };

  const Document& doc_;
  const ParseOptions& opt_;
  FlatGraph g_;
  std::vector<Site> stack_;
  std::set<std::string> used_names_;
  std::set<std::string> generated_;
  std::map<std::string, std::string> renamed_;
  std::map<std::string, int> counter_;
  std::string base_name_;
  size_t stmt_start_ = 0;
  std::map<std::string, VariableInfo> variables_;
  std::map<int, std::string> variable_ops_;
  std::set<std::string> updated_;
  int eval_depth_ = 0;
  int active_compound_ = -1;  // the CompoundInstance being expanded, -1 outside any
};

}  // namespace

FlatGraph Expand(const Document& doc, const ParseOptions& options) {
  return Expander(doc, options).Run();
}

}  // namespace nnref::nnef
