// The flattened NNEF graph: what the parser produces (after type checking, the chapter-6 validity
// rules, expansion of every compound and user fragment, and shape propagation) and what the
// executor consumes. It is the "flat document" of chapter 6: a sequence of primitive invocations
// with concrete arguments, in a valid topological (execution) order.
//
// Obtain one with nnref::nnef::ParseModel(path) or ParseDocument(text, file) (parser.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/nnef/error.h"
#include "runner/nnef/nnef_op.h"

namespace nnref::nnef {

// A tensor shape: the extent of each dimension, outermost first.
using Extents = std::vector<int64_t>;

// Data type of a tensor (the primitive type in tensor<...>).
enum class TensorType : unsigned char { kScalar, kInteger, kLogical, kString };
std::string_view TensorTypeName(TensorType t);  // "scalar", "integer", "logical", "string"

// A compile-time value: an attribute, or an argument in a tensor position. Tensor arguments are
// either a reference to a tensor of the graph (kTensor, `str` = its identifier) or a literal of a
// primitive type (kScalar/kInteger/kLogical), which per 3.3.1 "behaves as a constant tensor of
// singleton shape" (rank 0, shape []). Arrays and tuples nest.
struct ArgValue {
  enum class Kind : unsigned char { kInteger, kScalar, kLogical, kString, kTensor, kArray, kTuple };
  Kind kind = Kind::kInteger;
  int64_t i = 0;                // kInteger
  double s = 0;                 // kScalar (nearest double)
  std::string text;             // kScalar: decimal source text when the value is a verbatim literal
                                // (round it once to the target type); "" when computed
  bool b = false;               // kLogical
  std::string str;              // kString value; kTensor identifier
  std::vector<ArgValue> items;  // kArray, kTuple

  static ArgValue Integer(int64_t v);
  static ArgValue Scalar(double v, std::string source_text = {});
  static ArgValue Logical(bool v);
  static ArgValue String(std::string v);
  static ArgValue Tensor(std::string id);
  static ArgValue Array(std::vector<ArgValue> v);
  static ArgValue Tuple(std::vector<ArgValue> v);

  bool is_tensor() const { return kind == Kind::kTensor; }
  // NNEF literal text: 3, 1.5, true, 'str', x, [1, 2], (0, 1). Scalars print their source text
  // when present, else the shortest round-trip form with a '.' or exponent.
  std::string ToString() const;
  bool operator==(const ArgValue& o) const;  // deep; scalars compare by value
};

// Shortest round-trip NNEF literal of a finite double ("1.0", "0.1", "1e+20").
std::string ScalarLiteral(double d);

// One named parameter or result of an invocation.
struct NamedValue {
  std::string name;
  ArgValue value;
  bool tensor = false;  // the parameter/result has a tensor type (tensor<>, tensor<>[], ...)
};

// One primitive invocation (an operation of chapter 4 that has no body: external, constant,
// variable, the element-wise ops, conv, box, ..., update; or a custom operation declared without a
// body in the document).
struct Invocation {
  std::string op;                          // primitive name, e.g. "conv" (for printing)
  std::optional<NnefOp> id;                // the primitive; nullopt for custom operations
  TensorType dtype = TensorType::kScalar;  // value of the generic type ? (generic ops only)
  bool generic = false;                    // the operation is declared generic (<?>)
  // Every declared parameter, in declaration order, defaults substituted: tensor parameters hold
  // kTensor/literal values (or arrays of them for tensor<>[] parameters); attributes hold values.
  std::vector<NamedValue> args;
  // Every declared result, in declaration order: kTensor, or an array of kTensor for tensor<>[]
  // results (split, unstack).
  std::vector<NamedValue> results;
  SourcePos pos;        // the graph-body assignment this invocation was expanded from
  bool custom = false;  // a document-declared operation without a body (no known semantics)
  // Index into FlatGraph::compounds of the standard compound this invocation was expanded from
  // (the outermost one the executor may run atomically, see CompoundInstance); -1 for none.
  int compound = -1;

  const ArgValue* Arg(std::string_view name) const;  // nullptr when absent
};

// One expanded invocation of a standard-library compound fragment that has an atomic kernel
// (kAtomicCompounds in expand.cc: sigmoid, tanh, softplus, elu, relu, leaky_relu, prelu,
// softmax). Chapter 4.9 lets such a compound "be implemented as atomic operations or as a sequence
// of primitives that are mathematically equivalent": the parser always expands it (its primitives
// are in FlatGraph::ops, tagged with Invocation::compound), and the executor may run the group as
// one exact kernel instead. Only the outermost such compound is recorded (leaky_relu, not the
// prelu it calls).
struct CompoundInstance {
  std::string name;                 // "tanh"
  NnefOp id = NnefOp::kTanh;        // the compound (NnefFamily::kCompound)
  std::vector<NamedValue> args;     // every parameter, defaults substituted (as Invocation::args)
  std::vector<NamedValue> results;  // every result (tensor identifiers, after renaming)
  SourcePos pos;                    // the document position the compound was invoked from
  size_t first_op = 0;              // its primitives are FlatGraph::ops[first_op, end_op)
  size_t end_op = 0;

  const ArgValue* Arg(std::string_view param) const;  // nullptr when absent
};

// Every tensor of the graph, keyed by identifier.
struct TensorInfo {
  std::string name;
  TensorType dtype = TensorType::kScalar;
  Extents shape;            // propagated per chapter 4 (rank = size); valid if shape_known
  bool shape_known = true;  // false only downstream of custom operations
  int producer = -1;        // index into FlatGraph::ops
};

struct FlatGraph {
  std::string file;                     // the graph.nnef path the graph came from
  std::string version;                  // e.g. "1.0"
  std::vector<std::string> extensions;  // as declared
  std::string name;                     // graph name
  std::vector<std::string> inputs;      // graph parameters, in order (each an `external` result)
  std::vector<std::string> outputs;     // graph results, in order
  std::vector<Invocation> ops;          // primitive invocations in execution order
  std::map<std::string, TensorInfo> tensors;
  std::vector<CompoundInstance> compounds;  // the groups Invocation::compound refers to
  // Declarations (flat NNEF text) of the document's custom operations (fragments declared without
  // a body) that `ops` invoke; ToString prints them.
  std::vector<std::string> custom_declarations;
  std::vector<std::string> warnings;  // "file:line:col: warning: ..." (deprecated forms)

  const TensorInfo& Tensor(const std::string& id) const;  // throws std::out_of_range

  // The graph printed as a flat NNEF document (version, graph declaration, one primitive
  // invocation per line with every argument named except tensors). Parsing it again gives the
  // same FlatGraph (ops, shapes, attributes).
  std::string ToString() const;
};

}  // namespace nnref::nnef
