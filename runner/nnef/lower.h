// The lowering of a flattened NNEF graph (runner/nnef/ir.h) onto registered operators: the
// Executor's state while it builds its ref::Graph, and one member per NNEF primitive. Where a
// WebNN operator computes what the NNEF operation does, the lowering calls its builder (ops/*.h);
// the rest are the NNEF operator group of ops/ (ops/nnef_op_list.inc). NNEF's argument rules
// (chapter 4) are checked here first, in the spec's order. Split by concern:
//
//   executor.cc          the Executor API, Build (graph walk), operands, Define, the dispatch
//   lower_io.cc          external, constant, variable, update (4.1, 4.8)
//   lower_elementwise.cc unary, binary, select, the reductions, matmul, atomic compounds
//                        (4.2, 4.4, 4.7, 4.9)
//   lower_window.cc      the sliding windows, multilinear_upsample, the RoI operations (4.3, 4.6)
//   lower_shape.cc       reshape ... tile (4.5)
//
// Internal to runner/nnef.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "numerics/cast.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/nnef_window.h"
#include "runner/nnef/executor.h"

namespace nnref::nnef {

std::string ShapeText(const std::vector<int64_t>& s);  // "[1, 2]"
std::string LowerCase(std::string s);

struct Executor::Impl {
  Impl(const FlatGraph& g, std::string dir, const QuantFile* q, ExecutorOptions o)
      : graph(g),
        model_dir(std::move(dir)),
        quant(q),
        options(o),
        builder(BuilderLimits{16, o.max_tensor_bytes}) {}

  struct Value {
    Operand operand;
    TensorType type = TensorType::kScalar;
  };
  struct Var {
    std::string label;
    std::string input;  // the ref::Graph input fed with the value
    TensorType type = TensorType::kScalar;
    Tensor value;
    Operand operand;
  };

  const FlatGraph& graph;
  std::string model_dir;
  const QuantFile* quant;
  ExecutorOptions options;
  GraphBuilder builder;
  std::shared_ptr<const Graph> built;

  std::map<std::string, Value> tensors;                                 // identifier -> value
  std::map<uint32_t, std::pair<std::string, const Invocation*>> names;  // for traces
  // Operand id -> the invocation whose lowering created it (the check mode's NNEF terms).
  std::map<uint32_t, const Invocation*> created_by;
  std::map<std::string, Var> variables;                      // lower-case label -> variable
  std::map<std::string, std::string> variable_of;            // identifier -> variable key
  std::vector<std::pair<std::string, std::string>> updates;  // variable key, output name
  std::vector<std::pair<std::string, Operand>> outputs;      // ref::Graph outputs
  std::map<std::string, TensorType> output_types;
  const Invocation* current = nullptr;
  // Compound groups run atomically: the invocation standing for the compound (its name,
  // arguments, results and position) that errors and traces refer to.
  std::deque<Invocation> compound_ops;
  std::map<std::string, std::vector<size_t>> users;  // tensor identifier -> consuming op indices

  // ----- errors and attributes -------------------------------------------------------------

  [[noreturn]] void Fail(Stage stage, const std::string& message) const {
    throw NnefError(stage, current ? current->pos : SourcePos{graph.file, 0, 0},
                    (current ? current->op + ": " : std::string()) + message,
                    "NNEF 1.0.2 chapter 4");
  }
  [[noreturn]] void Invalid(const std::string& message) const { Fail(Stage::kValidate, message); }

  // Runs a WebNN builder method; its rejection (which the NNEF checks should have prevented) is
  // reported against the NNEF invocation.
  template <typename F>
  auto Web(F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const WebnnError& e) {
      Invalid(std::string("the reference kernel rejected the arguments: ") + e.what());
    }
  }

  const ArgValue& A(const char* name) const {
    const ArgValue* v = current->Arg(name);
    if (v == nullptr) Invalid(std::string("missing argument '") + name + "'");
    return *v;
  }
  int64_t Int(const char* name) const {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kInteger) Invalid(std::string(name) + " must be an integer");
    return v.i;
  }
  bool Logical(const char* name) const {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kLogical) Invalid(std::string(name) + " must be a logical");
    return v.b;
  }
  std::string Str(const char* name) const {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kString) Invalid(std::string(name) + " must be a string");
    return v.str;
  }
  std::vector<int64_t> Ints(const char* name) const {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kArray) Invalid(std::string(name) + " must be an array");
    std::vector<int64_t> out;
    for (const ArgValue& item : v.items) {
      if (item.kind != ArgValue::Kind::kInteger) {
        Invalid(std::string(name) + " must be an array of integers");
      }
      out.push_back(item.i);
    }
    return out;
  }
  std::vector<std::pair<int64_t, int64_t>> Pairs(const char* name) const {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kArray) Invalid(std::string(name) + " must be an array");
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const ArgValue& item : v.items) {
      if (item.kind != ArgValue::Kind::kTuple || item.items.size() != 2 ||
          item.items[0].kind != ArgValue::Kind::kInteger ||
          item.items[1].kind != ArgValue::Kind::kInteger) {
        Invalid(std::string(name) + " must be an array of (integer, integer) tuples");
      }
      out.emplace_back(item.items[0].i, item.items[1].i);
    }
    return out;
  }
  static float ScalarOf(const ArgValue& v) {
    if (v.kind == ArgValue::Kind::kInteger) return CastElement<float>(v.i).value;
    if (!v.text.empty()) return std::strtof(v.text.c_str(), nullptr);  // one rounding
    return RoundTo<float>(v.s);
  }
  Border BorderArg(std::initializer_list<Border> allowed) const {
    const std::string name = Str("border");
    const std::optional<Border> b = ParseBorder(name);
    if (!b || std::find(allowed.begin(), allowed.end(), *b) == allowed.end()) {
      std::string list;
      for (Border a : allowed)
        list += (list.empty() ? "'" : ", '") + std::string(BorderName(a)) + "'";
      Invalid("border '" + name + "' is not one of " + list);
    }
    return *b;
  }
  std::string Result(size_t k = 0) const {
    if (k >= current->results.size() || !current->results[k].value.is_tensor()) {
      Invalid("result " + std::to_string(k) + " is not a single tensor");
    }
    return current->results[k].value.str;
  }
  const Shape& S(const Value& v) const { return builder.Desc(v.operand).shape; }
  DataType D(const Value& v) const { return builder.Desc(v.operand).dataType; }

  // ----- executor.cc: operands, results, arguments ----------------------------------------

  // A tensor argument: a graph tensor, or a literal as a constant of shape [] (chapter 3.3.1).
  Value TensorOf(const ArgValue& v, TensorType want);
  Value Arg(const char* name, TensorType want = TensorType::kScalar) {
    return TensorOf(A(name), want);
  }
  std::vector<Value> TensorList(const char* name);
  std::vector<std::string> ResultList() const;
  Shape ShapeArg(const char* name);
  std::vector<size_t> AxesArg(const char* name, size_t rank);
  size_t AxisArg(const char* name, size_t limit) const;
  // `v` reshaped (WebNN reshape; no node when the shape is already `shape`).
  Operand Reshaped(const Value& v, const Shape& shape);
  // NNEF broadcasting extends shapes with trailing singleton dimensions (chapter 2.2).
  Operand AlignRank(const Value& v, size_t rank);
  void CheckBroadcast(const std::vector<Value>& vs) const;
  // Registers a result: checks it against the parser's shape propagation, applies a graph.quant
  // quantization, and names it for traces.
  void Define(const std::string& id, Operand op, TensorType type);
  // An identity node (WebNN identity) for graph outputs that are not operator outputs, copy and
  // update.
  Operand Copy(const Operand& o);

  void Build();
  void Uses(const ArgValue& v, size_t op);
  void Op(const Invocation& inv);

  // ----- lower_io.cc (4.1, 4.8) -------------------------------------------------------------
  void External();
  void Constant();
  void Variable();
  void Update();

  // ----- lower_elementwise.cc (4.2, 4.4, 4.7, 4.9) ------------------------------------------
  // An element-wise primitive (4.2), a reduction (4.4) or matmul (4.7).
  void Elementwise(NnefOp op);
  void Binary(BinaryOp op);
  void Comparison(LogicalOp op);
  void Select();
  void Reduction(NnefOp op);
  Operand Transposed(const Value& v);
  void Matmul();
  // A compound group run atomically (chapter 4.9); false (nothing built) when it runs as its
  // primitives.
  bool Compound(const CompoundInstance& c);

  // ----- lower_window.cc (4.3, 4.6) ---------------------------------------------------------
  void CheckWork(const Shape& out, const std::vector<WindowAxis>& axes, uint64_t extra = 1);
  // The window over the axes [first, rank) of `in` from the invocation's size, stride, dilation,
  // padding (and output_shape for reverse operations), resolved by the geometry of shape
  // propagation (ResolveWindowAxis, shapes.h). Sets `out` to the output extents of those axes.
  std::vector<WindowAxis> Window(const Shape& in, size_t first, const std::vector<int64_t>& size,
                                 bool reverse, const std::vector<int64_t>& output_shape,
                                 std::vector<uint64_t>& out);
  void Conv(bool deconv);
  void Box(bool debox);
  void ArgmaxPool();
  void Sample();
  void Desample();
  void Upsample();
  std::vector<int64_t> RoiChecks(const Value& x, const Value& rois, const Value& bi);
  void RoiPool(bool max);
  void RoiResample();

  // ----- lower_shape.cc (4.5) ---------------------------------------------------------------
  void ReshapeOp();
  void Squeeze();
  void Unsqueeze();
  void Transpose();
  void Split();
  // WebNN split of `x` along `axis` into parts of `sizes` (slices beyond WebNN's tensor count).
  std::vector<Operand> SplitParts(const Value& x, size_t axis, const std::vector<uint32_t>& sizes);
  Operand ConcatOf(const std::vector<Value>& vs, size_t axis);
  void Concat();
  void Stack();
  void Unstack();
  void SliceOp();
  void Pad();
  void TileOp();
};

}  // namespace nnref::nnef
