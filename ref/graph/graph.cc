#include "ref/graph/graph.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <deque>
#include <set>

namespace nnref {

std::string OperandDescriptor::ToString() const {
  return std::string(DataTypeName(dataType)) + ShapeToString(shape);
}

// §api-mloperanddescriptor "check dimensions".
void CheckDimensions(const OperandDescriptor& desc, const BuilderLimits& limits,
                     const std::string& what) {
  constexpr uint64_t kMaxLong = 2147483647;  // "valid dimension": > 0 and in the range of long
  for (size_t i = 0; i < desc.shape.size(); ++i) {
    const uint64_t d = desc.shape[i];
    if (d == 0 || d > kMaxLong) {
      ThrowTypeError(what + ": shape[" + std::to_string(i) + "] = " + std::to_string(d) +
                     " is not a valid dimension (1 to 2147483647)");
    }
  }
  if (desc.shape.size() > limits.max_rank) {
    ThrowTypeError(what + ": rank " + std::to_string(desc.shape.size()) +
                   " exceeds the supported maximum " + std::to_string(limits.max_rank));
  }
  const auto count = CheckedElementCount(desc.shape);
  if (!count || *count > kMaxLong) {
    ThrowTypeError(what + ": element count of shape " + ShapeToString(desc.shape) +
                   " is not a valid dimension (at most 2147483647)");
  }
  const uint64_t bytes = *count * ElementSize(desc.dataType);
  if (bytes > limits.max_tensor_byte_length) {
    ThrowTypeError(what + ": byte length " + std::to_string(bytes) +
                   " exceeds the supported maximum " +
                   std::to_string(limits.max_tensor_byte_length));
  }
}

GraphBuilder::GraphBuilder(BuilderLimits limits) : limits_(limits) {}

void GraphBuilder::CheckCanBuild(const std::string& op) const {
  if (has_built_) {
    throw WebnnError(ErrorType::kInvalidStateError, op + ": the builder has already built a graph");
  }
}

void GraphBuilder::ValidateOperand(const std::string& op, const char* argument,
                                   const Operand& o) const {
  if (o.builder != this || o.id.value >= operands_.size()) {
    ThrowTypeError(op + ": argument '" + argument + "' is not an operand of this builder");
  }
}

const OperandDescriptor& GraphBuilder::Desc(const Operand& o) const {
  return operands_[o.id.value].desc;
}

Operand GraphBuilder::Input(const std::string& name, const OperandDescriptor& desc) {
  CheckCanBuild("input");                                        // step 1
  if (name.empty()) ThrowTypeError("input: the name is empty");  // step 2
  for (const OperandNode& n : operands_) {                       // step 3
    if (n.kind == OperandNode::Kind::kInput && n.name == name) {
      ThrowTypeError("input: an input named '" + name + "' already exists");
    }
  }
  CheckDimensions(desc, limits_, "input '" + name + "'");                // step 4
  operands_.push_back({OperandNode::Kind::kInput, desc, name, {}, -1});  // step 5
  return {this, {static_cast<uint32_t>(operands_.size() - 1)}};
}

Operand GraphBuilder::Constant(const OperandDescriptor& desc, const Tensor& data) {
  CheckCanBuild("constant");                   // step 1
  CheckDimensions(desc, limits_, "constant");  // step 2
  // Step 3, "validating buffer with descriptor": the data must match type and byte length.
  if (!data.valid() || data.dtype() != desc.dataType ||
      data.element_count() != desc.ElementCount()) {
    ThrowTypeError("constant: the buffer does not match the descriptor " + desc.ToString());
  }
  Tensor copy = Tensor::Allocate(desc.dataType, desc.shape);  // "a copy of the bytes"
  const Tensor dense = data.Contiguous();                     // no copy when already dense
  const size_t es = ElementSize(desc.dataType);
  std::memcpy(copy.buffer()->data(),
              dense.buffer()->data() + static_cast<size_t>(dense.offset()) * es,
              static_cast<size_t>(dense.element_count()) * es);
  operands_.push_back({OperandNode::Kind::kConstant, desc, {}, std::move(copy), -1});
  return {this, {static_cast<uint32_t>(operands_.size() - 1)}};
}

Operand GraphBuilder::Constant(DataType type, const MLNumber& value) {
  CheckCanBuild("constant");  // step 1
  Tensor t = Tensor::Allocate(type, {});
  DispatchDataType(type, [&]<typename T>() { *t.base<T>() = CastNumber<T>(value); });  // step 2
  operands_.push_back({OperandNode::Kind::kConstant, {type, {}}, {}, std::move(t), -1});
  return {this, {static_cast<uint32_t>(operands_.size() - 1)}};
}

std::vector<Operand> GraphBuilder::AddOperator(OperatorNode node,
                                               std::vector<OperandDescriptor> outputs) {
  // The output must be a tensor this implementation can hold: broadcasting two valid inputs can
  // describe an absurd output ("check dimensions" applied to results as an implementation limit).
  for (const OperandDescriptor& d : outputs) {
    CheckDimensions(d, limits_, std::string(OpName(node.op)) + " output");
  }
  const auto index = static_cast<int32_t>(operators_.size());
  std::vector<Operand> result;
  for (OperandDescriptor& d : outputs) {
    operands_.push_back({OperandNode::Kind::kOperatorOutput, std::move(d), {}, {}, index});
    const OperandId id{static_cast<uint32_t>(operands_.size() - 1)};
    node.outputs.push_back(id);
    result.push_back({this, id});
  }
  operators_.push_back(std::move(node));
  return result;
}

std::shared_ptr<const Graph> GraphBuilder::Build(
    const std::vector<std::pair<std::string, Operand>>& outputs) {
  // Step 2.
  if (has_built_) {
    throw WebnnError(ErrorType::kInvalidStateError, "build: the builder has already built");
  }
  if (outputs.empty()) ThrowTypeError("build: no outputs were given");  // step 3
  std::set<std::string> seen;
  for (const auto& [name, operand] : outputs) {  // step 4
    if (name.empty()) ThrowTypeError("build: an output name is empty");
    if (!seen.insert(name).second) ThrowTypeError("build: output '" + name + "' given twice");
    ValidateOperand("build", name.c_str(), operand);
    const OperandNode& n = operands_[operand.id.value];
    if (n.kind == OperandNode::Kind::kInput) {
      ThrowTypeError("build: output '" + name + "' is the graph input '" + n.name +
                     "' (use identity() to output an input)");
    }
    if (n.kind == OperandNode::Kind::kConstant) {
      ThrowTypeError("build: output '" + name + "' is a constant operand");
    }
  }
  // Steps 5-9: collect the operators the outputs depend on.
  std::vector<bool> needed(operators_.size(), false);
  std::deque<OperandId> queue;
  for (const auto& o : outputs) queue.push_back(o.second.id);
  std::vector<bool> visited(operands_.size(), false);
  while (!queue.empty()) {
    const OperandId id = queue.front();
    queue.pop_front();
    if (visited[id.value]) continue;
    visited[id.value] = true;
    const int32_t p = operands_[id.value].producer;
    if (p < 0) continue;
    needed[static_cast<size_t>(p)] = true;
    for (OperandId in : operators_[static_cast<size_t>(p)].inputs) queue.push_back(in);
  }
  auto graph = std::make_shared<Graph>();
  graph->operands_ = operands_;
  std::vector<int32_t> remap(operators_.size(), -1);
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (!needed[i]) continue;
    remap[i] = static_cast<int32_t>(graph->operators_.size());
    graph->operators_.push_back(operators_[i]);
  }
  for (OperandNode& n : graph->operands_) {
    if (n.producer >= 0) n.producer = remap[static_cast<size_t>(n.producer)];
  }
  for (size_t i = 0; i < operands_.size(); ++i) {  // steps 14-15: inputs reached from outputs
    if (visited[i] && operands_[i].kind == OperandNode::Kind::kInput) {
      graph->inputs_[operands_[i].name] = operands_[i].desc;
    }
  }
  for (const auto& [name, operand] : outputs) graph->outputs_.push_back({name, operand.id});
  has_built_ = true;  // step 16
  return graph;
}

const OperandDescriptor& Graph::output_descriptor(const std::string& name) const {
  for (const auto& [n, id] : outputs_) {
    if (n == name) return operands_[id.value].desc;
  }
  throw InputError("graph has no output named '" + name + "'");
}

std::vector<const OperatorNode*> Graph::OperatorsFeeding(OperandId id) const {
  std::vector<bool> visited(operands_.size(), false);
  std::set<int32_t> ops;
  std::deque<OperandId> queue{id};
  while (!queue.empty()) {
    const OperandId cur = queue.front();
    queue.pop_front();
    if (visited[cur.value]) continue;
    visited[cur.value] = true;
    const int32_t p = operands_[cur.value].producer;
    if (p < 0) continue;
    ops.insert(p);
    for (OperandId in : operators_[static_cast<size_t>(p)].inputs) queue.push_back(in);
  }
  std::vector<const OperatorNode*> result;
  for (int32_t p : ops) result.push_back(&operators_[static_cast<size_t>(p)]);
  return result;
}

namespace {

// `latitude` with every kOneOf code turned into kAny: the same tensor when it has none, else a
// fresh copy (the tensor may be a view shared with an input's latitude).
Tensor OneOfToAny(const Tensor& latitude) {
  if (!latitude.valid()) return latitude;
  const uint64_t n = latitude.element_count();
  const auto one_of = static_cast<uint8_t>(Latitude::kOneOf);
  bool found = false;
  for (uint64_t i = 0; i < n && !found; ++i) found = latitude.At<uint8_t>(i) == one_of;
  if (!found) return latitude;
  Tensor copy = NewLatitude(latitude.shape());
  uint8_t* p = copy.base<uint8_t>();
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t code = latitude.At<uint8_t>(i);
    p[i] = code == one_of ? static_cast<uint8_t>(Latitude::kAny) : code;
  }
  return copy;
}

}  // namespace

void Kernel::ComputeInto(std::span<const OperandValue* const> inputs,
                         std::span<const OperandDescriptor> outputs, const Tensor& out) const {
  const std::vector<OperandValue> result = Compute(inputs, outputs);
  const std::vector<std::byte> bytes = result.at(0).data.Bytes();
  std::memcpy(out.buffer()->data() + out.offset() * static_cast<int64_t>(ElementSize(out.dtype())),
              bytes.data(), bytes.size());
}

std::vector<OperandValue> Graph::RunOperator(size_t index,
                                             std::span<const OperandValue* const> in,
                                             const Kernel* kernel) const {
  const OperatorNode& node = operators_[index];
  bool input_latitude = false;
  for (const OperandValue* v : in) input_latitude = input_latitude || v->latitude.valid();
  std::vector<OperandDescriptor> out_desc;
  for (OperandId id : node.outputs) out_desc.push_back(operands_[id.value].desc);
  std::vector<OperandValue> out = (kernel ? kernel : node.kernel.get())->Compute(in, out_desc);
  for (OperandValue& v : out) {
    if (input_latitude && !v.latitude.valid()) {
      // The kernel does not track latitude per element: everything downstream is open.
      v.latitude = NewLatitude(v.data.shape());
      std::memset(v.latitude.buffer()->data(), static_cast<int>(Latitude::kAny),
                  v.latitude.buffer()->size());
    }
    // A kOneOf set names elements of the operand it was made for. A set passed on from an
    // input (a view or copy) or kOneOf codes copied without a set are no longer described:
    // those elements become kAny.
    for (const OperandValue* input : in) {
      if (v.one_of && v.one_of == input->one_of) v.one_of = nullptr;
    }
    if (!v.one_of) v.latitude = OneOfToAny(v.latitude);
    if (v.latitude.valid() && !AnyLatitude(v.latitude)) v.latitude = Tensor();
    if (!v.latitude.valid()) v.one_of = nullptr;
  }
  return out;
}

std::map<std::string, OperandValue> Graph::Compute(
    const std::map<std::string, Tensor>& inputs, const ExecutionObserver& observer,
    std::span<const std::shared_ptr<const Kernel>> kernels) const {
  if (!kernels.empty() && kernels.size() != operators_.size()) {
    throw std::logic_error("Graph::Compute: one kernel per operator expected");
  }
  std::vector<OperandValue> values(operands_.size());
  for (const auto& [name, desc] : inputs_) {
    const auto it = inputs.find(name);
    if (it == inputs.end()) ThrowTypeError("compute: input '" + name + "' was not given");
    if (it->second.dtype() != desc.dataType || it->second.shape() != desc.shape) {
      ThrowTypeError("compute: input '" + name + "' does not match its descriptor " +
                     desc.ToString());
    }
  }
  for (size_t i = 0; i < operands_.size(); ++i) {
    const OperandNode& n = operands_[i];
    if (n.kind == OperandNode::Kind::kConstant) {
      values[i].data = n.constant;
    } else if (n.kind == OperandNode::Kind::kInput) {
      const auto it = inputs.find(n.name);
      if (it == inputs.end()) continue;  // not used by this graph
      values[i].data = it->second;
    } else {
      continue;
    }
    if (observer) observer({static_cast<uint32_t>(i)}, values[i]);
  }
  // Each operator output is released after the last operator that reads it (the graph's outputs
  // are kept, an output nothing reads goes once the observer has seen it): its buffer returns to
  // the allocator while the graph runs, so later operators reuse memory that is still in cache
  // and the graph holds only its live values. A view of it (reshape) keeps the buffer alive.
  constexpr size_t kKept = SIZE_MAX;
  std::vector<size_t> last_use(operands_.size(), kKept - 1);
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (operands_[i].kind == OperandNode::Kind::kOperatorOutput) last_use[i] = 0;
  }
  for (size_t index = 0; index < operators_.size(); ++index) {
    for (OperandId id : operators_[index].outputs) last_use[id.value] = index;
    for (OperandId id : operators_[index].inputs) {
      if (last_use[id.value] != kKept - 1) last_use[id.value] = index;
    }
  }
  for (const auto& [name, id] : outputs_) last_use[id.value] = kKept;
  for (size_t index = 0; index < operators_.size(); ++index) {
    const OperatorNode& node = operators_[index];
    std::vector<const OperandValue*> in;
    for (OperandId id : node.inputs) in.push_back(&values[id.value]);
    std::vector<OperandValue> out =
        RunOperator(index, in, kernels.empty() ? nullptr : kernels[index].get());
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      values[node.outputs[k].value] = std::move(out[k]);
      if (observer) observer(node.outputs[k], values[node.outputs[k].value]);
    }
    for (const std::vector<OperandId>* ids : {&node.inputs, &node.outputs}) {
      for (OperandId id : *ids) {
        if (last_use[id.value] == index) values[id.value] = OperandValue();
      }
    }
  }
  std::map<std::string, OperandValue> result;
  for (const auto& [name, id] : outputs_) result[name] = values[id.value];
  return result;
}

Tensor NewLatitude(const Shape& shape) { return Tensor::Allocate(DataType::kUint8, shape); }

bool AnyLatitude(const Tensor& latitude) {
  if (!latitude.valid()) return false;
  const Tensor c = latitude.Contiguous();
  const uint8_t* p = c.base<uint8_t>();
  for (uint64_t i = 0; i < c.element_count(); ++i) {
    if (p[i] != 0) return true;
  }
  return false;
}

}  // namespace nnref
