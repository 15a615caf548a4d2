// Execution of a flattened NNEF graph; see executor.h. The lowering of each primitive is in
// lower_*.cc (lower.h lists which file holds which chapter); this file walks the graph, keeps the
// operands, registers results and dispatches the primitives of NNEF 1.0.2 chapter 4.
#include "runner/nnef/executor.h"

#include <cctype>

#include "ops/data_movement.h"
#include "ops/elementwise_unary.h"
#include "ops/nnef_quantize.h"
#include "ops/tolerance_table.h"
#include "runner/nnef/lower.h"
#include "runner/nnef/tensor_file.h"

namespace nnref::nnef {

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + "]";
}

std::string LowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ----- operands, results, arguments ----------------------------------------------------------

Executor::Impl::Value Executor::Impl::TensorOf(const ArgValue& v, TensorType want) {
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

std::vector<Executor::Impl::Value> Executor::Impl::TensorList(const char* name) {
  const ArgValue& v = A(name);
  if (v.kind != ArgValue::Kind::kArray || v.items.empty()) {
    Invalid(std::string(name) + " must be a non-empty array of tensors");
  }
  std::vector<Value> out;
  for (const ArgValue& item : v.items) out.push_back(TensorOf(item, current->dtype));
  return out;
}

std::vector<std::string> Executor::Impl::ResultList() const {
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

Shape Executor::Impl::ShapeArg(const char* name) {
  Shape s;
  for (int64_t e : Ints(name)) {
    if (e <= 0) Invalid(std::string(name) + " items must be positive, not " + std::to_string(e));
    s.push_back(static_cast<uint64_t>(e));
  }
  return s;
}

std::vector<size_t> Executor::Impl::AxesArg(const char* name, size_t rank) {
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

size_t Executor::Impl::AxisArg(const char* name, size_t limit) const {
  const int64_t a = Int(name);
  if (a < 0 || static_cast<size_t>(a) >= limit) {
    Invalid(std::string(name) + " " + std::to_string(a) + " is outside [0, " +
            std::to_string(limit) + ")");
  }
  return static_cast<size_t>(a);
}

Operand Executor::Impl::Reshaped(const Value& v, const Shape& shape) {
  if (S(v) == shape) return v.operand;
  const std::vector<uint32_t> s(shape.begin(), shape.end());
  return Web([&] { return nnref::Reshape(builder, v.operand, s); });
}

Operand Executor::Impl::AlignRank(const Value& v, size_t rank) {
  Shape s = S(v);
  if (s.size() >= rank) return v.operand;
  s.resize(rank, 1);
  return Reshaped(v, s);
}

void Executor::Impl::CheckBroadcast(const std::vector<Value>& vs) const {
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

void Executor::Impl::Define(const std::string& id, Operand op, TensorType type) {
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
      Fail(Stage::kExecute, "the executor computes shape " + ShapeToString(shape) + " for '" + id +
                                "' but the graph propagates " + ShapeText(it->second.shape) +
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
      op = Web([&] { return NnefQuantize(builder, op, q); });
    }
  }
  tensors[id] = {op, type};
  names[op.id.value] = {id, current};
}

Operand Executor::Impl::Copy(const Operand& o) {
  return Web([&] { return ElementwiseUnary(builder, UnaryOp::kIdentity, o); });
}

// ----- the graph walk and the dispatch -------------------------------------------------------

void Executor::Impl::Build() {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (const NamedValue& a : graph.ops[i].args) Uses(a.value, i);
  }
  const auto Created = [this](size_t first, const Invocation* inv) {
    for (size_t id = first; id < builder.operand_count(); ++id) {
      created_by[static_cast<uint32_t>(id)] = inv;
    }
  };
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Invocation& inv = graph.ops[i];
    const size_t first = builder.operand_count();
    if (inv.compound >= 0 && static_cast<size_t>(inv.compound) < graph.compounds.size()) {
      const CompoundInstance& c = graph.compounds[static_cast<size_t>(inv.compound)];
      if (i == c.first_op && c.end_op > i && c.end_op <= graph.ops.size() && Compound(c)) {
        Created(first, &compound_ops.back());
        i = c.end_op - 1;
        continue;
      }
    }
    current = &inv;
    Op(inv);
    Created(first, &inv);
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
      o = Copy(o);
    }
    outputs.emplace_back(id, o);
    output_types[id] = it->second.type;
  }
  built = Web([&] { return builder.Build(outputs); });
}

void Executor::Impl::Uses(const ArgValue& v, size_t op) {
  if (v.is_tensor()) users[v.str].push_back(op);
  for (const ArgValue& item : v.items) Uses(item, op);
}

void Executor::Impl::Op(const Invocation& inv) {
  if (inv.custom) {
    Fail(Stage::kExecute, "operation '" + inv.op +
                              "' is declared without a body and is not an NNEF primitive, so "
                              "it has no semantics to execute");
  }
  if (!inv.id) Fail(Stage::kExecute, "'" + inv.op + "' is not a primitive of NNEF 1.0.2 chapter 4");
  const NnefOp op = *inv.id;
  switch (NnefOpFamily(op)) {
    case NnefFamily::kElementwise:
    case NnefFamily::kReduce:
    case NnefFamily::kMatmul:
      return Elementwise(op);
    default:
      break;
  }
  switch (op) {
    case NnefOp::kExternal:
      return External();
    case NnefOp::kConstant:
      return Constant();
    case NnefOp::kVariable:
      return Variable();
    case NnefOp::kConv:
      return Conv(false);
    case NnefOp::kDeconv:
      return Conv(true);
    case NnefOp::kBox:
      return Box(false);
    case NnefOp::kDebox:
      return Box(true);
    case NnefOp::kArgmaxPool:
      return ArgmaxPool();
    case NnefOp::kSample:
      return Sample();
    case NnefOp::kDesample:
      return Desample();
    case NnefOp::kMultilinearUpsample:
      return Upsample();
    case NnefOp::kReshape:
      return ReshapeOp();
    case NnefOp::kSqueeze:
      return Squeeze();
    case NnefOp::kUnsqueeze:
      return Unsqueeze();
    case NnefOp::kTranspose:
      return Transpose();
    case NnefOp::kSplit:
      return Split();
    case NnefOp::kConcat:
      return Concat();
    case NnefOp::kStack:
      return Stack();
    case NnefOp::kUnstack:
      return Unstack();
    case NnefOp::kSlice:
      return SliceOp();
    case NnefOp::kPad:
      return Pad();
    case NnefOp::kTile:
      return TileOp();
    case NnefOp::kAvgRoiPool:
      return RoiPool(false);
    case NnefOp::kMaxRoiPool:
      return RoiPool(true);
    case NnefOp::kRoiResample:
      return RoiResample();
    case NnefOp::kUpdate:
      return Update();
    default:
      break;
  }
  Fail(Stage::kExecute, "'" + inv.op + "' is not a primitive of NNEF 1.0.2 chapter 4");
}

// ----- the Executor API ----------------------------------------------------------------------

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

const Graph& Executor::Lowered() const { return *impl_->built; }

Executor::Origin Executor::OperatorOrigin(size_t index) const {
  const Impl& m = *impl_;
  Origin o;
  const OperatorNode& node = m.built->operators().at(index);
  if (node.outputs.empty()) return o;
  const uint32_t id = node.outputs[0].value;
  if (const auto c = m.created_by.find(id); c != m.created_by.end()) o.invocation = c->second;
  if (const auto n = m.names.find(id); n != m.names.end()) {
    o.tensor = n->second.first;
    if (o.invocation == nullptr) o.invocation = n->second.second;
    return o;
  }
  o.intermediate = true;
  if (o.invocation != nullptr && !o.invocation->results.empty()) {
    const ArgValue& r = o.invocation->results[0].value;
    o.tensor = r.is_tensor() ? r.str : r.ToString();
  }
  return o;
}

const Tensor& Executor::Variable(const std::string& label) const {
  return impl_->variables.at(LowerCase(label)).value;
}

std::map<std::string, Tensor> Executor::Feed(const std::map<std::string, Tensor>& inputs) const {
  const Impl& m = *impl_;
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
  return feed;
}

std::map<std::string, OperandValue> Executor::Run(
    const std::map<std::string, Tensor>& inputs, const TraceSink& trace,
    std::span<const std::shared_ptr<const Kernel>> kernels) {
  Impl& m = *impl_;
  const std::map<std::string, Tensor> feed = Feed(inputs);
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
  std::map<std::string, OperandValue> all;
  try {
    all = m.built->Compute(feed, observer, kernels);
  } catch (const WebnnError& e) {
    // A data-dependent problem an NNEF operator found (ops/nnef_common.h: ComputeError).
    throw NnefError(Stage::kExecute, {}, e.what(), "NNEF 1.0.2 chapter 4");
  }
  std::map<std::string, OperandValue> result;
  for (const std::string& id : graph_.outputs) result[id] = all.at(id);
  for (const auto& [key, name] : m.updates) m.variables.at(key).value = all.at(name).data;
  return result;
}

}  // namespace nnref::nnef
