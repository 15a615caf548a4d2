// The computational graph: operand descriptors, operators with their kernels, the builder core
// (input, constant, build — WebNN §api-mlgraphbuilder) and the executor. Operator methods live in
// ops/; they validate with the helpers here and add an operator node with AddOperator().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "numerics/cast.h"
#include "numerics/dtype.h"
#include "ref/error.h"
#include "ref/graph/op_id.h"
#include "ref/tensor/tensor.h"

namespace nnref {

struct OperandDescriptor {
  DataType dataType = DataType::kFloat32;
  Shape shape;
  friend bool operator==(const OperandDescriptor&, const OperandDescriptor&) = default;
  uint64_t ElementCount() const { return nnref::ElementCount(shape); }
  uint64_t ByteLength() const { return ElementCount() * ElementSize(dataType); }
  std::string ToString() const;
};

// What the spec leaves open for one element of a result. Comparison skips kAny elements, accepts
// NaN as well as the reference value for kValueOrNaN elements, and accepts any value of the
// element's set in OperandValue::one_of for kOneOf elements (argMin/argMax ties), reporting each.
enum class Latitude : uint8_t { kExact = 0, kAny = 1, kValueOrNaN = 2, kOneOf = 3 };

// The acceptable values of an operand's kOneOf elements, the reference's own value among them.
// Elements are row-major linear indices of the operand it was computed with. The executor keeps
// a set only on the output of the kernel that made it: a kernel that passes one on (a view) or
// copies kOneOf codes without a set of its own gets those elements marked kAny instead.
class OneOfSet {
 public:
  virtual ~OneOfSet() = default;
  // Whether element `element` of `t` (a tensor of the operand's data type and shape) is in that
  // element's set.
  virtual bool Contains(uint64_t element, const Tensor& t) const = 0;
  // The element's set in ascending order, as a 1-D tensor of the operand's data type.
  virtual Tensor Values(uint64_t element) const = 0;
};

// A computed operand: its data and, when some element is not fully determined by the spec, a
// uint8 tensor of Latitude codes of the same shape (invalid tensor = every element exact), plus
// the sets of its kOneOf elements.
struct OperandValue {
  Tensor data;
  Tensor latitude;
  std::shared_ptr<const OneOfSet> one_of = nullptr;  // null when no element is kOneOf
};

// Implementation limits used by "check dimensions" (WebNN §api-mloperanddescriptor).
struct BuilderLimits {
  size_t max_rank = 16;
  uint64_t max_tensor_byte_length = uint64_t{1} << 31;
};

// Throws TypeError naming `what` when the descriptor fails "check dimensions".
void CheckDimensions(const OperandDescriptor& desc, const BuilderLimits& limits,
                     const std::string& what);

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Computes the outputs (fresh tensors or views of the inputs). Never throws spec errors: the
  // builder validated everything the kernel relies on. If any input carries latitude, a kernel
  // that tracks it per element sets the output latitude; otherwise the executor marks the whole
  // output kAny.
  virtual std::vector<OperandValue> Compute(std::span<const OperandValue* const> inputs,
                                            std::span<const OperandDescriptor> outputs) const = 0;

  // What ComputeInto does for this kernel, for a backend's whole-graph plan (ops/simd/graph_plan.h)
  // that keeps its intermediates in buffers of its own: `direct`, the single output is written
  // straight into the given tensor (else Compute runs and its result is copied there); `in_place`,
  // that tensor may be the buffer of an input of the same data type and shape (element i of the
  // output depends on element i of the inputs only, read before it is written).
  struct IntoSupport {
    bool direct = false;
    bool in_place = false;
  };
  virtual IntoSupport Into() const { return {}; }
  // The single output of the operator written into `out`, a dense tensor of outputs[0]'s data
  // type and shape whose every element is overwritten, on inputs without latitude; the values are
  // bit for bit those Compute gives. `out` shares no buffer with the inputs unless Into().in_place
  // says it may, and then only with inputs of that data type and shape. The default computes and
  // copies.
  virtual void ComputeInto(std::span<const OperandValue* const> inputs,
                           std::span<const OperandDescriptor> outputs, const Tensor& out) const;
};

struct OperandId {
  uint32_t value = UINT32_MAX;
  friend bool operator==(OperandId, OperandId) = default;
  friend auto operator<=>(OperandId, OperandId) = default;
};

class GraphBuilder;

// A handle to an operand of one builder (MLOperand).
struct Operand {
  const GraphBuilder* builder = nullptr;
  OperandId id;
};

// The validated attributes of an operator node, as its builder method computed them (strides,
// paddings, axes, alpha, ...). Each operator family with attributes declares its own struct in
// its ops/ header (e.g. Conv2dAttributes in ops/conv2d.h). The reference kernel and every backend
// (ops/backend.h) build their kernels from the same struct, so validation is written once.
struct OpAttributes {
  virtual ~OpAttributes() = default;
};

struct OperatorNode {
  OpId op;            // OpId::add, ...
  std::string label;  // MLOperatorOptions.label
  std::vector<OperandId> inputs;
  std::vector<OperandId> outputs;
  std::shared_ptr<const Kernel> kernel;  // the reference kernel
  ToleranceQuery tolerance;              // how the default tolerance table sees this operator
  // Null for operators whose name and operand descriptors say everything (add, matmul, ...).
  std::shared_ptr<const OpAttributes> attributes = nullptr;

  // The attributes as `A`, or null when the node carries none of that type.
  template <typename A>
  const A* Attributes() const {
    return dynamic_cast<const A*>(attributes.get());
  }
};

struct OperandNode {
  enum class Kind : uint8_t { kInput, kConstant, kOperatorOutput } kind;
  OperandDescriptor desc;
  std::string name;       // inputs only
  Tensor constant;        // constants only
  int32_t producer = -1;  // index into operators for kOperatorOutput
};

class Graph;

class GraphBuilder {
 public:
  explicit GraphBuilder(BuilderLimits limits = {});
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  // §api-mlgraphbuilder-input
  Operand Input(const std::string& name, const OperandDescriptor& desc);
  // §api-mlgraphbuilder-constant-buffer: `data` must hold exactly desc's byte length (TypeError).
  Operand Constant(const OperandDescriptor& desc, const Tensor& data);
  // §api-mlgraphbuilder-constant-datatype-value
  Operand Constant(DataType type, const MLNumber& value);
  // §api-mlgraphbuilder-build. Synchronous here: returns the graph or throws the rejection.
  std::shared_ptr<const Graph> Build(const std::vector<std::pair<std::string, Operand>>& outputs);

  // --- helpers for operator methods (ops/) ---
  // "If this can not build, throw InvalidStateError".
  void CheckCanBuild(const std::string& op) const;
  // "validating operand": throws TypeError naming the method and argument when `o` is foreign.
  void ValidateOperand(const std::string& op, const char* argument, const Operand& o) const;
  const OperandDescriptor& Desc(const Operand& o) const;
  const OperandNode& Node(OperandId id) const { return operands_[id.value]; }
  // Creates the operator node and its output operands.
  std::vector<Operand> AddOperator(OperatorNode node, std::vector<OperandDescriptor> outputs);
  const BuilderLimits& limits() const { return limits_; }
  const std::vector<OperatorNode>& operators() const { return operators_; }
  size_t operand_count() const { return operands_.size(); }

 private:
  BuilderLimits limits_;
  bool has_built_ = false;
  std::vector<OperandNode> operands_;
  std::vector<OperatorNode> operators_;
};

// Receives every operand value as it is computed (inputs and constants first).
using ExecutionObserver = std::function<void(OperandId, const OperandValue&)>;

// A built graph (MLGraph): the operators needed for its outputs, in creation (= topological) order.
class Graph {
 public:
  const std::map<std::string, OperandDescriptor>& input_descriptors() const { return inputs_; }
  const std::vector<std::pair<std::string, OperandId>>& outputs() const { return outputs_; }
  const OperandDescriptor& output_descriptor(const std::string& name) const;
  // Operators feeding each output (used for default tolerances and traces).
  std::vector<const OperatorNode*> OperatorsFeeding(OperandId id) const;
  const std::vector<OperatorNode>& operators() const { return operators_; }
  const OperandNode& operand(OperandId id) const { return operands_[id.value]; }
  size_t operand_count() const { return operands_.size(); }

  // Executes the graph. `inputs` must match input_descriptors() exactly (TypeError otherwise).
  // `kernels`, when not empty, holds one kernel per operator (a backend's, ops/backend.h) used
  // instead of the reference kernels.
  std::map<std::string, OperandValue> Compute(
      const std::map<std::string, Tensor>& inputs, const ExecutionObserver& observer = {},
      std::span<const std::shared_ptr<const Kernel>> kernels = {}) const;

  // Runs operator `index` alone on `inputs` (its input values, in order) with `kernel` (the
  // reference kernel when null), and applies the executor's latitude rules to the outputs.
  std::vector<OperandValue> RunOperator(size_t index, std::span<const OperandValue* const> inputs,
                                        const Kernel* kernel = nullptr) const;

 private:
  friend class GraphBuilder;
  std::vector<OperandNode> operands_;
  std::vector<OperatorNode> operators_;  // only those needed; producer indices remapped
  std::map<std::string, OperandDescriptor> inputs_;
  std::vector<std::pair<std::string, OperandId>> outputs_;
};

// Latitude helpers for kernels.
Tensor NewLatitude(const Shape& shape);  // all kExact
bool AnyLatitude(const Tensor& latitude);

}  // namespace nnref
