// The type relations of NNEF 1.0.2 section 3.3.1 that the checker (check.cc) applies: casting,
// '?' substitution and deduction, and the operator-to-fragment table of 3.3.2.
#include "runner/nnef/check_types.h"

#include <algorithm>
#include <set>

#include "runner/nnef/check.h"

namespace nnref::nnef {

std::string_view PrimName(Prim p) {
  switch (p) {
    case Prim::kInteger:
      return "integer";
    case Prim::kScalar:
      return "scalar";
    case Prim::kLogical:
      return "logical";
    case Prim::kString:
      return "string";
    case Prim::kGeneric:
      return "?";
    case Prim::kNone:
      return "";
  }
  return "";
}

bool Type::ContainsTensor() const {
  if (kind == Kind::kTensor) return true;
  return std::any_of(items.begin(), items.end(), [](const Type& t) { return t.ContainsTensor(); });
}

bool Type::ContainsGeneric() const {
  if ((kind == Kind::kPrim || kind == Kind::kTensor) && prim == Prim::kGeneric) return true;
  return std::any_of(items.begin(), items.end(), [](const Type& t) { return t.ContainsGeneric(); });
}

std::string Type::ToString() const {
  switch (kind) {
    case Kind::kPrim:
      return std::string(PrimName(prim));
    case Kind::kTensor:
      return "tensor<" + std::string(PrimName(prim)) + ">";
    case Kind::kArray:
      return items[0].ToString() + "[]";
    case Kind::kEmpty:
      return "empty array";
    case Kind::kTuple: {
      std::string s = "(";
      for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i].ToString();
      return s + ")";
    }
  }
  return "";
}

bool Castable(const Type& from, const Type& to) {
  if (from == to) return true;
  switch (to.kind) {
    case Type::Kind::kTensor:
      // A primitive casts to the tensor type of its data type; anything tensor-like casts to
      // the unbound tensor<>.
      if (from.kind == Type::Kind::kTensor || from.kind == Type::Kind::kPrim) {
        return to.prim == Prim::kNone || (from.prim == to.prim && from.prim != Prim::kNone);
      }
      return false;
    case Type::Kind::kArray:
      return from.kind == Type::Kind::kEmpty ||
             (from.kind == Type::Kind::kArray && Castable(from.items[0], to.items[0]));
    case Type::Kind::kTuple:
      if (from.kind != Type::Kind::kTuple || from.items.size() != to.items.size()) return false;
      for (size_t i = 0; i < from.items.size(); ++i) {
        if (!Castable(from.items[i], to.items[i])) return false;
      }
      return true;
    default:
      return false;
  }
}

Type Substitute(const Type& t, Prim binding) {
  if (binding == Prim::kNone) return t;
  Type r = t;
  if ((r.kind == Type::Kind::kPrim || r.kind == Type::Kind::kTensor) && r.prim == Prim::kGeneric) {
    r.prim = binding;
  }
  for (Type& i : r.items) i = Substitute(i, binding);
  return r;
}

// Declaration-time castability: additionally any primitive casts to '?', and any bound tensor
// (or primitive) to tensor<?> (3.3.1 Type Casting).
bool CastableDecl(const Type& from, const Type& to) {
  if (Castable(from, to)) return true;
  if (to.kind == Type::Kind::kPrim && to.prim == Prim::kGeneric) {
    return from.kind == Type::Kind::kPrim;
  }
  if (to.kind == Type::Kind::kTensor && to.prim == Prim::kGeneric) {
    return (from.kind == Type::Kind::kPrim || from.kind == Type::Kind::kTensor) &&
           from.prim != Prim::kNone;
  }
  if (to.kind == Type::Kind::kArray) {
    return from.kind == Type::Kind::kArray && CastableDecl(from.items[0], to.items[0]);
  }
  if (to.kind == Type::Kind::kTuple && from.kind == Type::Kind::kTuple &&
      from.items.size() == to.items.size()) {
    for (size_t i = 0; i < from.items.size(); ++i) {
      if (!CastableDecl(from.items[i], to.items[i])) return false;
    }
    return true;
  }
  return false;
}

std::optional<Type> CommonType(const Type& a, const Type& b) {
  if (Castable(a, b)) return b;
  if (Castable(b, a)) return a;
  return std::nullopt;
}

// Collects the candidate values of '?' from matching an argument type against a parameter type.
void Deduce(const Type& param, const Type& arg, std::set<Prim>* out) {
  switch (param.kind) {
    case Type::Kind::kPrim:
      if (param.prim == Prim::kGeneric && arg.kind == Type::Kind::kPrim) out->insert(arg.prim);
      return;
    case Type::Kind::kTensor:
      if (param.prim == Prim::kGeneric &&
          (arg.kind == Type::Kind::kTensor || arg.kind == Type::Kind::kPrim) &&
          arg.prim != Prim::kNone) {
        out->insert(arg.prim);
      }
      return;
    case Type::Kind::kArray:
      if (arg.kind == Type::Kind::kArray) Deduce(param.items[0], arg.items[0], out);
      return;
    case Type::Kind::kTuple:
      if (arg.kind == Type::Kind::kTuple && arg.items.size() == param.items.size()) {
        for (size_t i = 0; i < arg.items.size(); ++i) Deduce(param.items[i], arg.items[i], out);
      }
      return;
    default:
      return;
  }
}

bool IsTensorOnly(const Type& t) {
  if (t.kind == Type::Kind::kTensor) return true;
  if (t.kind == Type::Kind::kArray || t.kind == Type::Kind::kTuple) {
    return std::all_of(t.items.begin(), t.items.end(), IsTensorOnly);
  }
  return false;
}

// 3.3.1: tuples must not contain both tensor and non-tensor item types.
const Type* MixedTuple(const Type& t) {
  if (t.kind == Type::Kind::kTuple) {
    bool any_tensor = false;
    bool any_attr = false;
    for (const Type& i : t.items) {
      (i.ContainsTensor() ? any_tensor : any_attr) = true;
    }
    if (any_tensor && any_attr) return &t;
  }
  for (const Type& i : t.items) {
    if (const Type* m = MixedTuple(i)) return m;
  }
  return nullptr;
}

const char* OperatorFragment(const std::string& op, bool unary) {
  if (unary) {
    if (op == "-") return "neg";
    if (op == "+") return "copy";
    if (op == "!") return "not";
    return nullptr;
  }
  static const std::pair<const char*, const char*> kMap[] = {
      {"+", "add"}, {"-", "sub"},  {"*", "mul"}, {"/", "div"}, {"^", "pow"},
      {"<", "lt"},  {"<=", "le"},  {">", "gt"},  {">=", "ge"}, {"==", "eq"},
      {"!=", "ne"}, {"&&", "and"}, {"||", "or"}};
  for (const auto& [o, f] : kMap) {
    if (op == o) return f;
  }
  return nullptr;
}

bool IsNumeric(const Type& t) { return t.is_prim(Prim::kInteger) || t.is_prim(Prim::kScalar); }
bool IsArrayLike(const Type& t) {
  return t.kind == Type::Kind::kArray || t.kind == Type::Kind::kEmpty;
}

}  // namespace nnref::nnef
