// The syntax tree of an NNEF document (chapter 3), as produced by ParseSyntax (syntax.h) and
// annotated by the semantic checker (check.h) with static types, resolved callees and generic
// bindings, which the expander (expand.cc) then uses.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/nnef/ir.h"

namespace nnref::nnef {

struct Loc {
  int line = 0;
  int column = 0;
};

// Primitive (data) types. kGeneric is the type parameter '?' of the enclosing generic fragment;
// kNone is "no data type" (an unbound tensor<>).
enum class Prim : unsigned char { kInteger, kScalar, kLogical, kString, kGeneric, kNone };
std::string_view PrimName(Prim p);  // "integer", ..., "?", ""

// 3.3.1 types. kEmpty is the special empty-array-type of the literal [].
struct Type {
  enum class Kind : unsigned char { kPrim, kTensor, kArray, kTuple, kEmpty };
  Kind kind = Kind::kPrim;
  Prim prim = Prim::kNone;  // kPrim: the primitive; kTensor: the data type (kNone = unbound)
  std::vector<Type> items;  // kArray: the item type; kTuple: the item types

  static Type Primitive(Prim p) { return Type{Kind::kPrim, p, {}}; }
  static Type Tensor(Prim p) { return Type{Kind::kTensor, p, {}}; }
  static Type Array(Type item) { return Type{Kind::kArray, Prim::kNone, {std::move(item)}}; }
  static Type Tuple(std::vector<Type> items) {
    return Type{Kind::kTuple, Prim::kNone, std::move(items)};
  }
  static Type Empty() { return Type{Kind::kEmpty, Prim::kNone, {}}; }

  bool is_prim(Prim p) const { return kind == Kind::kPrim && prim == p; }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool ContainsTensor() const;
  bool ContainsGeneric() const;
  bool operator==(const Type& o) const = default;
  std::string ToString() const;  // NNEF spelling: "tensor<scalar>", "(integer,integer)[]", ...
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Argument {
  std::string name;  // "" for a positional argument
  ExprPtr value;
  Loc loc;
};

struct LoopIter {
  std::string name;
  ExprPtr range;
  Loc loc;
};

struct Fragment;

struct Expr {
  enum class Kind : unsigned char {
    kIdentifier,     // name
    kLiteral,        // literal
    kArray,          // items
    kTuple,          // items
    kUnary,          // name = operator; items = {operand}
    kBinary,         // name = operator; items = {lhs, rhs}
    kIfElse,         // items = {then, condition, else}
    kComprehension,  // iters; items = {condition or null, yield}
    kIndex,          // items = {object, index}
    kRange,          // items = {object, begin or null, end or null}
    kBuiltin,        // name = builtin; items = {argument}
    kInvocation,     // name, type_arg, args
  };
  Kind kind = Kind::kLiteral;
  Loc loc;
  std::string name;
  ArgValue literal;
  std::vector<ExprPtr> items;
  std::vector<LoopIter> iters;
  std::vector<Argument> args;
  std::optional<Prim> type_arg;  // invocation: explicit <type-name> (kGeneric for <?>)
  bool paren = false;            // the expression was written in parentheses

  // Annotations of the semantic checker.
  Type type;                         // static type
  const Fragment* callee = nullptr;  // invocation; the fragment an operator on tensors maps to
  Prim binding = Prim::kNone;        // callee's generic binding (kGeneric: the enclosing one's)
  std::vector<int> arg_param;        // invocation: parameter index of each argument
};

struct LValue {
  enum class Kind : unsigned char { kIdentifier, kArray, kTuple };
  Kind kind = Kind::kIdentifier;
  std::string name;
  std::vector<LValue> items;
  Loc loc;
};

struct Assignment {
  LValue lhs;
  ExprPtr rhs;
  Loc loc;
};

struct Param {
  std::string name;
  Type type;
  std::optional<ArgValue> default_value;  // parameters only
  Type default_type;
  Loc loc;
};

struct Fragment {
  std::string name;
  Loc loc;
  std::string file;       // the document, or "<standard library>"
  bool standard = false;  // from the built-in standard library
  // The operation of a standard fragment the front end knows by name (nnef_ops.inc), parsed
  // once when the standard library is loaded; nullopt for the other fragments.
  std::optional<NnefOp> id;
  bool generic = false;
  std::optional<Prim> generic_default;
  std::vector<Param> params;
  std::vector<Param> results;
  bool has_body = false;
  std::vector<Assignment> body;
};

struct GraphDef {
  std::string name;
  Loc loc;
  std::vector<std::pair<std::string, Loc>> params;
  std::vector<std::pair<std::string, Loc>> results;
  std::vector<Assignment> body;
};

struct Document {
  std::string file;
  std::string version;
  Loc version_loc;
  std::vector<std::pair<std::string, Loc>> extensions;
  bool fragments_enabled = false;    // KHR_enable_fragment_definitions
  bool expressions_enabled = false;  // KHR_enable_operator_expressions
  // "file:line:col: warning: ..." for forms outside the 1.0.2 grammar that are accepted (a
  // comma-separated extension list, as NNEF-Tools writes it).
  std::vector<std::string> warnings;
  std::vector<std::unique_ptr<Fragment>> fragments;
  std::optional<GraphDef> graph;
};

}  // namespace nnref::nnef
