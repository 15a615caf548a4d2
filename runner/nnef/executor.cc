// Execution of a flattened NNEF graph; see executor.h. Every primitive of NNEF 1.0.2 chapter 4 is
// mapped here, in the order of the chapter, to a WebNN builder method of ops/ (where NNEF and WebNN
// agree) or an NNEF kernel of runner/nnef/kernels.h.
#include "runner/nnef/executor.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <set>

#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/resample2d.h"
#include "ops/softmax.h"
#include "ops/tolerance_table.h"
#include "runner/nnef/kernels.h"
#include "runner/nnef/tensor_file.h"

namespace nnref::nnef {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + "]";
}

// Shapes equal up to trailing singleton dimensions (chapter 2.2: those are irrelevant).
bool SameUpToTrailingOnes(Shape a, Shape b) {
  while (!a.empty() && a.back() == 1) a.pop_back();
  while (!b.empty() && b.back() == 1) b.pop_back();
  return a == b;
}

struct UnaryEntry {
  const char* nnef;
  UnaryOp op;
};
constexpr UnaryEntry kUnary[] = {
    {"neg", UnaryOp::kNeg},   {"rcp", UnaryOp::kReciprocal}, {"exp", UnaryOp::kExp},
    {"log", UnaryOp::kLog},   {"sin", UnaryOp::kSin},        {"cos", UnaryOp::kCos},
    {"abs", UnaryOp::kAbs},   {"sign", UnaryOp::kSign},      {"floor", UnaryOp::kFloor},
    {"ceil", UnaryOp::kCeil},
};

struct BinaryEntry {
  const char* nnef;
  BinaryOp op;
};
constexpr BinaryEntry kBinary[] = {{"add", BinaryOp::kAdd},
                                   {"sub", BinaryOp::kSub},
                                   {"mul", BinaryOp::kMul},
                                   {"div", BinaryOp::kDiv},
                                   {"pow", BinaryOp::kPow}};

struct LogicalEntry {
  const char* nnef;
  LogicalOp op;
};
constexpr LogicalEntry kLogical[] = {
    {"lt", LogicalOp::kLesser},        {"gt", LogicalOp::kGreater},
    {"le", LogicalOp::kLesserOrEqual}, {"ge", LogicalOp::kGreaterOrEqual},
    {"eq", LogicalOp::kEqual},         {"ne", LogicalOp::kNotEqual},
    {"and", LogicalOp::kLogicalAnd},   {"or", LogicalOp::kLogicalOr},
};

// The row of the default tolerance table (ops/tolerance_table.cc) that judges an NNEF kernel: the
// WebNN operator with the same numerics. Sizes: window volume for conv/deconv/box, the number of
// interpolated terms for the resamplings.
OpId TableRowOf(OpId op) {
  switch (op) {
#define NNREF_NNEF_OP(name, row) \
  case OpId::nnef_##name:        \
    return OpId::row;
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
    default:
      return op;  // reshape, transpose, slice, concat, split, pad, tile, elu: their own rows
  }
}

}  // namespace

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

  // ----- operands ---------------------------------------------------------------------------

  const Shape& S(const Value& v) const { return builder.Desc(v.operand).shape; }
  DataType D(const Value& v) const { return builder.Desc(v.operand).dataType; }

  // A tensor argument: a graph tensor, or a literal as a constant of shape [] (chapter 3.3.1).
  Value TensorOf(const ArgValue& v, TensorType want) {
    if (v.kind == ArgValue::Kind::kTensor) {
      const auto it = tensors.find(v.str);
      if (it == tensors.end()) Invalid("tensor '" + v.str + "' is not defined");
      return it->second;
    }
    TensorType type = want;
    if (v.kind == ArgValue::Kind::kLogical) type = TensorType::kLogical;
    if (v.kind == ArgValue::Kind::kScalar) type = TensorType::kScalar;
    if (v.kind == ArgValue::Kind::kInteger && want != TensorType::kScalar) {
      type = TensorType::kInteger;
    }
    if (v.kind != ArgValue::Kind::kScalar && v.kind != ArgValue::Kind::kInteger &&
        v.kind != ArgValue::Kind::kLogical) {
      Invalid("expected a tensor or a literal, found " + v.ToString());
    }
    Tensor t = Tensor::Allocate(StorageTypeOf(type), {});
    if (type == TensorType::kScalar) {
      t.base<float>()[0] = ScalarOf(v);
    } else if (type == TensorType::kInteger) {
      t.base<int64_t>()[0] = v.i;
    } else {
      t.base<uint8_t>()[0] = v.b ? 1 : 0;
    }
    return {builder.Constant({t.dtype(), {}}, t), type};
  }
  Value Arg(const char* name, TensorType want = TensorType::kScalar) {
    return TensorOf(A(name), want);
  }

  // `size` is the ToleranceQuery size of the WebNN row the node is judged by (see TableRowOf).
  std::vector<Operand> Node(OpId op, const std::vector<Operand>& ins,
                            std::shared_ptr<Kernel> kernel, std::vector<OperandDescriptor> outs,
                            uint64_t size = 0) {
    OperatorNode n;
    n.op = op;
    for (const Operand& o : ins) n.inputs.push_back(o.id);
    n.kernel = std::move(kernel);
    n.tolerance =
        ToleranceQuery{TableRowOf(op), outs.empty() ? DataType::kFloat32 : outs[0].dataType, size};
    return Web([&] { return builder.AddOperator(std::move(n), std::move(outs)); });
  }
  Operand Node1(OpId op, const std::vector<Operand>& ins, std::shared_ptr<Kernel> kernel,
                OperandDescriptor out, uint64_t size = 0) {
    return Node(op, ins, std::move(kernel), {std::move(out)}, size)[0];
  }

  Operand Reshaped(const Value& v, const Shape& shape) {
    if (S(v) == shape) return v.operand;
    return Node1(OpId::reshape, {v.operand}, MakeReshapeKernel(shape), {D(v), shape});
  }
  // NNEF broadcasting extends shapes with trailing singleton dimensions (chapter 2.2).
  Operand AlignRank(const Value& v, size_t rank) {
    Shape s = S(v);
    if (s.size() >= rank) return v.operand;
    s.resize(rank, 1);
    return Reshaped(v, s);
  }
  void CheckBroadcast(const std::vector<Value>& vs) const {
    size_t rank = 0;
    for (const Value& v : vs) rank = std::max(rank, S(v).size());
    for (size_t k = 0; k < rank; ++k) {
      uint64_t extent = 1;
      for (const Value& v : vs) {
        const uint64_t e = k < S(v).size() ? S(v)[k] : 1;
        if (e != 1 && extent != 1 && e != extent) {
          std::string shapes;
          for (const Value& w : vs) shapes += (shapes.empty() ? "" : " and ") + ShapeToString(S(w));
          Invalid("shapes " + shapes + " do not broadcast: dimension " + std::to_string(k) +
                  " has extents " + std::to_string(extent) + " and " + std::to_string(e));
        }
        if (e != 1) extent = e;
      }
    }
  }

  // Registers a result: checks it against the parser's shape propagation, applies a graph.quant
  // quantization, and names it for traces.
  void Define(const std::string& id, Operand op, TensorType type) {
    const Shape& shape = builder.Desc(op).shape;
    const auto it = graph.tensors.find(id);
    if (it != graph.tensors.end() && it->second.dtype != type) {
      Fail(Stage::kExecute, "the executor computes a tensor<" + std::string(TensorTypeName(type)) +
                                "> for '" + id + "' but the graph types it tensor<" +
                                std::string(TensorTypeName(it->second.dtype)) +
                                "> (internal disagreement)");
    }
    if (it != graph.tensors.end() && it->second.shape_known) {
      const Shape want(it->second.shape.begin(), it->second.shape.end());
      if (want != shape) {
        Fail(Stage::kExecute, "the executor computes shape " + ShapeToString(shape) + " for '" +
                                  id + "' but the graph propagates " + ShapeText(it->second.shape) +
                                  " (internal disagreement)");
      }
    }
    if (quant != nullptr) {
      if (const QuantEntry* e = quant->Find(id)) {
        if (type != TensorType::kScalar) {
          throw NnefError(Stage::kQuantFile, e->pos,
                          "tensor '" + id + "' is a tensor<" + std::string(TensorTypeName(type)) +
                              ">; only scalar tensors can be quantized",
                          "NNEF 1.0.2 chapter 7");
        }
        const Quantizer q = MakeQuantizer(e->algorithm);
        names[op.id.value] = {id + " (before quantization)", current};
        op = Node1(OpId::nnef_quantize, {op}, MakeQuantizeKernel(q), builder.Desc(op));
      }
    }
    tensors[id] = {op, type};
    names[op.id.value] = {id, current};
  }

  // ----- window geometry (chapter 4.3) ------------------------------------------------------

  void CheckWork(const Shape& out, const std::vector<WindowAxis>& axes, uint64_t extra = 1) {
    unsigned __int128 terms = ElementCount(out);
    terms *= extra;
    for (const WindowAxis& a : axes) {
      terms *= static_cast<uint64_t>(a.size);
      if (terms > options.max_window_terms) break;
    }
    if (terms > options.max_window_terms) {
      Invalid("the window sums more than " + std::to_string(options.max_window_terms) +
              " terms (output " + ShapeToString(out) + "), beyond what the reference computes");
    }
  }

  // The axes of a sliding window over `rank` axes from size/stride/dilation/padding. A `size`
  // shorter than the rank applies to the trailing axes (the reading that makes the spec's
  // avg_roi_align/max_roi_align compounds valid); the leading axes get a trivial window.
  // `padded` tells whether padding was given (else it is automatic).
  std::vector<WindowAxis> Window(size_t rank, const std::vector<int64_t>& size, bool& padded) {
    if (size.empty() || size.size() > rank) {
      Invalid("size has " + std::to_string(size.size()) + " items for a tensor of rank " +
              std::to_string(rank));
    }
    const std::vector<int64_t> stride = Ints("stride"), dilation = Ints("dilation");
    const std::vector<std::pair<int64_t, int64_t>> padding = Pairs("padding");
    const size_t n = size.size(), lead = rank - n;
    const auto check_len = [&](size_t len, const char* what) {
      if (len != 0 && len != n) {
        Invalid(std::string(what) + " has " + std::to_string(len) + " items; expected 0 or " +
                std::to_string(n));
      }
    };
    check_len(stride.size(), "stride");
    check_len(dilation.size(), "dilation");
    check_len(padding.size(), "padding");
    std::vector<WindowAxis> axes(rank);
    for (size_t k = 0; k < n; ++k) {
      WindowAxis& a = axes[lead + k];
      a.size = size[k];
      if (!stride.empty()) a.stride = stride[k];
      if (!dilation.empty()) a.dilation = dilation[k];
      if (!padding.empty()) {
        a.pad_front = padding[k].first;
        a.pad_back = padding[k].second;
      }
      if (a.size <= 0) Invalid("size items must be positive");
      if (a.stride <= 0) Invalid("stride items must be positive");
      if (a.dilation <= 0) Invalid("dilation items must be positive");
    }
    padded = !padding.empty();
    return axes;
  }

  // Output extents of a basic operation (input extents X), resolving automatic padding.
  Shape Downscale(std::vector<WindowAxis>& axes, const Shape& up, bool padded) {
    Shape down(axes.size());
    for (size_t k = 0; k < axes.size(); ++k) {
      if (!padded) AutoPad(axes[k], static_cast<int64_t>(up[k]));
      const std::optional<int64_t> x = DownscaledExtent(static_cast<int64_t>(up[k]), axes[k]);
      if (!x) {
        Invalid("axis " + std::to_string(k) + ": the padded extent " +
                std::to_string(axes[k].pad_front + static_cast<int64_t>(up[k]) + axes[k].pad_back) +
                " is smaller than the dilated window " + std::to_string(axes[k].DilatedSize()));
      }
      down[k] = static_cast<uint64_t>(*x);
    }
    return down;
  }

  // Output extents of a reverse operation (input extents x): output_shape when given (it must
  // down-scale to x; automatic padding is computed for it); else X = (x - 1) * s + f_d - (p + q),
  // where automatic padding is the one computed for an up-scaled extent of x * s (the reading the
  // parser's shape propagation shares).
  Shape Upscale(std::vector<WindowAxis>& axes, const Shape& down, bool padded,
                const std::vector<int64_t>& output_shape, size_t first) {
    Shape up(axes.size());
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t X;
      const auto x = static_cast<int64_t>(down[k]);
      if (!output_shape.empty()) {
        X = output_shape[first + k];
        if (!padded) AutoPad(axes[k], X);
      } else {
        if (!padded) AutoPad(axes[k], x * axes[k].stride);
        X = UpscaledExtent(x, axes[k]);
      }
      if (X <= 0) {
        Invalid("axis " + std::to_string(k) + ": the output extent " + std::to_string(X) +
                " is not positive");
      }
      if (!output_shape.empty() && DownscaledExtent(X, axes[k]) != x) {
        Invalid("output_shape " + ShapeText(output_shape) +
                " does not down-scale to the input "
                "extent " +
                std::to_string(x) + " on axis " + std::to_string(first + k));
      }
      up[k] = static_cast<uint64_t>(X);
    }
    return up;
  }

  // ----- operations -------------------------------------------------------------------------

  void Build() {
    for (size_t i = 0; i < graph.ops.size(); ++i) {
      for (const NamedValue& a : graph.ops[i].args) Uses(a.value, i);
    }
    for (size_t i = 0; i < graph.ops.size(); ++i) {
      const Invocation& inv = graph.ops[i];
      if (inv.compound >= 0 && static_cast<size_t>(inv.compound) < graph.compounds.size()) {
        const CompoundInstance& c = graph.compounds[static_cast<size_t>(inv.compound)];
        if (i == c.first_op && c.end_op > i && c.end_op <= graph.ops.size() && Compound(c)) {
          i = c.end_op - 1;
          continue;
        }
      }
      current = &inv;
      Op(inv);
    }
    current = nullptr;
    if (quant != nullptr) {
      for (const QuantEntry& e : quant->entries) {
        if (graph.tensors.find(e.tensor) == graph.tensors.end()) {
          throw NnefError(Stage::kQuantFile, e.pos,
                          "'" + e.tensor + "' is not a tensor identifier of the graph",
                          "NNEF 1.0.2 section 5.3");
        }
      }
    }
    for (const std::string& id : graph.outputs) {
      const auto it = tensors.find(id);
      if (it == tensors.end()) {
        Fail(Stage::kValidate, "graph output '" + id + "' is never assigned");
      }
      Operand o = it->second.operand;
      if (builder.Node(o.id).kind != OperandNode::Kind::kOperatorOutput) {
        o = Node1(OpId::nnef_copy, {o}, MakeCopyKernel(), builder.Desc(o));
      }
      outputs.emplace_back(id, o);
      output_types[id] = it->second.type;
    }
    built = Web([&] { return builder.Build(outputs); });
  }

  void Uses(const ArgValue& v, size_t op) {
    if (v.is_tensor()) users[v.str].push_back(op);
    for (const ArgValue& item : v.items) Uses(item, op);
  }

  static void TensorIds(const ArgValue& v, std::vector<std::string>& out) {
    if (v.is_tensor()) out.push_back(v.str);
    for (const ArgValue& item : v.items) TensorIds(item, out);
  }

  // Chapter 4.9: a compound "may be implemented as atomic operations". A group of primitives
  // expanded from sigmoid, tanh, softplus, elu or a single-axis softmax runs as one kernel that
  // computes the exact composition and rounds once (docs/numerics.md), instead of rounding every
  // primitive to float32 (where tanh(100) = Inf / Inf). Only when the group's intermediate
  // tensors are internal: no graph output, no graph.quant entry, no use outside the group.
  // relu, leaky_relu and prelu stay expanded: their primitives are already exact (a comparison,
  // one product, a selection), and the WebNN kernels differ from the select: relu(NaN) is 0 in
  // NNEF but NaN marked open in WebNN; prelu(-0) is -0 in NNEF, +0 in WebNN. elu runs on an NNEF
  // kernel (expm1, rounded once) for the same -0 reason. Returns false (nothing built) when the
  // group runs as primitives.
  bool Compound(const CompoundInstance& c) {
    static const std::set<std::string, std::less<>> kAtomic = {"sigmoid", "tanh", "softplus", "elu",
                                                               "softmax"};
    if (kAtomic.count(c.name) == 0 || c.results.size() != 1 || !c.results[0].value.is_tensor()) {
      return false;
    }
    const std::string& result = c.results[0].value.str;
    bool produced = false;
    for (size_t i = c.first_op; i < c.end_op; ++i) {
      const Invocation& inv = graph.ops[i];
      if (inv.custom || inv.compound != graph.ops[c.first_op].compound) return false;
      std::vector<std::string> ids;
      for (const NamedValue& r : inv.results) TensorIds(r.value, ids);
      for (const std::string& id : ids) {
        if (id == result) {
          produced = true;
          continue;
        }
        if (std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end()) {
          return false;
        }
        if (quant != nullptr && quant->Find(id) != nullptr) return false;
        const auto u = users.find(id);
        if (u == users.end()) continue;
        for (size_t k : u->second) {
          if (k < c.first_op || k >= c.end_op) return false;
        }
      }
    }
    const auto info = graph.tensors.find(result);
    if (!produced || info == graph.tensors.end() || info->second.dtype != TensorType::kScalar) {
      return false;
    }
    const ArgValue* x = nullptr;
    for (const NamedValue& a : c.args) {
      if (a.name == "x") x = &a.value;
    }
    if (x == nullptr) return false;
    if (x->is_tensor()) {
      const auto t = tensors.find(x->str);
      if (t == tensors.end() || t->second.type != TensorType::kScalar) return false;
    } else if (x->kind != ArgValue::Kind::kScalar && x->kind != ArgValue::Kind::kInteger) {
      return false;
    }
    std::optional<uint32_t> axis;
    if (c.name == "softmax") {
      const ArgValue* axes = nullptr;
      for (const NamedValue& a : c.args) {
        if (a.name == "axes") axes = &a.value;
      }
      if (axes == nullptr || axes->kind != ArgValue::Kind::kArray || axes->items.size() != 1 ||
          axes->items[0].kind != ArgValue::Kind::kInteger || !x->is_tensor()) {
        return false;  // several axes (or none): the primitives
      }
      const int64_t a = axes->items[0].i;
      if (a < 0 || static_cast<size_t>(a) >= S(tensors.at(x->str)).size()) return false;
      axis = static_cast<uint32_t>(a);
    } else if (c.args.size() != 1) {
      return false;  // parameters the kernels do not take
    }
    Invocation& inv = compound_ops.emplace_back();
    inv.op = c.name;
    inv.args = c.args;
    inv.results = c.results;
    inv.pos = c.pos;
    inv.compound = graph.ops[c.first_op].compound;
    current = &inv;
    const Value v = TensorOf(*x, TensorType::kScalar);
    Operand y{};
    if (c.name == "sigmoid") {
      y = Web([&] { return Sigmoid(builder, v.operand); });
    } else if (c.name == "tanh") {
      y = Web([&] { return Tanh(builder, v.operand); });
    } else if (c.name == "softplus") {
      y = Web([&] { return Softplus(builder, v.operand); });
    } else if (c.name == "elu") {
      // NNEF elu has no alpha (WebNN elu with alpha 1) but keeps -0 and NaN as its select does.
      y = Node1(OpId::elu, {v.operand}, MakeEluKernel(), builder.Desc(v.operand));
    } else {
      y = Web([&] { return Softmax(builder, v.operand, *axis); });
    }
    Define(result, y, TensorType::kScalar);
    current = nullptr;
    return true;
  }

  void Op(const Invocation& inv) {
    const std::string& op = inv.op;
    if (inv.custom) {
      Fail(Stage::kExecute, "operation '" + op +
                                "' is declared without a body and is not an NNEF primitive, so "
                                "it has no semantics to execute");
    }
    for (const UnaryEntry& e : kUnary) {
      if (op == e.nnef) {
        const Value x = Arg("x");
        return Define(Result(), Web([&] { return ElementwiseUnary(builder, e.op, x.operand); }),
                      TensorType::kScalar);
      }
    }
    for (const BinaryEntry& e : kBinary) {
      if (op == e.nnef) return Binary(e.op);
    }
    for (const LogicalEntry& e : kLogical) {
      if (op == e.nnef) return Comparison(e.op);
    }
    if (op == "external") return External();
    if (op == "constant") return Constant();
    if (op == "variable") return Variable();
    if (op == "copy") {
      const Value x = Arg("x", inv.dtype);
      return Define(Result(),
                    Node1(OpId::nnef_copy, {x.operand}, MakeCopyKernel(), builder.Desc(x.operand)),
                    x.type);
    }
    if (op == "not") {
      const Value x = Arg("x", TensorType::kLogical);
      return Define(Result(), Web([&] {
                      return ElementwiseLogical(builder, LogicalOp::kLogicalNot, x.operand,
                                                std::nullopt);
                    }),
                    TensorType::kLogical);
    }
    if (op == "round") {
      const Value x = Arg("x");
      return Define(
          Result(),
          Node1(OpId::nnef_round, {x.operand}, MakeRoundKernel(), builder.Desc(x.operand)),
          TensorType::kScalar);
    }
    if (op == "select") return Select();
    if (op == "conv") return Conv(false);
    if (op == "deconv") return Conv(true);
    if (op == "box") return Box(false);
    if (op == "debox") return Box(true);
    if (op == "argmax_pool") return ArgmaxPool();
    if (op == "sample") return Sample();
    if (op == "desample") return Desample();
    if (op == "multilinear_upsample") return Upsample();
    if (op == "sum_reduce" || op == "max_reduce" || op == "min_reduce" || op == "argmax_reduce" ||
        op == "argmin_reduce" || op == "all_reduce" || op == "any_reduce") {
      return Reduction(op);
    }
    if (op == "reshape") return ReshapeOp();
    if (op == "squeeze") return Squeeze();
    if (op == "unsqueeze") return Unsqueeze();
    if (op == "transpose") return Transpose();
    if (op == "split") return Split();
    if (op == "concat") return Concat();
    if (op == "stack") return Stack();
    if (op == "unstack") return Unstack();
    if (op == "slice") return SliceOp();
    if (op == "pad") return Pad();
    if (op == "tile") return TileOp();
    if (op == "avg_roi_pool") return RoiPool(false);
    if (op == "max_roi_pool") return RoiPool(true);
    if (op == "roi_resample") return RoiResample();
    if (op == "matmul") return Matmul();
    if (op == "update") return Update();
    Fail(Stage::kExecute, "'" + op + "' is not a primitive of NNEF 1.0.2 chapter 4");
  }

  Shape ShapeArg(const char* name) {
    Shape s;
    for (int64_t e : Ints(name)) {
      if (e <= 0) Invalid(std::string(name) + " items must be positive, not " + std::to_string(e));
      s.push_back(static_cast<uint64_t>(e));
    }
    return s;
  }

  // 4.1.1
  void External() {
    const std::string id = Result();
    const OperandDescriptor desc{StorageTypeOf(current->dtype), ShapeArg("shape")};
    const Operand o = Web([&] { return builder.Input(id, desc); });
    Define(id, o, current->dtype);
  }

  // 4.1.2
  void Constant() {
    const TensorType type = current->dtype;
    const OperandDescriptor desc{StorageTypeOf(type), ShapeArg("shape")};
    Web([&] {
      CheckDimensions(desc, builder.limits(), "constant");
      return 0;
    });
    const ArgValue& value = A("value");
    if (value.kind != ArgValue::Kind::kArray) Invalid("value must be an array");
    const uint64_t count = desc.ElementCount();
    if (value.items.size() != 1 && value.items.size() != count) {
      Invalid("value has " + std::to_string(value.items.size()) + " items; the shape " +
              ShapeToString(desc.shape) + " needs " + std::to_string(count) + " (or 1)");
    }
    Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
    for (uint64_t i = 0; i < count; ++i) {
      const ArgValue& v = value.items[value.items.size() == 1 ? 0 : i];
      switch (type) {
        case TensorType::kScalar:
          if (v.kind != ArgValue::Kind::kScalar && v.kind != ArgValue::Kind::kInteger) {
            Invalid("value items must be scalars");
          }
          t.base<float>()[i] = ScalarOf(v);
          break;
        case TensorType::kInteger:
          if (v.kind != ArgValue::Kind::kInteger) Invalid("value items must be integers");
          t.base<int64_t>()[i] = v.i;
          break;
        case TensorType::kLogical:
          if (v.kind != ArgValue::Kind::kLogical) Invalid("value items must be logicals");
          t.base<uint8_t>()[i] = v.b ? 1 : 0;
          break;
        default:
          Invalid("constants of type " + std::string(TensorTypeName(type)) + " are not supported");
      }
    }
    Define(Result(), Web([&] { return builder.Constant(desc, t); }), type);
  }

  // 4.1.3: data from <model dir>/<label>.dat (chapter 5.1); the same label (case-insensitive)
  // shares the data.
  void Variable() {
    const std::string id = Result();
    const TensorType type = current->dtype;
    const Shape shape = ShapeArg("shape");
    const std::string label = Str("label");
    const std::string key = Lower(label);
    const OperandDescriptor desc{StorageTypeOf(type), shape};
    auto it = variables.find(key);
    if (it == variables.end()) {
      if (label.empty()) Invalid("label must not be empty");
      for (char c : label) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
            c != '/' && c != '\\') {
          Invalid("label '" + label + "' contains '" + std::string(1, c) +
                  "' (allowed: [a-zA-Z0-9_-./\\])");
        }
      }
      std::string rel = label;
      std::replace(rel.begin(), rel.end(), '\\', '/');
      for (const auto& part : std::filesystem::path(rel)) {
        if (part == "..") Invalid("label '" + label + "' leaves the model folder");
      }
      if (!rel.empty() && rel[0] == '/') Invalid("label '" + label + "' is an absolute path");
      const std::string path = (std::filesystem::path(model_dir) / (rel + ".dat")).string();
      const TensorFile f = ReadTensorFile(path, options.max_tensor_bytes);
      if (!SameUpToTrailingOnes(f.header.shape, shape)) {
        throw NnefError(Stage::kTensorFile, {path, 0, 0},
                        "the stored shape " + ShapeToString(f.header.shape) +
                            " conflicts with the shape " + ShapeToString(shape) + " of variable '" +
                            label + "' (" + id + ", line " + std::to_string(current->pos.line) +
                            ")",
                        "NNEF 1.0.2 chapter 6, step 4");
      }
      const QuantEntry* qe = quant ? quant->Find(id) : nullptr;
      Tensor value =
          DecodeTensorFile(f, type, qe ? &qe->algorithm : nullptr, path, options.max_tensor_bytes)
              .WithShape(shape);
      Var v{label, "variable:" + key, type, std::move(value), {}};
      v.operand = Web([&] { return builder.Input(v.input, desc); });
      it = variables.emplace(key, std::move(v)).first;
    } else if (it->second.value.shape() != shape || it->second.type != type) {
      Invalid("variable '" + label + "' is declared again with shape " + ShapeToString(shape) +
              " but label '" + it->second.label + "' has shape " +
              ShapeToString(it->second.value.shape()));
    }
    variable_of[id] = key;
    Define(id, it->second.operand, type);
  }

  // 4.8
  void Update() {
    const ArgValue& var = A("variable");
    if (!var.is_tensor() || variable_of.find(var.str) == variable_of.end()) {
      Invalid("the first argument must be a variable tensor, not " + var.ToString());
    }
    const std::string key = variable_of.at(var.str);
    for (const auto& u : updates) {
      if (u.first == key) Invalid("variable '" + variables.at(key).label + "' is updated twice");
    }
    const Var& v = variables.at(key);
    const Value value = Arg("value", v.type);
    if (S(value) != v.value.shape() || value.type != v.type) {
      Invalid("the value " + ShapeToString(S(value)) + " does not match the variable's shape " +
              ShapeToString(v.value.shape()));
    }
    const std::string id = Result();
    const Operand r =
        Node1(OpId::nnef_update, {value.operand}, MakeCopyKernel(), builder.Desc(value.operand));
    Define(id, r, v.type);
    const std::string name = "update:" + id;
    updates.emplace_back(key, name);
    outputs.emplace_back(name, r);
  }

  // 4.2.2
  void Binary(BinaryOp op) {
    const Value x = Arg("x"), y = Arg("y");
    CheckBroadcast({x, y});
    const size_t rank = std::max(S(x).size(), S(y).size());
    const Operand a = AlignRank(x, rank), b = AlignRank(y, rank);
    Define(Result(), Web([&] { return ElementwiseBinary(builder, op, a, b); }),
           TensorType::kScalar);
  }

  void Comparison(LogicalOp op) {
    const bool logical = op == LogicalOp::kLogicalAnd || op == LogicalOp::kLogicalOr;
    const TensorType t = logical ? TensorType::kLogical : TensorType::kScalar;
    const Value x = Arg("x", t), y = Arg("y", t);
    CheckBroadcast({x, y});
    const size_t rank = std::max(S(x).size(), S(y).size());
    const Operand a = AlignRank(x, rank), b = AlignRank(y, rank);
    Define(Result(), Web([&] { return ElementwiseLogical(builder, op, a, b); }),
           TensorType::kLogical);
  }

  // 4.2.3
  void Select() {
    const Value c = Arg("condition", TensorType::kLogical);
    const Value t = Arg("true_value", current->dtype), f = Arg("false_value", current->dtype);
    CheckBroadcast({c, t, f});
    if (t.type != f.type) Invalid("true_value and false_value have different types");
    const size_t rank = std::max({S(c).size(), S(t).size(), S(f).size()});
    const Operand oc = AlignRank(c, rank), ot = AlignRank(t, rank), of = AlignRank(f, rank);
    Define(Result(), Web([&] { return Where(builder, oc, ot, of); }), t.type);
  }

  // 4.3.1
  void Conv(bool deconv) {
    const Value x = Arg("input"), w = Arg("filter"), bias = Arg("bias");
    const Shape& xs = S(x);
    const Shape& ws = S(w);
    const size_t rank = xs.size();
    if (rank < 3) Invalid("the input has rank " + std::to_string(rank) + "; at least 3 needed");
    if (ws.size() != rank) {
      Invalid("the filter rank " + std::to_string(ws.size()) + " differs from the input rank " +
              std::to_string(rank));
    }
    const size_t m = rank - 2;
    const Border border =
        BorderArg({Border::kConstant, Border::kReplicate, Border::kReflect, Border::kReflectEven});
    const int64_t groups_arg = Int("groups");
    if (groups_arg < 0) Invalid("groups must be non-negative");
    const auto in_channels = static_cast<int64_t>(xs[1]);
    const int64_t groups = groups_arg == 0 ? in_channels : groups_arg;  // 0: depth-wise
    std::vector<int64_t> size(ws.begin() + 2, ws.end());
    bool padded = false;
    // The window is over the spatial axes only: build it for rank m.
    std::vector<WindowAxis> axes = Window(m, size, padded);
    int64_t out_channels;
    Shape spatial_in(xs.begin() + 2, xs.end()), out;
    if (!deconv) {
      if (static_cast<int64_t>(ws[1]) * groups != in_channels) {
        Invalid("the filter's channel extent " + std::to_string(ws[1]) + " times groups " +
                std::to_string(groups) + " must equal the input channels " +
                std::to_string(in_channels));
      }
      out_channels = static_cast<int64_t>(ws[0]);
      if (out_channels % groups != 0) {
        Invalid("groups " + std::to_string(groups) + " must divide the filter's batch extent " +
                std::to_string(out_channels));
      }
      out = Downscale(axes, spatial_in, padded);
    } else {
      if (static_cast<int64_t>(ws[0]) != in_channels || in_channels % groups != 0) {
        Invalid("the filter's batch extent " + std::to_string(ws[0]) +
                " must equal the input channels " + std::to_string(in_channels) +
                " and be divisible by groups " + std::to_string(groups));
      }
      out_channels = static_cast<int64_t>(ws[1]) * groups;
      const std::vector<int64_t> output_shape = Ints("output_shape");
      if (!output_shape.empty()) {
        if (output_shape.size() != rank) Invalid("output_shape must have one item per axis");
        if (output_shape[0] != static_cast<int64_t>(xs[0]) || output_shape[1] != out_channels) {
          Invalid("output_shape " + ShapeText(output_shape) + " disagrees with the batch " +
                  std::to_string(xs[0]) + " and channels " + std::to_string(out_channels));
        }
      }
      out = Upscale(axes, spatial_in, padded, output_shape, 2);
    }
    out.insert(out.begin(), {xs[0], static_cast<uint64_t>(out_channels)});
    // Bias: singular, or channel extent = output channels with every other extent 1.
    const Shape& bs = S(bias);
    const uint64_t bias_count = ElementCount(bs);
    const bool per_channel = bias_count != 1;
    if (per_channel) {
      bool ok = bs.size() >= 2 && bs[1] == static_cast<uint64_t>(out_channels) &&
                bias_count == static_cast<uint64_t>(out_channels);
      if (!ok) {
        Invalid("bias shape " + ShapeToString(bs) + " must be singular or [1, " +
                std::to_string(out_channels) + "]");
      }
    }
    CheckWork(out, axes, deconv ? static_cast<uint64_t>(in_channels / groups) : ws[1]);
    const ArgValue& bias_arg = A("bias");
    const bool zero_bias = !bias_arg.is_tensor() && ScalarOf(bias_arg) == 0.0f;
    bool webnn = rank == 4 && border == Border::kConstant && (zero_bias || per_channel);
    for (const WindowAxis& a : axes) webnn = webnn && a.pad_front >= 0 && a.pad_back >= 0;
    Operand result{};
    if (webnn) {
      // The WebNN kernels: same window sum (WindowSum) and bias inside the sum.
      const auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
      std::optional<Operand> b;
      if (per_channel) b = Reshaped(bias, {static_cast<uint64_t>(out_channels)});
      if (!deconv) {
        MLConv2dOptions o;
        o.padding = std::vector<uint32_t>{u32(axes[0].pad_front), u32(axes[0].pad_back),
                                          u32(axes[1].pad_front), u32(axes[1].pad_back)};
        o.strides = std::vector<uint32_t>{u32(axes[0].stride), u32(axes[1].stride)};
        o.dilations = std::vector<uint32_t>{u32(axes[0].dilation), u32(axes[1].dilation)};
        o.groups = u32(groups);
        o.bias = b;
        result = Web([&] { return Conv2d(builder, x.operand, w.operand, o); });
      } else {
        MLConvTranspose2dOptions o;
        o.padding = std::vector<uint32_t>{u32(axes[0].pad_front), u32(axes[0].pad_back),
                                          u32(axes[1].pad_front), u32(axes[1].pad_back)};
        o.strides = std::vector<uint32_t>{u32(axes[0].stride), u32(axes[1].stride)};
        o.dilations = std::vector<uint32_t>{u32(axes[0].dilation), u32(axes[1].dilation)};
        o.outputSizes =
            std::vector<uint32_t>{static_cast<uint32_t>(out[2]), static_cast<uint32_t>(out[3])};
        o.groups = u32(groups);
        o.bias = b;
        // WebNN limits the extra output size to less than the stride; NNEF does not (output_shape
        // or automatic padding can ask for more): such a deconv runs on the NNEF kernel.
        try {
          result = ConvTranspose2d(builder, x.operand, w.operand, o);
        } catch (const WebnnError&) {
          webnn = false;
        }
      }
      if (webnn && builder.Desc(result).shape != out) {
        Fail(Stage::kExecute, "the WebNN kernel's output shape " +
                                  ShapeToString(builder.Desc(result).shape) +
                                  " differs from NNEF's " + ShapeToString(out));
      }
    }
    if (!webnn) {
      result =
          Node1(deconv ? OpId::nnef_deconv : OpId::nnef_conv, {x.operand, w.operand, bias.operand},
                MakeConvKernel(deconv, axes, border, groups), {DataType::kFloat32, out},
                ElementCount(ws) / ws[0]);
    }
    Define(Result(), result, TensorType::kScalar);
  }

  // 4.3.2
  void Box(bool debox) {
    const Value x = Arg("input");
    const Shape& xs = S(x);
    bool padded = false;
    std::vector<WindowAxis> axes = Window(xs.size(), Ints("size"), padded);
    const Border border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate,
                                     Border::kReflect, Border::kReflectEven});
    const bool normalize = Logical("normalize");
    Shape out;
    if (!debox) {
      out = Downscale(axes, xs, padded);
    } else {
      const std::vector<int64_t> output_shape = Ints("output_shape");
      if (!output_shape.empty() && output_shape.size() != xs.size()) {
        Invalid("output_shape must have one item per axis");
      }
      out = Upscale(axes, xs, padded, output_shape, 0);
    }
    CheckWork(out, axes);
    // avg_pool (box normalized over the two trailing axes of a rank-4 tensor, padding excluded
    // from the average) is WebNN averagePool2d.
    bool webnn = !debox && normalize && xs.size() == 4;
    bool zero_pad = true;
    for (size_t k = 0; k < axes.size(); ++k) {
      const WindowAxis& a = axes[k];
      zero_pad = zero_pad && a.pad_front == 0 && a.pad_back == 0;
      webnn = webnn && a.dilation == 1 && a.pad_front >= 0 && a.pad_back >= 0 &&
              a.pad_front < a.size && a.pad_back < a.size;
      if (k < 2)
        webnn = webnn && a.size == 1 && a.stride == 1 && a.pad_front == 0 && a.pad_back == 0;
    }
    webnn = webnn && (border == Border::kIgnore || zero_pad);
    Operand result{};
    if (webnn) {
      const auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
      MLPool2dOptions o;
      o.windowDimensions = std::vector<uint32_t>{u32(axes[2].size), u32(axes[3].size)};
      o.padding = std::vector<uint32_t>{u32(axes[2].pad_front), u32(axes[2].pad_back),
                                        u32(axes[3].pad_front), u32(axes[3].pad_back)};
      o.strides = std::vector<uint32_t>{u32(axes[2].stride), u32(axes[3].stride)};
      result = Web([&] { return AveragePool2d(builder, x.operand, o); });
      if (builder.Desc(result).shape != out) {
        Fail(Stage::kExecute, "the WebNN kernel's output shape differs from NNEF's");
      }
    } else {
      uint64_t volume = 1;
      for (const WindowAxis& a : axes) volume *= static_cast<uint64_t>(a.size);
      result =
          Node1(debox ? OpId::nnef_debox : OpId::nnef_box, {x.operand},
                MakeBoxKernel(debox, axes, border, normalize), {DataType::kFloat32, out}, volume);
    }
    Define(Result(), result, TensorType::kScalar);
  }

  // 4.3.3
  void ArgmaxPool() {
    const Value x = Arg("input");
    bool padded = false;
    std::vector<WindowAxis> axes = Window(S(x).size(), Ints("size"), padded);
    const Border border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate,
                                     Border::kReflect, Border::kReflectEven});
    const Shape out = Downscale(axes, S(x), padded);
    CheckWork(out, axes);
    Define(Result(),
           Node1(OpId::nnef_argmax_pool, {x.operand}, MakeArgmaxPoolKernel(axes, border),
                 {DataType::kInt64, out}),
           TensorType::kInteger);
  }

  void Sample() {
    const Value x = Arg("input"), index = Arg("index", TensorType::kInteger);
    bool padded = false;
    std::vector<WindowAxis> axes = Window(S(x).size(), Ints("size"), padded);
    // 'ignore' arrives from max_pool(border = 'ignore') through max_pool_with_index: argmax_pool
    // never selects an ignored position, so it reads like 'constant'.
    const Border border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate,
                                     Border::kReflect, Border::kReflectEven});
    const Shape out = Downscale(axes, S(x), padded);
    if (S(index) != out || index.type != TensorType::kInteger) {
      Invalid("index " + ShapeToString(S(index)) +
              " must be an integer tensor of the output "
              "shape " +
              ShapeToString(out));
    }
    Define(Result(),
           Node1(OpId::nnef_sample, {x.operand, index.operand}, MakeSampleKernel(axes, border),
                 {DataType::kFloat32, out}),
           TensorType::kScalar);
  }

  void Desample() {
    const Value x = Arg("input"), index = Arg("index", TensorType::kInteger);
    bool padded = false;
    std::vector<WindowAxis> axes = Window(S(x).size(), Ints("size"), padded);
    BorderArg({Border::kConstant, Border::kIgnore});
    if (S(index) != S(x) || index.type != TensorType::kInteger) {
      Invalid("index " + ShapeToString(S(index)) +
              " must be an integer tensor of the input "
              "shape " +
              ShapeToString(S(x)));
    }
    const std::vector<int64_t> output_shape = Ints("output_shape");
    if (!output_shape.empty() && output_shape.size() != S(x).size()) {
      Invalid("output_shape must have one item per axis");
    }
    const Shape out = Upscale(axes, S(x), padded, output_shape, 0);
    Define(Result(),
           Node1(OpId::nnef_desample, {x.operand, index.operand}, MakeDesampleKernel(axes),
                 {DataType::kFloat32, out}),
           TensorType::kScalar);
  }

  // 4.3.4
  void Upsample() {
    const Value x = Arg("input");
    const Shape& xs = S(x);
    const std::vector<int64_t> factor = Ints("factor");
    if (xs.size() < 2 || factor.size() != xs.size() - 2) {
      Invalid("factor must have one item per spatial axis (" +
              std::to_string(xs.size() < 2 ? 0 : xs.size() - 2) + ")");
    }
    const std::optional<UpsampleMethod> method = ParseUpsampleMethod(Str("method"));
    if (!method) Invalid("method must be 'symmetric', 'asymmetric' or 'aligned'");
    const Border border =
        BorderArg({Border::kConstant, Border::kReplicate, Border::kReflect, Border::kReflectEven});
    Shape out = xs;
    for (size_t k = 0; k < factor.size(); ++k) {
      if (factor[k] <= 0) Invalid("factor items must be positive");
      out[k + 2] = xs[k + 2] * static_cast<uint64_t>(factor[k]);
    }
    Operand result{};
    if (xs.size() == 4 && *method == UpsampleMethod::kSymmetric && border == Border::kReplicate) {
      // WebNN resample2d linear: input coordinate (o + 0.5) / f - 0.5 clamped to the input,
      // which is the symmetric method with a replicate border; exact weights, one rounding.
      MLResample2dOptions o;
      o.mode = MLInterpolationMode::kLinear;
      o.sizes = std::vector<uint32_t>{static_cast<uint32_t>(out[2]), static_cast<uint32_t>(out[3])};
      o.axes = std::vector<uint32_t>{2, 3};
      result = Web([&] { return Resample2d(builder, x.operand, o); });
    } else {
      result = Node1(OpId::nnef_multilinear_upsample, {x.operand},
                     MakeMultilinearUpsampleKernel(factor, *method, border),
                     {DataType::kFloat32, out}, uint64_t{1} << std::min<size_t>(factor.size(), 16));
    }
    Define(Result(), result, TensorType::kScalar);
  }

  std::vector<size_t> AxesArg(const char* name, size_t rank) {
    std::vector<size_t> axes;
    for (int64_t a : Ints(name)) {
      if (a < 0 || static_cast<size_t>(a) >= rank) {
        Invalid(std::string(name) + " item " + std::to_string(a) + " is outside [0, " +
                std::to_string(rank) + ")");
      }
      if (std::find(axes.begin(), axes.end(), static_cast<size_t>(a)) != axes.end()) {
        Invalid(std::string(name) + " item " + std::to_string(a) + " is repeated");
      }
      axes.push_back(static_cast<size_t>(a));
    }
    return axes;
  }

  // 4.4
  void Reduction(const std::string& op) {
    const bool logical = op == "all_reduce" || op == "any_reduce";
    const Value x = Arg("input", logical ? TensorType::kLogical : TensorType::kScalar);
    std::vector<size_t> axes = AxesArg("axes", S(x).size());
    std::sort(axes.begin(), axes.end());
    Shape out = S(x);
    for (size_t a : axes) out[a] = 1;
    Operand result{};
    TensorType type = logical ? TensorType::kLogical : TensorType::kScalar;
    if (op == "argmax_reduce" || op == "argmin_reduce") {
      type = TensorType::kInteger;
      result = Node1(op == "argmax_reduce" ? OpId::nnef_argmax_reduce : OpId::nnef_argmin_reduce,
                     {x.operand},
                     MakeArgReduceKernel(
                         op == "argmax_reduce" ? ArgReduce::kArgmax : ArgReduce::kArgmin, axes),
                     {DataType::kInt64, out});
    } else if (logical) {
      result =
          Node1(op == "all_reduce" ? OpId::nnef_all_reduce : OpId::nnef_any_reduce, {x.operand},
                MakeLogicalReduceKernel(
                    op == "all_reduce" ? LogicalReduce::kAll : LogicalReduce::kAny, axes),
                {DataType::kUint8, out});
    } else if (axes.empty()) {
      result = Node1(OpId::nnef_copy, {x.operand}, MakeCopyKernel(), builder.Desc(x.operand));
    } else {
      ReduceOp r = ReduceOp::kSum;
      if (op == "sum_reduce" && Logical("normalize")) r = ReduceOp::kMean;
      if (op == "max_reduce") r = ReduceOp::kMax;
      if (op == "min_reduce") r = ReduceOp::kMin;
      MLReduceOptions o;
      o.axes = std::vector<uint32_t>();
      for (size_t a : axes) o.axes->push_back(static_cast<uint32_t>(a));
      o.keepDimensions = true;
      result = Web([&] { return Reduce(builder, r, x.operand, o); });
    }
    Define(Result(), result, type);
  }

  // 4.5.1
  void ReshapeOp() {
    const Value x = Arg("input", current->dtype);
    const Shape& xs = S(x);
    const int64_t rank = static_cast<int64_t>(xs.size());
    const int64_t start = Int("axis_start");
    int64_t count = Int("axis_count");
    if (start < 0 || start > rank) Invalid("axis_start is outside [0, rank]");
    if (count == -1) count = rank - start;
    if (count < 0 || start + count > rank) Invalid("axis_count is out of range");
    const std::vector<int64_t> shape = Ints("shape");
    uint64_t volume = 1;
    for (int64_t k = start; k < start + count; ++k) volume *= xs[static_cast<size_t>(k)];
    Shape mid;
    uint64_t known = 1;
    int infer = -1;
    for (size_t k = 0; k < shape.size(); ++k) {
      int64_t e = shape[k];
      if (e == 0) {
        if (static_cast<int64_t>(k) + start >= rank) Invalid("a 0 item has no input extent");
        e = static_cast<int64_t>(xs[static_cast<size_t>(start) + k]);
      }
      if (e == -1) {
        if (infer >= 0) Invalid("shape has more than one -1 item");
        infer = static_cast<int>(k);
        mid.push_back(1);
        continue;
      }
      if (e < 0) Invalid("shape items must be non-negative or -1");
      mid.push_back(static_cast<uint64_t>(e));
      known *= static_cast<uint64_t>(e);
    }
    if (infer >= 0) {
      if (known == 0 || volume % known != 0) {
        Invalid("shape " + ShapeText(shape) + " does not divide the volume " +
                std::to_string(volume));
      }
      mid[static_cast<size_t>(infer)] = volume / known;
    } else if (known != volume) {
      Invalid("shape " + ShapeText(shape) + " has volume " + std::to_string(known) +
              " but the reshaped axes hold " + std::to_string(volume));
    }
    Shape out(xs.begin(), xs.begin() + start);
    out.insert(out.end(), mid.begin(), mid.end());
    out.insert(out.end(), xs.begin() + start + count, xs.end());
    Define(Result(), Reshaped(x, out), x.type);
  }

  void Squeeze() {
    const Value x = Arg("input", current->dtype);
    const std::vector<size_t> axes = AxesArg("axes", S(x).size());
    Shape out;
    for (size_t k = 0; k < S(x).size(); ++k) {
      if (std::find(axes.begin(), axes.end(), k) == axes.end()) {
        out.push_back(S(x)[k]);
      } else if (S(x)[k] != 1) {
        Invalid("axis " + std::to_string(k) + " has extent " + std::to_string(S(x)[k]) + ", not 1");
      }
    }
    Define(Result(), Reshaped(x, out), x.type);
  }

  Shape InsertOnes(const Shape& in, std::vector<size_t> axes) {
    std::sort(axes.begin(), axes.end());
    Shape out = in;
    for (size_t a : axes) out.insert(out.begin() + static_cast<std::ptrdiff_t>(a), 1);
    return out;
  }

  void Unsqueeze() {
    const Value x = Arg("input", current->dtype);
    const std::vector<size_t> axes = AxesArg("axes", S(x).size() + Ints("axes").size());
    Define(Result(), Reshaped(x, InsertOnes(S(x), axes)), x.type);
  }

  // 4.5.2
  void Transpose() {
    const Value x = Arg("input", current->dtype);
    const std::vector<size_t> axes = AxesArg("axes", S(x).size());
    for (size_t k = 0; k < axes.size(); ++k) {
      if (axes[k] >= axes.size()) Invalid("axes must be a permutation of 0..n-1");
    }
    std::vector<uint32_t> perm;
    for (size_t a : axes) perm.push_back(static_cast<uint32_t>(a));
    for (size_t k = axes.size(); k < S(x).size(); ++k) perm.push_back(static_cast<uint32_t>(k));
    Shape out;
    for (uint32_t p : perm) out.push_back(S(x)[p]);
    Define(Result(), Node1(OpId::transpose, {x.operand}, MakeTransposeKernel(perm), {D(x), out}),
           x.type);
  }

  std::vector<std::string> ResultList() const {
    if (current->results.empty() || current->results[0].value.kind != ArgValue::Kind::kArray) {
      Invalid("the result must be an array of tensors");
    }
    std::vector<std::string> ids;
    for (const ArgValue& v : current->results[0].value.items) {
      if (!v.is_tensor()) Invalid("the result must be an array of tensors");
      ids.push_back(v.str);
    }
    return ids;
  }

  size_t AxisArg(const char* name, size_t limit) const {
    const int64_t a = Int(name);
    if (a < 0 || static_cast<size_t>(a) >= limit) {
      Invalid(std::string(name) + " " + std::to_string(a) + " is outside [0, " +
              std::to_string(limit) + ")");
    }
    return static_cast<size_t>(a);
  }

  // 4.5.3
  void Split() {
    const Value x = Arg("value", current->dtype);
    const size_t axis = AxisArg("axis", S(x).size());
    const std::vector<int64_t> ratios = Ints("ratios");
    int64_t total = 0;
    for (int64_t r : ratios) {
      if (r <= 0) Invalid("ratios must be positive");
      total += r;
    }
    const auto extent = static_cast<int64_t>(S(x)[axis]);
    if (ratios.empty() || extent % total != 0) {
      Invalid("the sum of ratios " + std::to_string(total) + " does not divide the extent " +
              std::to_string(extent));
    }
    const std::vector<std::string> ids = ResultList();
    if (ids.size() != ratios.size()) Invalid("the result count differs from the ratio count");
    std::vector<uint64_t> sizes;
    std::vector<OperandDescriptor> outs;
    for (int64_t r : ratios) {
      sizes.push_back(static_cast<uint64_t>(extent / total * r));
      Shape s = S(x);
      s[axis] = sizes.back();
      outs.push_back({D(x), s});
    }
    const std::vector<Operand> parts =
        Node(OpId::split, {x.operand}, MakeSplitKernel(axis, sizes), outs);
    for (size_t k = 0; k < ids.size(); ++k) Define(ids[k], parts[k], x.type);
  }

  std::vector<Value> TensorList(const char* name) {
    const ArgValue& v = A(name);
    if (v.kind != ArgValue::Kind::kArray || v.items.empty()) {
      Invalid(std::string(name) + " must be a non-empty array of tensors");
    }
    std::vector<Value> out;
    for (const ArgValue& item : v.items) out.push_back(TensorOf(item, current->dtype));
    return out;
  }

  Operand ConcatOf(const std::vector<Value>& vs, size_t axis, Shape& out) {
    out = S(vs[0]);
    out[axis] = 0;
    std::vector<Operand> ops;
    for (const Value& v : vs) {
      const Shape& s = S(v);
      if (s.size() != out.size() || v.type != vs[0].type) {
        Invalid("the tensors to concatenate differ in rank or type");
      }
      for (size_t k = 0; k < s.size(); ++k) {
        if (k != axis && s[k] != out[k]) {
          Invalid("shape " + ShapeToString(s) + " differs from " + ShapeToString(S(vs[0])) +
                  " outside axis " + std::to_string(axis));
        }
      }
      out[axis] += s[axis];
      ops.push_back(v.operand);
    }
    return Node1(OpId::concat, ops, MakeConcatKernel(axis), {D(vs[0]), out});
  }

  void Concat() {
    const std::vector<Value> vs = TensorList("values");
    const size_t axis = AxisArg("axis", S(vs[0]).size());
    Shape out;
    Define(Result(), ConcatOf(vs, axis, out), vs[0].type);
  }

  void Stack() {
    std::vector<Value> vs = TensorList("values");
    const size_t axis = AxisArg("axis", S(vs[0]).size() + 1);
    for (Value& v : vs) {
      if (S(v) != S(vs[0])) Invalid("the tensors to stack differ in shape");
    }
    for (Value& v : vs) v.operand = Reshaped(v, InsertOnes(S(v), {axis}));
    Shape out;
    Define(Result(), ConcatOf(vs, axis, out), vs[0].type);
  }

  void Unstack() {
    const Value x = Arg("value", current->dtype);
    const size_t axis = AxisArg("axis", S(x).size());
    const std::vector<std::string> ids = ResultList();
    const uint64_t n = S(x)[axis];
    if (ids.size() != n) Invalid("the result count differs from the extent of the axis");
    Shape part = S(x);
    part[axis] = 1;
    Shape squeezed = S(x);
    squeezed.erase(squeezed.begin() + static_cast<std::ptrdiff_t>(axis));
    const std::vector<Operand> parts =
        Node(OpId::nnef_unstack, {x.operand}, MakeSplitKernel(axis, std::vector<uint64_t>(n, 1)),
             std::vector<OperandDescriptor>(n, {D(x), part}));
    for (size_t k = 0; k < ids.size(); ++k) {
      Define(ids[k], Reshaped({parts[k], x.type}, squeezed), x.type);
    }
  }

  // 4.5.4
  void SliceOp() {
    const Value x = Arg("input", current->dtype);
    const Shape& xs = S(x);
    const std::vector<size_t> axes = AxesArg("axes", xs.size());
    const std::vector<int64_t> begin = Ints("begin"), end = Ints("end");
    if (begin.size() != axes.size() || end.size() != axes.size()) {
      Invalid("axes, begin and end must have the same length");
    }
    std::vector<uint64_t> starts(xs.size(), 0), sizes(xs.begin(), xs.end());
    for (size_t k = 0; k < axes.size(); ++k) {
      const auto extent = static_cast<int64_t>(xs[axes[k]]);
      // Negative items count from the end; end = 0 means the extent.
      const int64_t b = begin[k] < 0 ? begin[k] + extent : begin[k];
      const int64_t e = end[k] <= 0 ? end[k] + extent : end[k];
      if (b < 0 || b >= extent || e <= b || e > extent) {
        Invalid("axis " + std::to_string(axes[k]) + ": begin " + std::to_string(begin[k]) +
                " and end " + std::to_string(end[k]) +
                " do not select a non-empty range of "
                "extent " +
                std::to_string(extent));
      }
      starts[axes[k]] = static_cast<uint64_t>(b);
      sizes[axes[k]] = static_cast<uint64_t>(e - b);
    }
    Define(Result(),
           Node1(OpId::slice, {x.operand}, MakeSliceKernel(starts, sizes), {D(x), Shape(sizes)}),
           x.type);
  }

  // 4.5.5
  void Pad() {
    const Value x = Arg("input");
    const Shape& xs = S(x);
    std::vector<std::pair<int64_t, int64_t>> padding = Pairs("padding");
    if (padding.size() > xs.size()) Invalid("padding has more items than the rank");
    // Fewer items than the rank pad the trailing axes (as a window's size does).
    padding.insert(padding.begin(), xs.size() - padding.size(), {0, 0});
    Border border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate,
                               Border::kReflect, Border::kReflectEven});
    if (border == Border::kIgnore) border = Border::kConstant;
    const float value = ScalarOf(A("value"));
    Shape out;
    for (size_t k = 0; k < xs.size(); ++k) {
      const int64_t e = static_cast<int64_t>(xs[k]) + padding[k].first + padding[k].second;
      if (e <= 0) Invalid("axis " + std::to_string(k) + " would have extent " + std::to_string(e));
      out.push_back(static_cast<uint64_t>(e));
    }
    Define(Result(),
           Node1(OpId::pad, {x.operand}, MakePadKernel(padding, border, value),
                 {DataType::kFloat32, out}),
           TensorType::kScalar);
  }

  // 4.5.6
  void TileOp() {
    const Value x = Arg("input", current->dtype);
    const std::vector<int64_t> repeats = Ints("repeats");
    if (repeats.size() != S(x).size()) Invalid("repeats must have one item per axis");
    std::vector<uint64_t> r;
    Shape out;
    for (size_t k = 0; k < repeats.size(); ++k) {
      if (repeats[k] <= 0) Invalid("repeats must be positive");
      r.push_back(static_cast<uint64_t>(repeats[k]));
      out.push_back(S(x)[k] * r.back());
    }
    Define(Result(), Node1(OpId::tile, {x.operand}, MakeTileKernel(r), {D(x), out}), x.type);
  }

  // 4.6
  std::vector<int64_t> RoiChecks(const Value& x, const Value& rois, const Value& bi) {
    const Shape& xs = S(x);
    if (xs.size() < 3) Invalid("the input needs a batch, a channel and a spatial axis");
    const size_t m = xs.size() - 2;
    const Shape& rs = S(rois);
    if (rs.size() != 2 || rs[1] != 2 * m) {
      Invalid("rois " + ShapeToString(rs) + " must have shape [N, " + std::to_string(2 * m) + "]");
    }
    const Shape& bs = S(bi);
    if (bi.type != TensorType::kInteger || ElementCount(bs) != rs[0] || bs.empty() ||
        bs[0] != rs[0]) {
      Invalid("batch_index " + ShapeToString(bs) + " must be an integer tensor of shape [" +
              std::to_string(rs[0]) + ", 1]");
    }
    const std::vector<int64_t> size = Ints("output_size");
    if (size.size() != m) Invalid("output_size must have one item per spatial axis");
    for (int64_t s : size) {
      if (s <= 0) Invalid("output_size items must be positive");
    }
    return size;
  }

  Shape RoiShape(const Value& x, const Value& rois, const std::vector<int64_t>& size) {
    Shape out{S(rois)[0], S(x)[1]};
    for (int64_t s : size) out.push_back(static_cast<uint64_t>(s));
    return out;
  }

  void RoiPool(bool max) {
    const Value x = Arg("input"), rois = Arg("rois"), bi = Arg("batch_index", TensorType::kInteger);
    const std::vector<int64_t> size = RoiChecks(x, rois, bi);
    Define(Result(),
           Node1(max ? OpId::nnef_max_roi_pool : OpId::nnef_avg_roi_pool,
                 {x.operand, rois.operand, bi.operand}, MakeRoiPoolKernel(max, size),
                 {DataType::kFloat32, RoiShape(x, rois, size)},
                 ElementCount(S(x)) / (S(x)[0] * S(x)[1])),
           TensorType::kScalar);
  }

  void RoiResample() {
    const Value x = Arg("input"), rois = Arg("rois"), bi = Arg("batch_index", TensorType::kInteger);
    const std::vector<int64_t> size = RoiChecks(x, rois, bi);
    const std::optional<UpsampleMethod> method = ParseUpsampleMethod(Str("method"));
    if (!method) Invalid("method must be 'symmetric', 'asymmetric' or 'aligned'");
    Define(
        Result(),
        Node1(OpId::nnef_roi_resample, {x.operand, rois.operand, bi.operand},
              MakeRoiResampleKernel(size, *method), {DataType::kFloat32, RoiShape(x, rois, size)},
              uint64_t{1} << std::min<size_t>(size.size(), 16)),
        TensorType::kScalar);
  }

  // 4.7
  Operand Transposed(const Value& v) {
    std::vector<uint32_t> perm;
    for (size_t k = 0; k < S(v).size(); ++k) perm.push_back(static_cast<uint32_t>(k));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    Shape out;
    for (uint32_t p : perm) out.push_back(S(v)[p]);
    return Node1(OpId::transpose, {v.operand}, MakeTransposeKernel(perm), {D(v), out});
  }

  void Matmul() {
    const Value a = Arg("A"), b = Arg("B");
    if (S(a).size() < 2 || S(a).size() != S(b).size()) {
      Invalid("A " + ShapeToString(S(a)) + " and B " + ShapeToString(S(b)) +
              " must have the same rank, at least 2");
    }
    const Operand oa = Logical("transposeA") ? Transposed(a) : a.operand;
    const Operand ob = Logical("transposeB") ? Transposed(b) : b.operand;
    const Shape& as = builder.Desc(oa).shape;
    const Shape& bs = builder.Desc(ob).shape;
    if (as[as.size() - 1] != bs[bs.size() - 2]) {
      Invalid("the inner extents " + std::to_string(as.back()) + " and " +
              std::to_string(bs[bs.size() - 2]) + " differ");
    }
    Define(Result(), Web([&] { return nnref::Matmul(builder, oa, ob); }), TensorType::kScalar);
  }
};

Executor::Executor(const FlatGraph& graph, const std::string& model_dir, const QuantFile* quant,
                   ExecutorOptions options)
    : graph_(graph), impl_(std::make_unique<Impl>(graph_, model_dir, quant, options)) {
  impl_->Build();
}

Executor::~Executor() = default;

TensorType Executor::InputType(const std::string& name) const {
  return impl_->tensors.at(name).type;
}

Shape Executor::InputShape(const std::string& name) const {
  return impl_->builder.Desc(impl_->tensors.at(name).operand).shape;
}

TensorType Executor::OutputType(const std::string& name) const {
  return impl_->output_types.at(name);
}

Tolerance Executor::DefaultToleranceFor(const std::string& output) const {
  const Impl& m = *impl_;
  if (m.output_types.at(output) != TensorType::kScalar) {
    return Tolerance::Ulp(0, "integer or logical output: exact");
  }
  OperandId id{};
  for (const auto& [name, operand] : m.outputs) {
    if (name == output) id = operand.id;
  }
  Tolerance total;
  std::string reasons;
  for (const OperatorNode* node : m.built->OperatorsFeeding(id)) {
    const std::optional<Tolerance> t = nnref::DefaultTolerance(node->tolerance);
    if (!t) {
      throw InputError("internal: no default tolerance row '" +
                       std::string(OpName(node->tolerance.op)) + "' for operation " +
                       std::string(OpName(node->op)));
    }
    total += *t;
    if (!reasons.empty()) reasons += "; ";
    reasons += std::string(OpName(node->op)) + ": " + t->Describe();
  }
  total.reason = "default: " + (reasons.empty() ? std::string("no computation") : reasons);
  return total;
}

const Tensor& Executor::Variable(const std::string& label) const {
  return impl_->variables.at(Lower(label)).value;
}

std::map<std::string, OperandValue> Executor::Run(const std::map<std::string, Tensor>& inputs,
                                                  const TraceSink& trace) {
  Impl& m = *impl_;
  std::map<std::string, Tensor> feed;
  for (const std::string& name : graph_.inputs) {
    const auto it = inputs.find(name);
    const OperandDescriptor& want = m.builder.Desc(m.tensors.at(name).operand);
    if (it == inputs.end()) {
      throw NnefError(Stage::kExecute, {graph_.file, 0, 0},
                      "no data given for the graph input '" + name + "'");
    }
    if (it->second.dtype() != want.dataType || it->second.shape() != want.shape) {
      throw NnefError(Stage::kExecute, {graph_.file, 0, 0},
                      "the data for input '" + name + "' is " +
                          std::string(DataTypeName(it->second.dtype())) + " " +
                          ShapeToString(it->second.shape()) + "; the graph expects tensor<" +
                          std::string(TensorTypeName(m.tensors.at(name).type)) + "> " +
                          ShapeToString(want.shape));
    }
    feed[name] = it->second;
  }
  for (const auto& name_and_tensor : inputs) {
    if (std::find(graph_.inputs.begin(), graph_.inputs.end(), name_and_tensor.first) ==
        graph_.inputs.end()) {
      throw NnefError(
          Stage::kExecute, {graph_.file, 0, 0},
          "'" + name_and_tensor.first + "' is not an input of graph '" + graph_.name + "'");
    }
  }
  for (const auto& [key, v] : m.variables) feed[v.input] = v.value;
  ExecutionObserver observer;
  if (trace) {
    observer = [&](OperandId id, const OperandValue& value) {
      const auto it = m.names.find(id.value);
      if (it == m.names.end()) return;
      const int32_t p = m.built->operand(id).producer;
      const std::string_view kernel =
          p >= 0 ? OpName(m.built->operators()[static_cast<size_t>(p)].op) : std::string_view();
      trace(it->second.first, it->second.second, kernel, value);
    };
  }
  std::map<std::string, OperandValue> all = m.built->Compute(feed, observer);
  std::map<std::string, OperandValue> result;
  for (const std::string& id : graph_.outputs) result[id] = all.at(id);
  for (const auto& [key, name] : m.updates) m.variables.at(key).value = all.at(name).data;
  return result;
}

}  // namespace nnref::nnef
